"""The app processes behind a benchmark target, as their ``GET /healthz`` and ``/proc`` describe them.

Every app process answers ``/healthz`` with JSON: ``status``, ``pid``, ``sessions`` (live
websockets), ``held``, ``built`` (session documents built since start) and ``warm_ups`` (of those,
the ones it built for itself at start-up); with ``OVERLAP_TASK_TIMER=1`` also ``longest_task_ms``,
``longest_task`` and ``tasks`` since start or the last ``?reset=1``. The pid gives the process's
CPU time from ``/proc/<pid>/stat``, which works only for a process on this machine (a benchmark
target is loopback only). Every request here has a timeout and every wait a bound.
"""

from __future__ import annotations

import json
import math
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from bench.lib.loopback import check_loopback
from bench.lib.procfs import cpu_seconds

CLUSTER_PORTS = (5007, 5008)
"""``make serve-cluster``: the app processes behind nginx on :8080."""


def get_json(url: str, timeout: float = 5.0) -> dict[str, Any]:
    """One ``GET`` of a JSON document (any status; ``/healthz`` answers 503 while starting).

    Parameters
    ----------
    url : str
        The URL.
    timeout : float
        Seconds allowed.

    Returns
    -------
    dict
        The parsed body.
    """
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            return json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return json.loads(error.read())


@dataclass
class Snapshot:
    """One process at one moment.

    Attributes
    ----------
    health : dict
        Its ``/healthz`` answer.
    cpu : float
        CPU seconds it had used (NaN if its pid is not visible here).
    """

    health: dict[str, Any]
    cpu: float

    @property
    def built_by_students(self) -> int:
        """Session documents built since start that were not the process's own warm-ups."""
        return int(self.health.get("built", 0)) - int(self.health.get("warm_ups", 0))

    @property
    def longest_task_ms(self) -> float | None:
        """The longest event-loop task in the timer's window, in ms (None without the timer)."""
        value = self.health.get("longest_task_ms")
        return None if value is None else float(value)

    @property
    def longest_gc_ms(self) -> float | None:
        """The longest garbage-collector pause in the timer's window, in ms (None without the timer)."""
        value = self.health.get("longest_gc_ms")
        return None if value is None else float(value)


class AppProcess:
    """One app process, known by its ``/healthz`` URL.

    Parameters
    ----------
    health_url : str
        For example ``http://127.0.0.1:5007/healthz``; loopback only.
    """

    def __init__(self, health_url: str):
        self.health_url = check_loopback(health_url)
        parts = urlsplit(self.health_url)
        self.label = f":{parts.port or 80}"
        self.pid = int(get_json(self.health_url)["pid"])

    def snapshot(self, reset_timer: bool = False) -> Snapshot:
        """Read ``/healthz`` (starting a new task-timer window if asked) and the process's CPU time.

        Parameters
        ----------
        reset_timer : bool
            Ask with ``?reset=1``: the answer still reports the old window, the next one starts empty.

        Returns
        -------
        Snapshot
            What it said, and its CPU seconds.
        """
        health = get_json(self.health_url + ("?frozen=1&reset=1" if reset_timer else "?frozen=1"))
        if int(health.get("pid", self.pid)) != self.pid:  # restarted, or a balancer answered
            return Snapshot(health, math.nan)
        try:
            cpu = cpu_seconds(self.pid)
        except OSError:
            cpu = math.nan
        return Snapshot(health, cpu)


def discover(base_url: str, health_urls: list[str] | None) -> tuple[list[AppProcess], list[str]]:
    """The app processes behind ``base_url``.

    Parameters
    ----------
    base_url : str
        The target the class runs against (nginx, or one app process).
    health_urls : list of str, optional
        The processes' ``/healthz`` URLs. By default ``http://127.0.0.1:5007/healthz`` and
        ``:5008`` (``make serve-cluster``) are tried; if neither answers, ``<base_url>/healthz``
        (one app process served directly; if that URL answers with different pids, it is a
        balancer and no process is taken).

    Returns
    -------
    processes : list of AppProcess
        Those that answered.
    notes : list of str
        One line for each URL that did not answer (or whose pid another URL already gave).
    """
    candidates = health_urls or [f"http://127.0.0.1:{port}/healthz" for port in CLUSTER_PORTS]
    processes: list[AppProcess] = []
    notes: list[str] = []
    for url in candidates:
        try:
            process = AppProcess(url)
        except (OSError, ValueError, KeyError) as error:
            notes.append(f"{url}: no answer ({type(error).__name__}: {error})")
            continue
        if any(p.pid == process.pid for p in processes):
            notes.append(f"{url}: same process (pid {process.pid}) as another URL, counted once")
            continue
        processes.append(process)
    if not processes and not health_urls:
        ports = " nor ".join(f":{port}" for port in CLUSTER_PORTS)
        processes, notes = _direct(f"{base_url}/healthz")
        notes.insert(0, f"neither {ports} answered /healthz (no make serve-cluster): asked {base_url}/healthz")
    return processes, notes


def _direct(url: str, asks: int = 3) -> tuple[list[AppProcess], list[str]]:
    """The one process answering ``url``, if a few answers in a row all give the same pid."""
    try:
        pids = {int(get_json(url)["pid"]) for _ in range(asks)}
        if len(pids) > 1:
            return [], [f"{url}: {len(pids)} different pids, a balancer: name the processes with --app-health"]
        return [AppProcess(url)], []
    except (OSError, ValueError, KeyError) as error:
        return [], [f"{url}: no answer ({type(error).__name__}: {error})"]


def snapshot_all(processes: list[AppProcess], reset_timer: bool = False) -> list[Snapshot]:
    """:meth:`AppProcess.snapshot` of each process, in order."""
    return [process.snapshot(reset_timer) for process in processes]


def wait_until_idle(processes: list[AppProcess], timeout: float, poll: float = 1.0) -> tuple[bool, int, float]:
    """Wait until no process reports a live session (every tab of the last load closed).

    Parameters
    ----------
    processes : list of AppProcess
        The processes to ask.
    timeout : float
        Seconds to wait at most.
    poll : float
        Seconds between two rounds of questions.

    Returns
    -------
    idle : bool
        Whether the sessions dropped to 0 in time.
    sessions : int
        The live sessions summed over the processes at the last look.
    waited : float
        Seconds waited.
    """
    started = time.monotonic()
    while True:
        sessions = sum(int(get_json(process.health_url).get("sessions", 0)) for process in processes)
        waited = time.monotonic() - started
        if sessions == 0 or waited >= timeout:
            return sessions == 0, sessions, waited
        time.sleep(poll)
