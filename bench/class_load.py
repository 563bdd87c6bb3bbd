"""A class of students on the guided exercise: page open and click-to-readout latency under load.

Targets
-------
Without ``--url`` the bench starts one app process (``python -m app``, with ``OVERLAP_TASK_TIMER=1``)
on a free loopback port and runs the class against it, as it always has. With ``--url`` (for
example ``http://127.0.0.1:8080``, ``make serve-cluster``: nginx in front of two app processes) it
runs the class against that already-running server; ``--app-health`` lists the ``/healthz`` URLs of
the app processes behind it (default: ``:5007`` and ``:5008`` if they answer, else
``<url>/healthz``), whose CPU and build counts it reports (their pid from ``/healthz``, their CPU
from ``/proc``: same machine only). With ``--url``, ``--compare-single`` (on by default) then runs
the same scenario against one ``python -m app`` the bench starts itself, after the cluster is done
(never both at once: the machine has 2 cores), and prints the two side by side.

Scenarios
---------
``--sessions N --ramp S`` (default 100 over 10 s), or ``--scenario lecture`` (300 students arriving
uniformly over 120 s), ``burst`` (100 within 10 s), ``seminar`` (100 over 60 s, the class one
process is to hold: page open p95 ≤ 5 s, click p95 ≤ 250 ms), ``thousand`` (1,000 over 120 s, what
``make serve-cluster`` on one 2-core machine is to hold, issue 47: the same budgets, 0 errors, every
session built once) or ``both`` (lecture, then burst, on the same
servers; between the two the bench waits until every process's ``/healthz`` reports 0 live
sessions, and says so if they do not drop within ``--idle-timeout``).

Each student is one session of ``/lesson?id=overlap&exercise=growth`` driven from this one asyncio
process over the raw Bokeh websocket protocol (``bench/lib/raw_session.py``: a browser's wire
traffic without a browser; ``bokeh.client`` costs about 7× its client CPU per session:
bench/client_cost.py), each one the simulated student of ``bench/lib/student.py``. Arrivals are
spread evenly (with a seeded jitter) over the ramp. Before the class, one warm-up student per app
process does the exercise (not counted). Each student does the "A backlog that keeps growing"
exercise with a seeded random think time of 0.5-3 s before every action:

======  ==========================================  ==========================================
action  what the page sends                         awaited change (in a server PATCH-DOC)
======  ==========================================  ==========================================
reset   ``PlaybackState.command`` = {reset}         the readout Div's ``text``
lambda  λ TextInput ``value`` = "4"                 the readout Div's ``text``
mu      μ TextInput ``value`` = "3"                 the readout Div's ``text``
lock    the exercise card's ``data_event``          the Play button's ``disabled`` → false
        {action: lock, text: "1"} (``send_msg``)
step    command = {step} (twice)                    the readout Div's ``text``
pause   command = {pause, t = 2 + w}                the readout Div's ``text`` showing that t
======  ==========================================  ==========================================

Play itself sends nothing (the browser plays back alone), so a Play is simulated as a wait ``w``
of 1-2 s followed by the Pause command carrying the browser's t.

Figures
-------
- **Page open** (p50/p95/max): from just before the page's ``GET`` to the moment a student could
  click: the later of (a) the arrival of the server's ``OK`` to the page's first ``PATCH-DOC``
  (the rendered page's ``document_ready``, after the websocket handshake, its ``ACK``, by which
  the server has built the session, and the ``PULL-DOC-REPLY``, the document) and (b) the arrival
  of the server PATCH-DOC that completed the page with every model the exercise uses (lab
  inputs, readout, Play, exercise card) when the page sends parts after load
  (``app.web.shell.deferred``); (b) is (a) when the pulled document already had them. The report
  also gives p50/p95 of each step: page GET, websocket+ACK, PULL-DOC, first PATCH-DOC OK,
  deferred parts.
- **Every page open by**: seconds from the start of the load (the first arrival) to the moment
  the last session finished opening; "never" if one did not open.
- **Click-to-readout**: from just before the first frame of an action's message is written to the
  arrival of the last frame of the server PATCH-DOC carrying the awaited change, both on this
  process's clock. Some actions do not change the readout text at all: Reset on a fresh lab (it
  already shows t = 0 with the defaults), and λ/μ edits at t = 0 when the lab hides the net rate
  during an exercise. For those the latency runs to the first PATCH-DOC the server sends after the
  action (the step list, the plot), which is what the student then sees change; the report says
  for each action how many samples were timed which way. Before each action the session waits
  until nothing has arrived for 0.2 s, so that no answer to the previous action is taken for this
  one's. Split into **while opening** (actions sent before the last session finished opening)
  and **once all open** (sent after).
- **Errors**: sessions that stopped early (timeout, refused or closed connection, missing model).
- **Wrong readouts**: sessions whose readout after the second Step did not say ``t = 2.00 s`` and
  ``backlog = 6.00`` (q0 = 4, λ − μ = 1), or whose exercise card never got the verdict "Correct".
- **Server CPU**: user + system CPU seconds of the app processes over the load, summed (and each).
  Client CPU is this bench's; "other processes" is the rest of the machine (nginx included).
- **Longest task**: each process's longest single event-loop callback during the load (from
  ``/healthz``, timer window reset with ``?reset=1`` as the scenario starts; "not measured" unless
  the process runs with ``OVERLAP_TASK_TIMER=1``). A click that arrives behind it waits for it.
- **Sessions built / opened**: ``built - warm_ups`` summed over the processes, after minus before
  the load, against the sessions whose websocket got its ``ACK``; "built exactly once" says
  whether the two are equal (the page's HTML comes from a cached session, and each student's
  session must be built once, where its websocket lands).

Budgets (design.md, for one 2-core machine with 2 processes behind nginx), printed beside: lecture,
p95 open ≤ 5 s, p95 click ≤ 250 ms while opening and ≤ 100 ms once all open; burst, every page open
within 30 s and p95 click ≤ 500 ms; both, 0 errors and 0 wrong readouts; and every session built
exactly once. A custom ``--sessions``/``--ramp`` load is held to p95 click ≤ 100 ms, as before.

The time budgets are the reference machine's. Before any load the bench times a fixed piece of
CPython work (bench/lib/machine.py: 10M integer additions); on a machine slower than the reference
one every time budget is multiplied by the ratio (never made tighter), and the CPU line says what
a student costs in units of that work and how many students a core serves per minute, here and
on the reference machine's scale. So a slower machine is held to what the same design does there,
and a regression (more CPU per student) fails on both.

Usage::

    .venv/bin/python -m bench.class_load [--sessions 100] [--ramp 10] [--seed 1]
    .venv/bin/python -m bench.class_load --scenario {lecture,burst,seminar,thousand,both}
    .venv/bin/python -m bench.class_load --url http://127.0.0.1:8080 [--scenario both]
        [--app-health http://127.0.0.1:5007/healthz,http://127.0.0.1:5008/healthz] [--no-compare-single]
    .venv/bin/python -m bench.class_load --sessions 150 --ramp 60 --compare-gc
    .venv/bin/python -m bench.class_load --sessions 100 --ramp 60 --before /tmp/before
    .venv/bin/python -m bench.class_load --scenario seminar --rounds 2 \
        --compare-skip lean_references,page_html,lean_models

With ``--before DIR`` (another checkout, such as ``git worktree add /tmp/before <commit>``) one
process of that checkout's app runs the same class after this one's, and the two are printed side
by side: this machine's speed drifts by a third within an hour, more than most changes move these
figures, so a before/after compares only within one run.

With ``--compare-skip FIXES`` (names of ``app.upstream`` fixes, separated by commas) the bench runs
one process with every fix installed, then one with those fixes skipped (``OVERLAP_UPSTREAM_SKIP``,
checked against the process's ``/healthz``), and with ``--rounds N`` repeats the pair N times, so
the machine's drift falls on both alike. It prints the columns side by side, then, round by round,
server CPU per student, click p95, page open p95 and Bokeh models per page with and without the
fixes and their ratio; the spread between rounds is the noise a fix's ratio must exceed.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from bench.lib.class_records import SCENARIOS, Run, Scenario, custom_scenario
from bench.lib.class_report import compare, ratios
from bench.lib.class_runs import Options, cluster_target, run_single, run_target
from bench.lib.loopback import check_loopback
from bench.lib.machine import measure


def parse_args() -> tuple[argparse.Namespace, list[Scenario]]:
    """Read the command line; return it and the scenarios to run, in order."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, help="students (default 100)")
    parser.add_argument("--ramp", type=float, help="seconds over which students arrive (default 10)")
    parser.add_argument(
        "--scenario",
        choices=("lecture", "burst", "seminar", "thousand", "both"),
        help="a preset instead of --sessions/--ramp (both: lecture then burst)",
    )
    parser.add_argument("--url", help="run against this running server (e.g. http://127.0.0.1:8080) instead")
    parser.add_argument("--app-health", help="comma-separated /healthz URLs of the app processes behind --url")
    parser.add_argument(
        "--compare-single",
        action=argparse.BooleanOptionalAction,
        help="also run one app process started here, after --url (default: on with --url)",
    )
    parser.add_argument(
        "--compare-gc",
        action="store_true",
        help="also run one process with Panel's own garbage collection (OVERLAP_GC=panel), side by side",
    )
    parser.add_argument(
        "--before",
        type=Path,
        help="also run one process of another checkout (git worktree add /tmp/before <commit>), side by side",
    )
    parser.add_argument(
        "--compare-skip",
        metavar="FIXES",
        help="also run one process with these app.upstream fixes skipped (OVERLAP_UPSTREAM_SKIP), side by side",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="with --compare-skip: run fixes-on then fixes-skipped this many times, alternating (default 1)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed for start jitter and think times")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds allowed for each click's response")
    parser.add_argument("--open-timeout", type=float, default=240.0, help="seconds allowed for each page-open step")
    parser.add_argument("--deadline", type=float, help="seconds allowed for a whole load (default ramp + 150, ≥ 270)")
    parser.add_argument("--idle-timeout", type=float, default=60.0, help="seconds to wait for sessions to close")
    args = parser.parse_args()
    if args.scenario and (args.sessions is not None or args.ramp is not None):
        parser.error("--scenario and --sessions/--ramp exclude each other")
    if args.rounds != 1 and not args.compare_skip:
        parser.error("--rounds needs --compare-skip")
    if not 1 <= args.rounds <= 5:
        parser.error("--rounds must be between 1 and 5")
    if args.compare_skip and (args.url or args.compare_gc or args.before):
        parser.error("--compare-skip runs processes started here only: not with --url, --compare-gc or --before")
    if args.app_health and not args.url:
        parser.error("--app-health needs --url")
    for url in [args.url or "http://127.0.0.1", *(args.app_health or "").split(",")]:
        try:
            check_loopback(url.strip() or "http://127.0.0.1")
        except ValueError as error:
            parser.error(str(error))
    if args.compare_single is None:
        args.compare_single = bool(args.url)
    if args.scenario:
        names = ("lecture", "burst") if args.scenario == "both" else (args.scenario,)
        return args, [SCENARIOS[name] for name in names]
    sessions = 100 if args.sessions is None else args.sessions
    ramp = 10.0 if args.ramp is None else args.ramp
    if not 1 <= sessions <= 1000:
        parser.error("--sessions must be between 1 and 1000")
    if not 0 <= ramp <= 600:
        parser.error("--ramp must be between 0 and 600 s")
    args.sessions, args.ramp = sessions, ramp
    return args, [custom_scenario(sessions, ramp)]


