"""100 students in one minute: click-to-readout latency of the guided exercise under load.

Starts the app (``python -m app``) on a free loopback port, then opens ``--sessions`` concurrent
sessions of ``/lesson?id=overlap&exercise=growth`` from this one asyncio process over the raw
Bokeh websocket protocol (``bench/bokeh_client.py``: a browser's wire traffic without a browser;
``bokeh.client`` would cost about 325 ms of client CPU per session). Session starts are spread
over ``--ramp`` seconds. Each session then does the "A backlog that keeps growing" exercise as a
student would, with a seeded random think time of 0.5-3 s before every action:

======  ==========================================  ==========================================
action  what the page sends                         awaited change (in a server PATCH-DOC)
======  ==========================================  ==========================================
reset   ``PlaybackState.command`` = {reset}         the readout Div's ``text``
lambda  λ TextInput ``value`` = "4"                 the readout Div's ``text``
mu      μ TextInput ``value`` = "3"                 the readout Div's ``text``
lock    prediction ``value`` = "1", then a          the Play button's ``disabled`` → false
        ``button_click`` on Lock prediction         (timed from the click)
step    command = {step} (twice)                    the readout Div's ``text``
pause   command = {pause, t = 2 + w}                the readout Div's ``text`` showing that t
======  ==========================================  ==========================================

Play itself sends nothing (the browser plays back alone), so a Play is simulated as a wait ``w``
of 1-2 s followed by the Pause command carrying the browser's t.

Click-to-readout latency runs from just before the first frame of the action's message is written
to the arrival of the last frame of the server PATCH-DOC carrying the awaited change, both on this
process's clock. Some actions do not change the readout text at all: Reset on a fresh lab (it
already shows t = 0 with the defaults), and λ/μ edits at t = 0 when the lab hides the net rate
during an exercise. For those the latency runs to the first PATCH-DOC the server sends after the
action (the step list, the plot), which is what the student then sees change; the report says for
each action how many samples were timed which way. Before each action the session waits until
nothing has arrived for 0.2 s, so that no answer to the previous action is taken for this one's.
The prediction's own value edit has no visible answer (only the server's OK); it is reported apart
and not counted in the budget figure.

Correctness: after the second Step every readout must say ``t = 2.00 s`` and ``backlog = 6.00``
(q0 = 4, λ − μ = 1), and the feedback must start with "Correct".

Usage: ``.venv/bin/python bench/class_load.py [--sessions 100] [--ramp 10] [--seed 1]``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from bokeh_client import (
    LESSON_PATH,
    AppServer,
    DocIndex,
    ProtocolFailure,
    RawSession,
    any_patch,
    changed,
    http_client,
    machine_busy_seconds,
)

BUDGET_MS = 100.0
EXERCISE_TITLE = "A backlog that keeps growing"
ARRIVAL = "Arrival rate λ (units/s)"
SERVICE = "Service rate μ (units/s)"
PREDICTION = "Your prediction (work units per second)"
ACTION_ORDER = ("reset", "lambda", "mu", "lock", "step 1", "step 2", "pause")


@dataclass
class Sample:
    """One timed action.

    Attributes
    ----------
    session : int
        Which session sent it.
    action : str
        One of :data:`ACTION_ORDER`, or ``"predict (OK)"``.
    sent : float
        When it was sent, in seconds since the load started.
    ms : float
        Latency to the awaited response, in milliseconds.
    changed : bool
        Whether the awaited change (readout text; Play enabled for the lock) came, rather than
        only some other PATCH-DOC.
    """

    session: int
    action: str
    sent: float
    ms: float
    changed: bool


@dataclass
class Outcome:
    """What one session did.

    Attributes
    ----------
    index : int
        The session number.
    open_ms : float or None
        Page request + websocket + ACK + PULL-DOC, in ms; None if it failed.
    opened_at : float or None
        When the session finished opening, seconds since the load started.
    samples : list of Sample
        Its timed actions.
    error : str
        Why it stopped early; empty if it finished.
    readout_ok : bool or None
        Whether the readout after the two Steps showed t = 2.00 s and backlog = 6.00.
    feedback_ok : bool or None
        Whether the feedback said "Correct".
    """

    index: int
    open_ms: float | None = None
    opened_at: float | None = None
    samples: list[Sample] = field(default_factory=list)
    error: str = ""
    readout_ok: bool | None = None
    feedback_ok: bool | None = None


@dataclass
class LessonIds:
    """The ids of the models one growth-exercise session touches."""

    state: str
    readout: str
    arrival: str
    service: str
    prediction: str
    lock: str
    play: str

    @classmethod
    def find(cls, doc: DocIndex) -> LessonIds:
        """Find the models in a pulled lesson document.

        Parameters
        ----------
        doc : DocIndex
            The session's document.

        Returns
        -------
        LessonIds
            The PlaybackState, the readout ``Div`` (its text has ``role="status"`` and ``backlog =``),
            the λ and μ inputs by title, and the prediction input and Lock button inside the
            region "Exercise: A backlog that keeps growing" (another exercise on the page has an
            input with the same title).
        """
        region = doc.one(label=f"Exercise: {EXERCISE_TITLE}")
        inside = doc.descendants(region.id)
        readouts = [
            m
            for m in doc.find("Div")
            if 'role="status"' in m.attributes.get("text", "") and "backlog =" in m.attributes.get("text", "")
        ]
        if len(readouts) != 1:
            raise ProtocolFailure(f"expected one queue readout Div, found {len(readouts)}")
        return cls(
            state=doc.one("PlaybackState").id,
            readout=readouts[0].id,
            arrival=doc.one("TextInput", title=ARRIVAL).id,
            service=doc.one("TextInput", title=SERVICE).id,
            prediction=doc.one("TextInput", within=inside, title=PREDICTION).id,
            lock=doc.one("Button", within=inside, label="Lock prediction").id,
            play=doc.one("Button", label="Play").id,
        )


def feedback_said_correct(events: list[dict[str, Any]]) -> bool:
    """A predicate: some HTML ``text`` in the PATCH-DOC is the exercise feedback saying Correct."""
    for event in events:
        new = event.get("new")
        if event.get("attr") == "text" and isinstance(new, str) and "feedback correct" in new:
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
        opened = time.perf_counter()
        doc = await session.open(plan.open_timeout)
        outcome.opened_at = time.perf_counter() - t0
        outcome.open_ms = (time.perf_counter() - opened) * 1000
        ids = LessonIds.find(doc)
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
        sent, ok = await session.set_value(ids.prediction, "value", "1")
        reply = await asyncio.wait_for(ok, timeout)
        outcome.samples.append(Sample(index, "predict (OK)", sent - t0, (reply.received - sent) * 1000, False))
        enabled = changed(ids.play, "disabled", lambda new: new is False)
        record(stage, await act(session, lambda: session.click(ids.lock), enabled, timeout, settle_first=False))

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
    if not outcome.error and session.failure is not None:
        outcome.error = f"connection: {session.failure}"
    return outcome


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile by the nearest-rank method (NaN for no values).

    Parameters
    ----------
    values : list of float
        The sample.
    q : float
        Between 0 and 100.

    Returns
    -------
    float
        The smallest value with at least q % of the sample at or below it.
    """
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil(n q / 100)
    return ordered[int(rank) - 1]


