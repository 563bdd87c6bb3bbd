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
uniformly over 120 s), ``burst`` (100 within 10 s) or ``both`` (lecture, then burst, on the same
servers; between the two the bench waits until every process's ``/healthz`` reports 0 live
sessions, and says so if they do not drop within ``--idle-timeout``).

Each student is one session of ``/lesson?id=overlap&exercise=growth`` driven from this one asyncio
process over the raw Bokeh websocket protocol (``bench/bokeh_client.py``: a browser's wire traffic
without a browser; ``bokeh.client`` costs about 7× its client CPU per session: bench/client_cost.py). Arrivals are
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
  (``app.shell.deferred``); (b) is (a) when the pulled document already had them. The report
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
CPython work (bench/machine.py: 10M integer additions); on a machine slower than the reference
one every time budget is multiplied by the ratio (never made tighter), and the CPU line says what
a student costs in units of that work and how many students a core serves per minute, here and
on the reference machine's scale. So a slower machine is held to what the same design does there,
and a regression (more CPU per student) fails on both.

Usage::

    .venv/bin/python bench/class_load.py [--sessions 100] [--ramp 10] [--seed 1]
    .venv/bin/python bench/class_load.py --scenario {lecture,burst,both}
    .venv/bin/python bench/class_load.py --url http://127.0.0.1:8080 [--scenario both]
        [--app-health http://127.0.0.1:5007/healthz,http://127.0.0.1:5008/healthz] [--no-compare-single]
    .venv/bin/python bench/class_load.py --sessions 150 --ramp 60 --compare-gc
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from app_health import CLUSTER_PORTS, AppProcess, check_loopback, discover, snapshot_all, wait_until_idle
from bokeh_client import (
    LESSON_PATH,
    AppServer,
    DocIndex,
    ModelInfo,
    ProtocolFailure,
    RawSession,
    any_patch,
    changed,
    http_client,
    machine_busy_seconds,
)
from class_report import STAGES, Outcome, Run, Sample, Scenario, compare, report
from class_watch import ClassWatch
from machine import measure

BUDGET_MS = 100.0
EXERCISE_TITLE = "A backlog that keeps growing"
ARRIVAL = "Arrival rate λ (units/s)"
SERVICE = "Service rate μ (units/s)"
SCENARIOS = {
    "lecture": Scenario(
        "lecture",
        300,
        120.0,
        "300 students arriving uniformly over 120 s",
        open_p95_s=5.0,
        click_opening_p95_ms=250.0,
        click_open_p95_ms=100.0,
    ),
    "burst": Scenario("burst", 100, 10.0, "100 students within 10 s", all_open_s=30.0, click_p95_ms=500.0),
}
TIMER_ENV = {"OVERLAP_TASK_TIMER": "1"}


@dataclass
class LessonIds:
    """The ids of the models one growth-exercise session touches."""

    state: str
    readout: str
    arrival: str
    service: str
    card: str
    play: str

    @classmethod
    def find(cls, doc: DocIndex) -> LessonIds:
        """Find the models in a lesson document (a ``ProtocolFailure`` if one is missing).

        Parameters
        ----------
        doc : DocIndex
            The session's document.

        Returns
        -------
        LessonIds
            The PlaybackState, the readout ``Div`` (its own element is the live region,
            ``role="status"`` in its ``html_attributes``, and its text has ``backlog =``),
            the λ and μ fields (:func:`field_id`), the Play button, and the exercise card (``app.exercise_card``,
            a ``ReactiveESM`` whose data model is labelled "Exercise: A backlog that keeps growing";
            the page has another card).
        """
        label = doc.one(label=f"Exercise: {EXERCISE_TITLE}")
        cards = [m for m in doc.find("ReactiveESM") if (m.attributes.get("data") or {}).get("id") == label.id]
        if len(cards) != 1:
            raise ProtocolFailure(f"expected one exercise card for {EXERCISE_TITLE!r}, found {len(cards)}")
        readouts = [m for m in doc.find("Div") if is_live_region(m) and "backlog =" in m.attributes.get("text", "")]
        if len(readouts) != 1:
            raise ProtocolFailure(f"expected one queue readout Div, found {len(readouts)}")
        return cls(
            state=doc.one("PlaybackState").id,
            readout=readouts[0].id,
            arrival=field_id(doc, ARRIVAL),
            service=field_id(doc, SERVICE),
            card=cards[0].id,
            play=doc.one("Button", label="Play").id,
        )


def is_live_region(model: ModelInfo) -> bool:
    """Whether a model's own element is a live region: ``role="status"`` in its ``html_attributes``.

    The labs' readout ``Div`` carries it there (``labs.ui.playback.LIVE_REGION``), not in its text.

    Parameters
    ----------
    model : ModelInfo
        A model of the pulled document (``html_attributes`` arrives as a Bokeh ``map``).

    Returns
    -------
    bool
        True when the map has the entry ``role``: ``status``.
    """
    attributes = model.attributes.get("html_attributes")
    entries = attributes.get("entries", []) if isinstance(attributes, dict) else []
    return ["role", "status"] in entries


async def usable(session: RawSession, timeout: float) -> LessonIds:
    """Wait until the open page holds every model the exercise uses; note when in ``timings["usable"]``.

    A page may send its lab after it has loaded (``app.shell.deferred``: the frame and text first,
    the lab in a later server PATCH-DOC). ``timings["usable"]`` is the arrival of the PATCH-DOC
    that completed the page, or ``timings["ready"]`` if the page was complete by then.

    Parameters
    ----------
    session : RawSession
        A session :meth:`RawSession.open` has opened.
    timeout : float
        Seconds to wait for the missing parts.

    Returns
    -------
    LessonIds
        The models.
    """
    assert session.doc is not None
    doc = session.doc

    def complete(_events: list[dict[str, Any]]) -> bool:
        try:
            LessonIds.find(doc)
        except ProtocolFailure:
            return False
        return True

    if complete([]):
        session.timings["usable"] = session.timings["ready"]
    else:
        arrived = await asyncio.wait_for(session.expect(complete), timeout)
        session.timings["usable"] = max(arrived.received, session.timings["ready"])
    return LessonIds.find(doc)


def field_id(doc: DocIndex, label: str) -> str:
    """The model whose ``value`` an edit of the text field labelled ``label`` sets.

    A Bokeh ``TextInput`` found by its title, or the data model of a ``JSComponent`` field
    (``labs.ui.text_field.TextField``) found by its label.

    Parameters
    ----------
    doc : DocIndex
        The session's document.
    label : str
        The field's label, e.g. "Arrival rate λ (units/s)".

    Returns
    -------
    str
        The model id.
    """
    found = doc.find("TextInput", title=label) or doc.find(label=label)
    if len(found) != 1:
        raise ProtocolFailure(f"expected one text field labelled {label!r}, found {len(found)}")
    return found[0].id


def feedback_said_correct(events: list[dict[str, Any]]) -> bool:
    """A predicate: the PATCH-DOC sets an exercise card's feedback to a verdict of Correct."""
    for event in events:
        new = event.get("new")
        if event.get("attr") == "verdict" and new == "correct":
            return True
        if event.get("attr") == "feedback_html" and isinstance(new, str) and new.startswith("Correct"):
            return True
    return False


@dataclass
class Response:
    """When the server answered one action.

    Attributes
    ----------
    sent : float
        ``time.perf_counter()`` just before the first frame was written.
    first : float
        Arrival of the first server PATCH-DOC after that.
    wanted : float or None
        Arrival of the PATCH-DOC with the awaited change (readout text, Play enabled), if any came
        before the session went quiet.
    """

    sent: float
    first: float
    wanted: float | None

    @property
    def ms(self) -> float:
        """Click-to-readout: to the awaited change if it came, else to the first PATCH-DOC."""
        return ((self.wanted if self.wanted is not None else self.first) - self.sent) * 1000


async def act(
    session: RawSession, send: Any, wanted: Any, timeout: float, quiet_for: float = 0.2, settle_first: bool = True
) -> Response:
    """Send one action and time the server's answer.

    First waits until the session has been quiet for ``quiet_for`` s (so that nothing left over
    from the previous action is taken for this one's answer; skipped if ``settle_first`` is false),
    then sends, waits for the first
    server PATCH-DOC and the OK, and waits until the session is quiet again (the whole answer has
    arrived) to see whether a PATCH-DOC satisfying ``wanted`` was among them.

    Parameters
    ----------
    session : RawSession
        The session.
    send : callable
        A no-argument coroutine function that sends the message and returns ``(sent, ok)``.
    wanted : callable
        The change that counts as the readout (see ``bokeh_client.changed``).
    timeout : float
        Seconds allowed for each wait.
    quiet_for : float
        Seconds of silence that mark the end of an answer.
    settle_first : bool
        Whether to wait for silence before sending (False for a click that follows an edit at once).

    Returns
    -------
    Response
        The times.
    """
    if settle_first:
        await session.quiet(quiet_for, timeout)
    first = session.expect(any_patch)
    target = session.expect(wanted)
    try:
        sent, ok = await send()
        first_message = await asyncio.wait_for(first, timeout)
        reply = await asyncio.wait_for(ok, timeout)
        if reply.msgtype != "OK":
            raise ProtocolFailure(f"server answered {reply.msgtype}: {reply.content}")
        if not target.done():
            await session.quiet(quiet_for, timeout)
        hit = target.result() if target.done() and not target.cancelled() and target.exception() is None else None
    finally:
        for future in (first, target):
            if not future.done():
                future.cancel()
    return Response(sent, first_message.received, hit.received if hit is not None else None)


@dataclass(frozen=True)
class Plan:
    """How every student of one load behaves.

    Attributes
    ----------
    base_url : str
        ``http://127.0.0.1:<port>``.
    seed : int
        Seeds the start jitter and each student's think times.
    timeout : float
        Seconds allowed for each response once the page is open.
    open_timeout : float
        Seconds allowed for each step of opening the page (requests queue behind page builds).
    think : tuple of float
        Think time before each action is uniform between these, in seconds.
    play : tuple of float
        How long the simulated Play runs before Pause, uniform between these, in seconds.
    """

    base_url: str
    seed: int
    timeout: float
    open_timeout: float
    think: tuple[float, float] = (0.5, 3.0)
    play: tuple[float, float] = (1.0, 2.0)


async def student(index: int, plan: Plan, client: Any, start_delay: float, t0: float) -> Outcome:
    """One student: open the lesson, then do the growth exercise with think time.

    Parameters
    ----------
    index : int
        The session number (also seeds its think times).
    plan : Plan
        Server, seed, timeouts and timings.
    client : tornado.httpclient.AsyncHTTPClient
        Shared HTTP client for the page requests.
    start_delay : float
        Seconds to wait before opening the page (the ramp).
    t0 : float
        ``time.perf_counter()`` when the load started.

    Returns
    -------
    Outcome
        Its timings and checks; ``error`` says where it stopped if it did.
    """
    rng = random.Random(plan.seed * 1_000_003 + index)
    outcome = Outcome(index)
    session = RawSession(plan.base_url, LESSON_PATH, client)
    timeout = plan.timeout

    def think() -> Any:
        return asyncio.sleep(rng.uniform(*plan.think))

    def record(action: str, response: Response) -> None:
        outcome.samples.append(Sample(index, action, response.sent - t0, response.ms, response.wanted is not None))

    await asyncio.sleep(start_delay)
    stage = "open"
    try:
        await session.open(plan.open_timeout)
        ids = await usable(session, plan.open_timeout)
        outcome.opened_at = session.timings["usable"] - t0
        outcome.open_ms = (session.timings["usable"] - session.timings["start"]) * 1000
        readout = changed(ids.readout, "text")

        stage = "reset"
        await think()
        record(stage, await act(session, lambda: session.command(ids.state, "reset", None), readout, timeout))

        for stage, input_id, value in (("lambda", ids.arrival, "4"), ("mu", ids.service, "3")):
            await think()
            edit = partial(session.set_value, input_id, "value", value)
            record(stage, await act(session, edit, readout, timeout))

        stage = "lock"
        await think()
        enabled = changed(ids.play, "disabled", lambda new: new is False)
        lock = partial(session.send_msg, ids.card, {"action": "lock", "text": "1"})
        record(stage, await act(session, lock, enabled, timeout))

        for stage in ("step 1", "step 2"):
            await think()
            record(stage, await act(session, lambda: session.command(ids.state, "step", None), readout, timeout))
        text = str(session.latest(ids.readout, "text"))
        outcome.readout_ok = "t = 2.00 s" in text and "backlog = 6.00" in text

        stage = "pause"
        await think()
        wait = rng.uniform(*plan.play)  # Play: the browser plays back on its own, sending nothing
        await asyncio.sleep(wait)
        t = round(2.0 + wait, 3)
        shows_t = changed(ids.readout, "text", lambda new: f"t = {t:.2f} s" in str(new))
        record(stage, await act(session, lambda: session.command(ids.state, "pause", t), shows_t, timeout))
        outcome.feedback_ok = any(feedback_said_correct(message.events) for message in session.patches)
    except (TimeoutError, ProtocolFailure, OSError) as error:
        outcome.error = f"{stage}: {type(error).__name__}: {error}"[:300]
    except Exception as error:  # noqa: BLE001 - one broken session must not stop the others
        outcome.error = f"{stage}: {type(error).__name__}: {error}"[:300]
    finally:
        await session.close()
    outcome.connected = "ack" in session.timings
    outcome.stages = stage_ms(session.timings)
    if not outcome.error and session.failure is not None:
        outcome.error = f"connection: {session.failure}"
    return outcome


def stage_ms(timings: dict[str, float]) -> dict[str, float]:
    """How long each step of opening took, in ms, from ``RawSession.timings`` (steps reached only)."""
    stages = {}
    previous = timings.get("start")
    for key, _name in STAGES:
        if key not in timings or previous is None:
            break
        stages[key] = (timings[key] - previous) * 1000
        previous = timings[key]
    return stages


async def run_load(
    plan: Plan, sessions: int, ramp: float, deadline: float, watch: ClassWatch | None = None
) -> tuple[list[Outcome], float]:
    """Run every student concurrently, all within ``deadline`` seconds.

    Parameters
    ----------
    plan : Plan
        Server, seed, timeouts and timings.
    sessions : int
        How many students.
    ramp : float
        Starts are spread evenly (with a seeded jitter) over this many seconds.
    deadline : float
        Seconds allowed for the whole load; unfinished sessions count as errors.
    watch : ClassWatch, optional
        Reads the class's vote count while the load runs.

    Returns
    -------
    outcomes : list of Outcome
        One per session.
    wall : float
        Seconds the load took.
    """
    rng = random.Random(plan.seed)
    client = http_client(max_clients=sessions)
    t0 = time.perf_counter()
    starts = [ramp * i / max(1, sessions) + rng.uniform(0, ramp / max(1, sessions)) for i in range(sessions)]
    tasks = [asyncio.ensure_future(student(i, plan, client, starts[i], t0)) for i in range(sessions)]
    if watch is not None:
        watch.start(t0)
    done, pending = await asyncio.wait(tasks, timeout=deadline)
    if watch is not None:
        await watch.stop(t0)
    for task in pending:
        task.cancel()
    outcomes = []
    for index, task in enumerate(tasks):
        if task in done and not task.cancelled() and task.exception() is None:
            outcomes.append(task.result())
        else:
            reason = "did not finish before the deadline" if task in pending else repr(task.exception())
            outcomes.append(Outcome(index, error=reason))
    if pending:
        await asyncio.wait(pending, timeout=15)
    client.close()
    return outcomes, time.perf_counter() - t0


# -- targets and scenarios ------------------------------------------------------------------------


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


def deadline(args: argparse.Namespace, scenario: Scenario) -> float:
    """Seconds allowed for a whole load: ``--deadline``, else the ramp plus 150 s (at least 270 s)."""
    return args.deadline if args.deadline is not None else max(270.0, scenario.ramp + 150.0)


def warm_up(target: Target, args: argparse.Namespace) -> None:
    """Run one quick student per app process, one after the other, before the class (not counted).

    Imports and first-use caches are then not charged to the class; behind nginx (``least_conn``,
    ties taken in turn) the students land on every process in turn.
    """
    for extra in range(max(1, len(target.processes))):
        warm = Plan(
            target.base_url, args.seed + 1 + extra, args.timeout, args.open_timeout, think=(0.1, 0.2), play=(0.2, 0.3)
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


def run_scenario(target: Target, scenario: Scenario, args: argparse.Namespace) -> Run:
    """Run one scenario against one target, with the processes' figures before and after.

    Parameters
    ----------
    target : Target
        Where.
    scenario : Scenario
        How many students over how long.
    args : argparse.Namespace
        Seed and timeouts.

    Returns
    -------
    Run
        Everything the report needs.
    """
    notes = settle(target, args.idle_timeout)
    logged = len(target.problems()) if target.problems else 0
    before = snapshot_all(target.processes, reset_timer=True)
    client_before = time.process_time()
    machine_before = machine_busy_seconds()
    plan = Plan(target.base_url, args.seed, args.timeout, args.open_timeout)
    watch = ClassWatch(target.base_url)
    outcomes, wall = asyncio.run(run_load(plan, scenario.sessions, scenario.ramp, deadline(args, scenario), watch))
    locked_at = [s.sent + s.ms / 1000 for o in outcomes for s in o.samples if s.action == "lock"]
    class_report(watch.lag(locked_at))
    client_cpu = time.process_time() - client_before
    machine_cpu = machine_busy_seconds() - machine_before
    after = snapshot_all(target.processes)
    return Run(
        target=target.name,
        base_url=target.base_url,
        scenario=scenario,
        seed=args.seed,
        outcomes=outcomes,
        wall=wall,
        client_cpu=client_cpu,
        machine_cpu=machine_cpu,
        labels=[process.label for process in target.processes],
        before=before,
        after=after,
        problems=target.problems()[logged:] if target.problems else None,
        notes=notes,
        speed=getattr(args, "speed", None),
    )


def class_report(lag: dict[str, Any]) -> None:
    """Print how many votes the class database counted and how far behind the locks it was."""
    if lag.get("problem") and "delays" not in lag:
        print(f"class database: not read ({lag['problem']})")
        return
    delays = lag["delays"]
    p95 = delays[min(len(delays) - 1, int(0.95 * len(delays)))] if delays else float("nan")
    worst = delays[-1] if delays else float("nan")
    print(
        f"class database: {lag['votes']} votes for {lag['locks']} locks answered; counted {p95:.2f} s (p95), "
        f"{worst:.2f} s (max) after the lock; the instructor's view adds at most its 1 s refresh"
        + (f" ({lag['problem']})" if lag["problem"] else "")
    )


def run_target(target: Target, scenarios: list[Scenario], args: argparse.Namespace) -> list[Run]:
    """Warm the target up, then run each scenario in turn, printing each run's report as it ends."""
    warm_up(target, args)
    runs = []
    for scenario in scenarios:
        run = run_scenario(target, scenario, args)
        if not runs and target.notes:
            run.notes[:0] = target.notes
        report(run, run.scenario.click_p95_ms or BUDGET_MS)
        print()
        runs.append(run)
    return runs


def run_single(scenarios: list[Scenario], args: argparse.Namespace, gc_policy: str = "frozen") -> list[Run]:
    """Start one ``python -m app`` with the task timer, run the scenarios against it, stop it.

    ``gc_policy`` ``panel`` starts it with ``OVERLAP_GC=panel`` (Panel's and CPython's own garbage
    collection, without app.collector), to compare the two in one run.
    """
    env = {**TIMER_ENV, **({"OVERLAP_GC": "panel"} if gc_policy == "panel" else {})}
    with AppServer(env=env, ready_path="/healthz") as server:
        name = "single" if gc_policy == "frozen" else "single, gc panel"
        target = Target(name, server.base_url, [AppProcess(f"{server.base_url}/healthz")], server.problems)
        return run_target(target, scenarios, args)


def cluster_target(args: argparse.Namespace) -> Target:
    """The ``--url`` server and the app processes found behind it (see :func:`app_health.discover`)."""
    url = check_loopback(args.url)
    health = [item.strip() for item in args.app_health.split(",") if item.strip()] if args.app_health else None
    if health is None and urlsplit(url).port in CLUSTER_PORTS:
        health = [f"{url}/healthz"]  # --url is one of the cluster's app processes itself
    processes, notes = discover(url, health)
    if not processes:
        notes.append("no app process answered /healthz: no CPU, build or task figures")
    return Target("cluster" if len(processes) > 1 else "server", url, processes, None, notes)


def parse_args() -> tuple[argparse.Namespace, list[Scenario]]:
    """Read the command line; return it and the scenarios to run, in order."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, help="students (default 100)")
    parser.add_argument("--ramp", type=float, help="seconds over which students arrive (default 10)")
    parser.add_argument(
        "--scenario", choices=("lecture", "burst", "both"), help="a preset instead of --sessions/--ramp"
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
    parser.add_argument("--seed", type=int, default=1, help="seed for start jitter and think times")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds allowed for each click's response")
    parser.add_argument("--open-timeout", type=float, default=240.0, help="seconds allowed for each page-open step")
    parser.add_argument("--deadline", type=float, help="seconds allowed for a whole load (default ramp + 150, ≥ 270)")
    parser.add_argument("--idle-timeout", type=float, default=60.0, help="seconds to wait for sessions to close")
    args = parser.parse_args()
    if args.scenario and (args.sessions is not None or args.ramp is not None):
        parser.error("--scenario and --sessions/--ramp exclude each other")
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
    text = f"{sessions} students arriving over {ramp:g} s"
    return args, [Scenario("custom", sessions, ramp, text, click_p95_ms=BUDGET_MS)]


def main() -> None:
    """Run the scenarios against each target in turn, print each run, then the targets side by side."""
    started = time.perf_counter()
    args, scenarios = parse_args()
    speed = measure()  # before any load: the machine's own speed, not the app's
    print(speed.text())
    scenarios = [scenario.scaled(speed.slowdown) for scenario in scenarios]
    args.speed = speed
    columns: list[list[Run]] = []
    if args.url:
        columns.append(run_target(cluster_target(args), scenarios, args))
    if not args.url or args.compare_single:
        columns.append(run_single(scenarios, args))
    if args.compare_gc:
        columns.append(run_single(scenarios, args, gc_policy="panel"))
    for index in range(len(scenarios)):
        compare([runs[index] for runs in columns])
    print(f"total run time: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