def compare_skip(scenarios: list[Scenario], options: Options, skip: str, rounds: int) -> None:
    """Run every fix on, then ``skip``'s fixes off, ``rounds`` times in turn; print the columns and the ratios.

    Parameters
    ----------
    scenarios : list of Scenario
        What, in order, on each process.
    options : Options
        Seed and timeouts (the same students in every round).
    skip : str
        Fix names separated by commas (``OVERLAP_UPSTREAM_SKIP``).
    rounds : int
        How many on/off pairs, one process each, one after the other (never two at once).
    """
    pairs = []
    for round_ in range(1, rounds + 1):
        label = f"#{round_}" if rounds > 1 else ""
        on = run_single(scenarios, options, label=label)
        off = run_single(scenarios, options, skip=skip, label=label)
        pairs.append((on, off))
    for index in range(len(scenarios)):
        compare([runs[index] for pair in pairs for runs in pair])
        ratios([(on[index], off[index]) for on, off in pairs], skip)


def main() -> None:
    """Run the scenarios against each target in turn, print each run, then the targets side by side."""
    started = time.perf_counter()
    args, scenarios = parse_args()
    speed = measure()  # before any load: the machine's own speed, not the app's
    print(speed.text())
    scenarios = [scenario.scaled(speed.slowdown) for scenario in scenarios]
    options = Options(args.seed, args.timeout, args.open_timeout, args.idle_timeout, args.deadline, speed)
    columns: list[list[Run]] = []
    if args.compare_skip:
        compare_skip(scenarios, options, args.compare_skip, args.rounds)
        print(f"total run time: {time.perf_counter() - started:.1f} s")
        return
    if args.url:
        columns.append(run_target(cluster_target(args.url, args.app_health), scenarios, options))
    if not args.url or args.compare_single:
        columns.append(run_single(scenarios, options))
    if args.compare_gc:
        columns.append(run_single(scenarios, options, gc_policy="panel"))
    if args.before:
        columns.append(run_single(scenarios, options, checkout=args.before.resolve()))
    for index in range(len(scenarios)):
        compare([runs[index] for runs in columns])
    print(f"total run time: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