def summary(values: list[float]) -> str:
    """``n``, p50, p95 and max of latencies in ms, as one aligned row."""
    return (
        f"{len(values):>6}{percentile(values, 50):>9.1f}{percentile(values, 95):>9.1f}"
        f"{(max(values) if values else float('nan')):>9.1f}"
    )


async def run_load(plan: Plan, sessions: int, ramp: float, deadline: float) -> tuple[list[Outcome], float]:
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
    done, pending = await asyncio.wait(tasks, timeout=deadline)
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


def report(
    outcomes: list[Outcome], wall: float, cpu: tuple[float, float, float], args: Any, problems: list[str]
) -> None:
    """Print the figures (see the module docstring for what each latency measures).

    Parameters
    ----------
    outcomes : list of Outcome
        One per session.
    wall : float
        Seconds the load took.
    cpu : tuple of float
        CPU seconds used during the load by the server, by this client, and by every other process.
    args : argparse.Namespace
        The command-line arguments.
    problems : list of str
        Problem lines from the server's output.
    """
    server_cpu, client_cpu, other_cpu = cpu
    samples = [s for o in outcomes for s in o.samples]
    budgeted = [s for s in samples if s.action in ACTION_ORDER]
    latencies = [s.ms for s in budgeted]
    errors = [o for o in outcomes if o.error]
    opened = [o.open_ms for o in outcomes if o.open_ms is not None]
    last_open = max((o.opened_at for o in outcomes if o.opened_at is not None), default=0.0)
    p95 = percentile(latencies, 95)
    print(
        f"class load: {args.sessions} sessions of {LESSON_PATH}, starts spread over {args.ramp:g} s, "
        f"think time 0.5-3 s, seed {args.seed}"
    )
    print(f"sessions: {len(outcomes)}, finished the exercise: {len(outcomes) - len(errors)}, errors: {len(errors)}")
    print(
        f"actions timed: {len(latencies)} clicks/edits (+{len(samples) - len(budgeted)} prediction edits, "
        "OK reply only, not in the budget figure)"
    )
    print(
        f"click-to-readout latency, all actions (ms): p50 {percentile(latencies, 50):.1f}  p95 {p95:.1f}  "
        f"max {(max(latencies) if latencies else float('nan')):.1f}"
    )
    print(f"{'by action':<26}{'n':>6}{'p50':>9}{'p95':>9}{'max':>9}  timed to")
    for action in (*ACTION_ORDER, "predict (OK)"):
        mine = [s for s in samples if s.action == action]
        hits = sum(s.changed for s in mine)
        if action == "predict (OK)":
            to = "the OK reply"
        else:
            wanted = "Play enabled" if action == "lock" else "readout change"
            to = f"{wanted} {hits}/{len(mine)}, first PATCH-DOC {len(mine) - hits}/{len(mine)}"
        print(f"  {action:<24}{summary([s.ms for s in mine])}  {to}")
    during = [s.ms for s in budgeted if s.sent <= last_open]
    after = [s.ms for s in budgeted if s.sent > last_open]
    print(f"  {'sent while pages opening':<24}{summary(during)}")
    print(f"  {'sent after all opened':<24}{summary(after)}")
    print(f"  {'page open (GET+ws+pull)':<24}{summary(opened)}")
    print(f"{'by 10 s window of sending':<26}{'n':>6}{'p50':>9}{'p95':>9}{'max':>9}{'pages opened':>14}")
    for start in range(0, int(max((s.sent for s in budgeted), default=0)) + 1, 10):
        window = [s.ms for s in budgeted if start <= s.sent < start + 10]
        pages = sum(1 for o in outcomes if o.opened_at is not None and start <= o.opened_at < start + 10)
        print(f"  {f'{start}-{start + 10} s':<24}{summary(window)}{pages:>14}")
    slowest = sorted(budgeted, key=lambda s: s.ms, reverse=True)[:5]
    print(
        "slowest: " + "; ".join(f"{s.ms:.0f} ms {s.action} (session {s.session}, at {s.sent:.1f} s)" for s in slowest)
    )
    finished = [o for o in outcomes if o.readout_ok is not None]
    bad_readout = sum(1 for o in finished if not o.readout_ok)
    bad_feedback = sum(1 for o in finished if not o.feedback_ok)
    print(
        f"correctness after two Steps: readout t = 2.00 s and backlog = 6.00 in "
        f"{len(finished) - bad_readout}/{len(finished)} sessions ({bad_readout} failures); "
        f"feedback 'Correct' in {len(finished) - bad_feedback}/{len(finished)}"
    )
    print(
        f"server CPU: {server_cpu:.2f} s over {wall:.1f} s of load ({100 * server_cpu / wall:.0f}% of one core); "
        f"client CPU: {client_cpu:.2f} s ({100 * client_cpu / wall:.0f}%); other processes on the machine: "
        f"{max(0.0, other_cpu):.2f} s ({100 * max(0.0, other_cpu) / wall:.0f}%); {os.cpu_count()} cores"
    )
    for outcome in errors[:10]:
        print(f"  error, session {outcome.index}: {outcome.error}")
    if len(errors) > 10:
        print(f"  ... and {len(errors) - 10} more errors")
    print(f"server log: {len(problems)} traceback/error/warning lines")
    for line in problems[:10]:
        print(f"  {line[:300]}")
    verdict = "PASS" if latencies and p95 <= BUDGET_MS and not errors and not bad_readout else "FAIL"
    print(
        f"budget: p95 click-to-readout ≤ {BUDGET_MS:.0f} ms: {verdict} (p95 = {p95:.1f} ms, "
        f"{len(errors)} errors, {bad_readout} wrong readouts)"
    )


