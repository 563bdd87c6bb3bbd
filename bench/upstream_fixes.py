"""What each of the app's changes to Panel and Bokeh (``app/upstream/``) buys: three figures, each fix off alone.

What
----
For every configuration, "all on" (every fix installed), "all off" (every fix with a speed figure
skipped) and each such fix skipped alone, three figures:

1. **session**: server CPU to open one lesson session in Chromium (``/lesson?id=overlap``, from
   ``page.goto`` until the lab's readout shows, plus 1 s), as ``bench/session_cost.py`` measures it;
2. **first build**: the in-process time to build and serialize a lesson page (``/lesson?id=overlap``)
   and a lab page (``/lab?id=queue``) in a fresh process, as ``bench/build_cost.py`` does
   (``tests/page_documents.py``): the first build of each in the process, and the median of a few
   builds after it ("warm");
3. **pause**: the longest event-loop task (``/healthz``'s ``longest_task_ms``, ``OVERLAP_TASK_TIMER=1``)
   while a scaled-down seminar (``--students`` over ``--ramp`` s, ``bench/class_load.py``'s students,
   ``bench/lib/class_runs.py``) works through the guided exercise on one fresh app process.

``panel_write_queue`` is on in every configuration, "all off" included: it fixes a race that can leave
a websocket write unsent (a correctness fix, with no speed figure; without it a student of the load
can wait forever); so is ``closed_connection`` (a traceback in the log as a tab closes during a keep-alive
ping, no speed figure). ``task_timer`` is the bench's own instrument: on only for the pause, in every
configuration.

How
---
A configuration is the environment variable ``OVERLAP_UPSTREAM_SKIP`` (``app.upstream.install()``
reads it once per process), so every figure comes from processes started for it: one app server per
configuration for the session opens (kept running, its pages kept open until the end so that no
session teardown falls in a window), one child process of this script per configuration and round
for the builds (``--child``, printing JSON), and one app server per load. Each process's
``/healthz`` (or the child's ``app.upstream.report()``) is checked against the fixes asked for.

The configurations are interleaved in rounds, each round in a rotated order, so the machine's drift
falls on all alike: every round builds each configuration once and opens ``--opens`` sessions on each;
the loads are spread over the rounds ("all on" in every round, the others in turn). The table gives
each figure's median over its samples and, for each fix, its difference from "all on"; the noise is
the spread (max - min) of "all on"'s per-round figures. A fix whose differences all stay within the
noise moves no figure; it is listed last.

Usage::

    .venv/bin/python -m bench.upstream_fixes [--rounds 3] [--opens 1] [--students 30 --ramp 20]
    .venv/bin/python -m bench.upstream_fixes --quick      # 2 rounds, 15 students over 10 s
    .venv/bin/python -m bench.upstream_fixes --no-load    # session and build figures only

The default run takes about 15 minutes on a 2-core machine.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from app.upstream import FIXES, SKIP_ENV
from devtools.serving import REPOSITORY

LESSON, LAB = "/lesson?id=overlap", "/lab?id=queue"
"""The pages built in-process; the session opens use the lesson."""

NO_SPEED = {
    "panel_write_queue": "a correctness fix (a queued websocket write left unsent): no speed figure",
    "closed_connection": "a correctness fix (a traceback as a tab closes during a keep-alive ping): no speed figure",
}
"""Fixes never turned off here, and why (``task_timer`` is this bench's instrument)."""

TOGGLED = tuple(fix.name for fix in FIXES if fix.name not in NO_SPEED and not fix.only_if)
"""The fixes turned off, alone and all together."""

ALL_ON, ALL_OFF = "all on", "all off"


def configurations() -> dict[str, tuple[str, ...]]:
    """Each configuration's name and the fixes it skips."""
    configs = {ALL_ON: (), ALL_OFF: TOGGLED}
    configs.update({f"-{name}": (name,) for name in TOGGLED})
    return configs


def skip_env(skipped: tuple[str, ...]) -> dict[str, str]:
    """The environment that skips ``skipped`` (an empty value skips nothing)."""
    return {SKIP_ENV: ",".join(skipped)}


def check_report(name: str, skipped: tuple[str, ...], report: dict) -> None:
    """Stop the bench when a process did not install exactly what ``name`` asks for."""
    expected = set(TOGGLED) - set(skipped)
    installed = set(report.get("installed", ())) & set(TOGGLED)
    if installed != expected:
        raise SystemExit(f"{name}: installed {sorted(installed)}, expected {sorted(expected)} ({report})")


# --- figure 2: the builds, in a child process per configuration and round -------------------------


def child(builds: int) -> None:
    """In this process (``--child``): install the fixes, build each page, print JSON with the times."""
    from app.upstream import install, report
    from tests.page_documents import page_document

    install()

    def build_ms(path: str) -> float:
        started = time.perf_counter()
        page_document(path).to_json()
        return 1000 * (time.perf_counter() - started)

    first = {LESSON: build_ms(LESSON), LAB: build_ms(LAB)}
    warm: dict[str, list[float]] = {LESSON: [], LAB: []}
    for _ in range(builds):
        for path in (LESSON, LAB):
            warm[path].append(build_ms(path))
    result = {"first": first, "warm": {path: statistics.median(times) for path, times in warm.items()}}
    print(json.dumps({**result, "upstream": report()}))


def build_in_child(name: str, skipped: tuple[str, ...], builds: int) -> dict:
    """Run :func:`child` in a fresh process with ``skipped`` skipped; return its JSON."""
    command = [sys.executable, "-m", "bench.upstream_fixes", "--child", "--builds", str(builds)]
    env = {**os.environ, **skip_env(skipped)}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, cwd=REPOSITORY)
    if done.returncode:
        raise SystemExit(f"{name}: the build process failed:\n{done.stderr}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    check_report(name, skipped, result["upstream"])
    return result


# --- figure 1: session opens, one server per configuration ------------------------------------------


class Opener:
    """Chromium and one app server per configuration, for session opens (``bench/session_cost.py``)."""

    def __init__(self, configs: dict[str, tuple[str, ...]]):
        from playwright.sync_api import sync_playwright

        from bench.lib.app_health import get_json
        from bench.lib.servers import AppServer
        from tests.chromium import launch

        self.servers: dict[str, AppServer] = {}
        self.contexts: list = []
        self._playwright = sync_playwright().start()
        self.browser = launch(self._playwright)
        for name, skipped in configs.items():
            server = AppServer(env=skip_env(skipped), ready_path="/healthz")
            self.servers[name] = server
            check_report(name, skipped, get_json(f"{server.base_url}/healthz")["upstream"])

    def open_ms(self, name: str, settle: float = 1.0) -> float:
        """Server CPU (ms) of one lesson open on ``name``'s server; NaN if it did not become usable."""
        from bench.session_cost import open_once

        server = self.servers[name]
        try:
            cost, context = open_once(self.browser, f"{server.base_url}{LESSON}", "readout", settle, server.pid)
        except Exception as error:  # noqa: BLE001 (a timeout: said, and the sample left out)
            print(f"  {name}: an open failed: {type(error).__name__}: {str(error).splitlines()[0]}")
            return math.nan
        self.contexts.append(context)
        return 1000 * cost

    def problems(self) -> dict[str, list[str]]:
        """Each server's logged errors and warnings, where there are any."""
        found = {
            name: [line for line in server.problems() if "app.upstream:" not in line]
            for name, server in self.servers.items()
        }
        return {name: lines for name, lines in found.items() if lines}

    def close(self) -> None:
        """Close every page, Chromium and the servers."""
        for context in self.contexts:
            with contextlib.suppress(Exception):
                context.close()
        with contextlib.suppress(Exception):
            self.browser.close()
            self._playwright.stop()
        for server in self.servers.values():
            server.stop()


# --- figure 3: the longest pause of a scaled-down seminar -------------------------------------------


def load_pause(name: str, skipped: tuple[str, ...], students: int, ramp: float) -> tuple[float, str]:
    """Run ``students`` over ``ramp`` s on a fresh app server; return its longest task (ms) and a note."""
    from bench.lib.app_health import AppProcess, get_json
    from bench.lib.class_records import custom_scenario
    from bench.lib.class_runs import TIMER_ENV, Options, Target, run_scenario, warm_up
    from bench.lib.servers import AppServer

    options = Options(seed=1, timeout=30.0, open_timeout=240.0, idle_timeout=60.0)
    with AppServer(env={**TIMER_ENV, **skip_env(skipped)}, ready_path="/healthz") as server:
        report = get_json(f"{server.base_url}/healthz")["upstream"]
        check_report(name, skipped, report)
        if "task_timer" not in report["installed"]:
            raise SystemExit(f"{name}: the task timer is not installed ({report})")
        target = Target(name, server.base_url, [AppProcess(f"{server.base_url}/healthz")], server.problems)
        with contextlib.redirect_stdout(io.StringIO()):  # class_runs' own lines (the class database)
            warm_up(target, options)
            run = run_scenario(target, custom_scenario(students, ramp), options)
    errors = sum(1 for outcome in run.outcomes if outcome.error)
    longest = run.after[0].longest_task_ms
    what = run.after[0].health.get("longest_task", "?")
    note = f"{what}" + (f", {errors} students stopped early" if errors else "")
    problems = [line for line in run.problems or [] if "app.upstream:" not in line]
    note += f", {len(problems)} server problems: {problems[0]}" if problems else ""
    return (math.nan if longest is None else longest), note


# --- the run --------------------------------------------------------------------------------------


@dataclass
class Figures:
    """Every sample of one configuration, by figure, each a list of per-round values."""

    session: list[list[float]] = field(default_factory=list)
    lesson: list[float] = field(default_factory=list)
    lab: list[float] = field(default_factory=list)
    lesson_warm: list[float] = field(default_factory=list)
    lab_warm: list[float] = field(default_factory=list)
    pause: list[float] = field(default_factory=list)


COLUMNS = (
    ("session", "session ms"),
    ("lesson", "lesson 1st"),
    ("lab", "lab 1st"),
    ("lesson_warm", "lesson warm"),
    ("lab_warm", "lab warm"),
    ("pause", "pause ms"),
)
"""Each figure and its column heading."""


def median(values: list[float]) -> float:
    """The median of the values that are numbers (NaN if none)."""
    values = [value for value in values if not math.isnan(value)]
    return statistics.median(values) if values else math.nan


def per_round(figures: Figures, key: str) -> list[float]:
    """One value per round of ``key``: the session opens' median within the round, else the sample."""
    values = getattr(figures, key)
    return [median(value) for value in values] if key == "session" else list(values)


def overall(figures: Figures, key: str) -> float:
    """The figure: the median of every sample (every session open, every build or load)."""
    values = getattr(figures, key)
    return median([v for value in values for v in value] if key == "session" else values)


def spread(values: list[float]) -> float:
    """Max minus min of the numbers among ``values`` (NaN for fewer than two)."""
    values = [value for value in values if not math.isnan(value)]
    return max(values) - min(values) if len(values) > 1 else math.nan


def cell(value: float, width: int, signed: bool = False) -> str:
    """``value`` rounded to a whole number, right-aligned in ``width`` (``-`` for NaN)."""
    if math.isnan(value):
        return f"{'-':>{width}s}"
    return f"{value:+{width}.0f}" if signed else f"{value:{width}.0f}"


def table(results: dict[str, Figures], load: bool) -> None:
    """Print the configurations' figures, each fix's difference from "all on", and the noise."""
    columns = [(key, title) for key, title in COLUMNS if load or key != "pause"]
    base = {key: overall(results[ALL_ON], key) for key, _ in columns}
    noise = {key: spread(per_round(results[ALL_ON], key)) for key, _ in columns}
    width = 26
    print(f"{'configuration':{width}s}" + "".join(f"{title:>14s}" for _, title in columns))
    for name, figures in results.items():
        row = f"{name:{width}s}"
        for key, _ in columns:
            value = overall(figures, key)
            row += f"{cell(value, 6)} " + (f"({cell(value - base[key], 5, True)})" if name != ALL_ON else " " * 7)
        print(row)
    print(f"{'noise (all on, max-min)':{width}s}" + "".join(f"{cell(noise[key], 14)}" for key, _ in columns))
    print("Each figure is a median; (±n) is its difference from all on; 'fix' rows have that fix off.")
    quiet, moving = [], []
    for name in results:
        if name in (ALL_ON, ALL_OFF):
            continue
        moved = [
            title
            for key, title in columns
            if abs(overall(results[name], key) - base[key]) > noise[key] or math.isnan(noise[key])
        ]
        (moving if moved else quiet).append((name[1:], moved))
    for fix, moved in moving:
        print(f"  {fix}: off moves {', '.join(moved)} by more than the noise")
    print("Fixes that move no figure by more than the noise:", ", ".join(fix for fix, _ in quiet) or "none")
    for fix, why in NO_SPEED.items():
        print(f"  {fix}: not measured, {why}; on in every configuration")


def main() -> None:
    """Run every configuration in interleaved rounds and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds of builds and session opens (default 3)")
    parser.add_argument("--opens", type=int, default=1, help="counted session opens per configuration and round")
    parser.add_argument("--builds", type=int, default=2, help="warm builds of each page after the first (default 2)")
    parser.add_argument("--students", type=int, default=30, help="students of each load (default 30)")
    parser.add_argument("--ramp", type=float, default=20.0, help="seconds over which they arrive (default 20)")
    parser.add_argument("--no-load", action="store_true", help="leave the pause (the loads) out")
    parser.add_argument("--quick", action="store_true", help="2 rounds, 15 students over 10 s")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.builds)
        return
    if args.quick:
        args.rounds, args.students, args.ramp = 2, 15, 10.0
    started = time.perf_counter()
    configs = configurations()
    names = list(configs)
    results = {name: Figures() for name in names}
    # the loads: "all on" in every round, every other configuration once, spread over the rounds
    loads = [[ALL_ON] + names[1 + r :: args.rounds] for r in range(args.rounds)] if not args.no_load else []
    print(
        f"{len(names)} configurations, {args.rounds} rounds; session opens of {LESSON}, builds of {LESSON} and "
        f"{LAB}" + ("" if args.no_load else f", loads of {args.students} students over {args.ramp:g} s")
    )
    opener = Opener(configs)
    try:
        for name in names:  # one uncounted open each: the first open of a process costs several times more
            opener.open_ms(name)
        for r in range(args.rounds):
            order = names[r % len(names) :] + names[: r % len(names)]
            for name in order:
                built = build_in_child(name, configs[name], args.builds)
                results[name].lesson.append(built["first"][LESSON])
                results[name].lab.append(built["first"][LAB])
                results[name].lesson_warm.append(built["warm"][LESSON])
                results[name].lab_warm.append(built["warm"][LAB])
            for name in order:
                results[name].session.append([opener.open_ms(name) for _ in range(args.opens)])
            for name in loads[r] if loads else []:
                # in a thread of its own: Playwright's loop runs in this one, and the students need asyncio.run
                with ThreadPoolExecutor(1) as thread:
                    pause, note = thread.submit(load_pause, name, configs[name], args.students, args.ramp).result()
                results[name].pause.append(pause)
                print(f"  round {r + 1} load, {name}: longest task {pause:.0f} ms ({note})")
            print(f"round {r + 1} of {args.rounds} done at {time.perf_counter() - started:.0f} s", flush=True)
        problems = opener.problems()
    finally:
        opener.close()
    print()
    table(results, not args.no_load)
    for name, lines in problems.items():
        print(f"server problems, {name}:", *lines[:5], sep="\n  ")
    print(f"total run time: {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
