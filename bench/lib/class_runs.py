"""A class against a target: warm-up, the load, and the app processes' figures before and after it.

A target is where the students go (``--url``, or one ``python -m app`` started here) and the app
processes behind it (:mod:`bench.lib.app_health`). :func:`run_target` warms it up and runs each
scenario in turn, printing each run's report as it ends (:mod:`bench.lib.class_report`);
``bench/class_load.py`` describes what is measured.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from app.upstream import SKIP_ENV
from bench.lib.app_health import CLUSTER_PORTS, AppProcess, discover, get_json, snapshot_all, wait_until_idle
from bench.lib.class_records import CUSTOM_CLICK_P95_MS, Run, Scenario
from bench.lib.class_report import class_database, report
from bench.lib.class_watch import ClassWatch
from bench.lib.loopback import check_loopback
from bench.lib.machine import MachineSpeed
from bench.lib.procfs import machine_busy_seconds
from bench.lib.servers import AppServer
from bench.lib.student import Plan, run_load

START_TIMEOUT = 300.0
"""Seconds an app process may take to answer ``/healthz`` (a minute or more on a machine shared with test runs)."""

TIMER_ENV = {"OVERLAP_TASK_TIMER": "1"}
"""What the bench starts an app process with: ``/healthz`` then reports the longest task and GC pause."""


@dataclass(frozen=True)
class Options:
    """How every run of one bench invocation goes.

    Attributes
    ----------
    seed : int
        Seeds the start jitter and think times.
    timeout : float
        Seconds allowed for each click's response.
    open_timeout : float
        Seconds allowed for each page-open step.
    idle_timeout : float
        Seconds to wait for the last scenario's sessions to close before the next one.
    deadline : float, optional
        Seconds allowed for a whole load; by default the ramp plus 150 s, at least 270 s.
    speed : MachineSpeed, optional
        This machine against the reference one, for the report.
    """

    seed: int
    timeout: float
    open_timeout: float
    idle_timeout: float
    deadline: float | None = None
    speed: MachineSpeed | None = None

    def deadline_for(self, scenario: Scenario) -> float:
        """Seconds allowed for a whole load of ``scenario`` (see :attr:`deadline`)."""
        return self.deadline if self.deadline is not None else max(270.0, scenario.ramp + 150.0)


@dataclass
class Target:
    """Where a class is run, and the app processes that serve it.

    Attributes
    ----------
    name : str
        ``cluster`` (the ``--url`` server, several processes behind it), ``server`` (the ``--url``
        server, one process or none found) or ``single`` (the process the bench starts).
    base_url : str
        Where the students go.
    processes : list of AppProcess
        The app processes behind it (empty if none answered ``/healthz``).
    problems : callable or None
        Returns the error lines of the server's log so far; None if the bench cannot read it.
    notes : list of str
        Said once, with the first scenario's report (health URLs that did not answer, ...).
    """

    name: str
    base_url: str
    processes: list[AppProcess]
    problems: Callable[[], list[str]] | None = None
    notes: list[str] | None = None


def warm_up(target: Target, options: Options) -> None:
    """Run one quick student per app process, one after the other, before the class (not counted).

    Imports and first-use caches are then not charged to the class; behind nginx (``least_conn``,
    ties taken in turn) the students land on every process in turn.

    Parameters
    ----------
    target : Target
        Where.
    options : Options
        Seed and timeouts.
    """
    for extra in range(max(1, len(target.processes))):
        warm = Plan(
            target.base_url,
            options.seed + 1 + extra,
            options.timeout,
            options.open_timeout,
            think=(0.1, 0.2),
            play=(0.2, 0.3),
        )
        outcomes, _ = asyncio.run(run_load(warm, 1, 0.0, 60.0))
        if outcomes[0].error:
            raise SystemExit(f"warm-up session against {target.base_url} failed: {outcomes[0].error}")


def settle(target: Target, timeout: float) -> list[str]:
    """Wait until the target's processes hold no live session; return what the report should say.

    Parameters
    ----------
    target : Target
        The target.
    timeout : float
        Seconds to wait at most.

    Returns
    -------
    list of str
        Empty when idle at once; else how long it took, or how many sessions were still live.
    """
    if not target.processes:
        return ["no /healthz: did not wait for earlier sessions to close"]
    idle, live, waited = wait_until_idle(target.processes, timeout)
    if not idle:
        return [f"{live} sessions still live after waiting {waited:.0f} s; the scenario started anyway"]
    return [f"waited {waited:.0f} s for earlier sessions to close"] if waited >= 1 else []


def run_scenario(target: Target, scenario: Scenario, options: Options) -> Run:
    """Run one scenario against one target, with the processes' figures before and after.

    Parameters
    ----------
    target : Target
        Where.
    scenario : Scenario
        How many students over how long.
    options : Options
        Seed and timeouts.

    Returns
    -------
    Run
        Everything the report needs.
    """
    notes = settle(target, options.idle_timeout)
    logged = len(target.problems()) if target.problems else 0
    before = snapshot_all(target.processes, reset_timer=True)
    client_before = time.process_time()
    machine_before = machine_busy_seconds()
    plan = Plan(target.base_url, options.seed, options.timeout, options.open_timeout)
    watch = ClassWatch(target.base_url)
    load = run_load(plan, scenario.sessions, scenario.ramp, options.deadline_for(scenario), watch)
    outcomes, wall = asyncio.run(load)
    locked_at = [s.sent + s.ms / 1000 for o in outcomes for s in o.samples if s.action == "lock"]
    class_database(watch.lag(locked_at))
    client_cpu = time.process_time() - client_before
    machine_cpu = machine_busy_seconds() - machine_before
    after = snapshot_all(target.processes)
    return Run(
        target=target.name,
        base_url=target.base_url,
        scenario=scenario,
        seed=options.seed,
        outcomes=outcomes,
        wall=wall,
        client_cpu=client_cpu,
        machine_cpu=machine_cpu,
        labels=[process.label for process in target.processes],
        before=before,
        after=after,
        problems=target.problems()[logged:] if target.problems else None,
        notes=notes,
        speed=options.speed,
    )


def run_target(target: Target, scenarios: list[Scenario], options: Options) -> list[Run]:
    """Warm the target up, then run each scenario in turn, printing each run's report as it ends.

    Parameters
    ----------
    target : Target
        Where.
    scenarios : list of Scenario
        What, in order.
    options : Options
        Seed and timeouts.

    Returns
    -------
    list of Run
        One per scenario.
    """
    warm_up(target, options)
    runs = []
    for scenario in scenarios:
        run = run_scenario(target, scenario, options)
        if not runs and target.notes:
            run.notes[:0] = target.notes
        report(run, run.scenario.click_p95_ms or CUSTOM_CLICK_P95_MS)
        print()
        runs.append(run)
    return runs


def run_single(
    scenarios: list[Scenario],
    options: Options,
    gc_policy: str = "frozen",
    checkout: Path | None = None,
    skip: str = "",
    label: str = "",
) -> list[Run]:
    """Start one ``python -m app`` with the task timer, run the scenarios against it, stop it.

    Parameters
    ----------
    scenarios : list of Scenario
        What, in order.
    options : Options
        Seed and timeouts.
    gc_policy : str
        ``frozen`` (the app's own collector) or ``panel``: started with ``OVERLAP_GC=panel``
        (Panel's and CPython's own garbage collection, without app.upstream.collector), to compare the two.
    checkout : pathlib.Path, optional
        Another checkout of the app (``--before``) to start instead of this one.
    skip : str
        Fixes of ``app.upstream`` to leave out (``OVERLAP_UPSTREAM_SKIP``, names separated by commas);
        the process's ``/healthz`` must report each of them skipped and every other one as before.
    label : str
        Added to the column's name (the round, with ``--rounds``).

    Returns
    -------
    list of Run
        One per scenario.
    """
    env = {**TIMER_ENV, **({"OVERLAP_GC": "panel"} if gc_policy == "panel" else {}), SKIP_ENV: skip}
    with AppServer(env=env, ready_path="/healthz", cwd=checkout, start_timeout=START_TIMEOUT) as server:
        name = "single" if gc_policy == "frozen" else "single, gc panel"
        name = f"before, {name}" if checkout is not None else name
        name = f"{name}, no {skip}" if skip else name
        name = f"{name} {label}" if label else name
        _check_skipped(f"{server.base_url}/healthz", skip)
        target = Target(name, server.base_url, [AppProcess(f"{server.base_url}/healthz")], server.problems)
        return run_target(target, scenarios, options)


def _check_skipped(health_url: str, skip: str) -> None:
    """Stop the bench unless the process's ``/healthz`` reports exactly the fixes in ``skip`` skipped on purpose."""
    wanted = {name.strip() for name in skip.split(",") if name.strip()}
    upstream = get_json(health_url).get("upstream", {})
    on_purpose = {name for name, why in upstream.get("skipped", {}).items() if SKIP_ENV in why}
    if on_purpose != wanted or wanted & set(upstream.get("installed", ())):
        raise SystemExit(f"{health_url}: asked to skip {sorted(wanted)}, /healthz reports {upstream}")


def cluster_target(url: str, app_health: str | None) -> Target:
    """The running server at ``url`` and the app processes found behind it (see :func:`bench.lib.app_health.discover`).

    Parameters
    ----------
    url : str
        The ``--url`` server (loopback only).
    app_health : str, optional
        Comma-separated ``/healthz`` URLs of the app processes behind it (``--app-health``).

    Returns
    -------
    Target
        Named ``cluster`` with several processes behind it, else ``server``.
    """
    url = check_loopback(url)
    health = [item.strip() for item in app_health.split(",") if item.strip()] if app_health else None
    if health is None and urlsplit(url).port in CLUSTER_PORTS:
        health = [f"{url}/healthz"]  # --url is one of the cluster's app processes itself
    processes, notes = discover(url, health)
    if not processes:
        notes.append("no app process answered /healthz: no CPU, build or task figures")
    return Target("cluster" if len(processes) > 1 else "server", url, processes, None, notes)