def main() -> None:
    """Parse arguments, start the server, run the class and print the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100, help="concurrent students (default 100)")
    parser.add_argument("--ramp", type=float, default=10.0, help="seconds over which sessions start (default 10)")
    parser.add_argument("--seed", type=int, default=1, help="seed for start jitter and think times")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds allowed for each click's response")
    parser.add_argument("--open-timeout", type=float, default=240.0, help="seconds allowed for each page-open step")
    parser.add_argument("--deadline", type=float, default=270.0, help="seconds allowed for the whole load")
    args = parser.parse_args()
    if not 1 <= args.sessions <= 1000:
        parser.error("--sessions must be between 1 and 1000")
    started = time.perf_counter()
    with AppServer() as server:
        # One quick student first, so that imports and first-use caches are not charged to the class.
        warm = Plan(server.base_url, args.seed + 1, args.timeout, args.open_timeout, think=(0.1, 0.2), play=(0.2, 0.3))
        warm_outcomes, _ = asyncio.run(run_load(warm, 1, 0.0, 60.0))
        if warm_outcomes[0].error:
            raise SystemExit(f"warm-up session failed: {warm_outcomes[0].error}")
        plan = Plan(server.base_url, args.seed, args.timeout, args.open_timeout)
        cpu_before = server.cpu_seconds()
        client_before = time.process_time()
        machine_before = machine_busy_seconds()
        outcomes, wall = asyncio.run(run_load(plan, args.sessions, args.ramp, args.deadline))
        server_cpu = server.cpu_seconds() - cpu_before
        client_cpu = time.process_time() - client_before
        other_cpu = machine_busy_seconds() - machine_before - server_cpu - client_cpu
        problems = server.problems()
    report(outcomes, wall, (server_cpu, client_cpu, other_cpu), args, problems)
    print(f"total run time: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
