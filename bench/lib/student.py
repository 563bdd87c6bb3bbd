"""The simulated student of the class bench: opens the lesson and does the growth exercise, timing it.

Each student is one :class:`bench.lib.raw_session.RawSession` of :data:`LESSON_PATH`, driven from
one asyncio process; ``bench/class_load.py`` describes the exercise's actions, the think times and
what each figure measures. :func:`run_load` runs a whole class of them.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from tornado.httpclient import AsyncHTTPClient

from app.course.exercise_card import CARD_FIELDS
from bench.lib.class_records import STAGES, Outcome, Sample
from bench.lib.class_watch import ClassWatch
from bench.lib.document import DocIndex, ModelInfo
from bench.lib.events import Predicate, any_patch, changed
from bench.lib.protocol import Event, ProtocolFailure
from bench.lib.raw_session import RawSession, http_client

LESSON_PATH = "/lesson?id=overlap&exercise=growth"
"""The page a student opens: the first lesson with its growth exercise started."""

EXERCISE_TITLE = "A backlog that keeps growing"
ARRIVAL = "Arrival rate λ (units/s)"
SERVICE = "Service rate μ (units/s)"

Send = Callable[[], Awaitable[tuple[float, asyncio.Future]]]
"""A no-argument coroutine function that sends one action: ``RawSession.patch``'s ``(sent, ok)``."""


@dataclass(frozen=True)
class FieldRef:
    """Where an edit of one text field goes: a model's ``value``, or a message to the stage that draws it.

    Attributes
    ----------
    model : str
        The model id: the field's own (a Bokeh ``TextInput`` or a field component's data model), or
        the ``ReactiveESM`` of the lab's stage (``labs.ui.stage.LabStage``) that draws the field.
    index : int or None
        The field's index among the stage's fields; None where the field is a model of its own.
    """

    model: str
    index: int | None = None

    def edit(self, session: RawSession, value: str) -> Awaitable[tuple[float, asyncio.Future]]:
        """Send ``value`` as the page does on Enter (see :meth:`RawSession.patch`)."""
        if self.index is None:
            return session.set_value(self.model, "value", value)
        return session.send_msg(self.model, {"field": self.index, "value": value})


@dataclass
class LessonIds:
    """The ids of the models one growth-exercise session touches."""

    state: str
    readout: str
    arrival: FieldRef
    service: FieldRef
    text: str
    card: int
    play: str
    verdict: int | None = CARD_FIELDS.index("verdict")
    """Where a card's values hold its verdict, where the page's ``card_fields`` or this checkout's order
    say; None for a page whose cards are not in this checkout's order (a ``--before`` checkout)."""

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
            the λ and μ fields (:func:`field_ref`), the Play button, the lesson text (``app.course.lesson_text``:
            a ``ReactiveESM`` whose data model, ``LessonText<n>``, holds every card's values in
            ``CARD_FIELDS`` order) and the index of the card labelled "Exercise: A backlog that keeps
            growing" (the page has others).
        """
        texts = [m for m in doc.find() if m.name.startswith("LessonText") and _CARDS.keys() & m.attributes.keys()]
        if len(texts) != 1:
            raise ProtocolFailure(f"expected one lesson text (app.course.lesson_text), found {len(texts)}")
        label = CARD_FIELDS.index("label")
        attributes = texts[0].attributes
        every_card = [(name, attributes[name]) for name in ("cards_json", "cards") if name in attributes]
        cards = next(filter(None, map(cards_sent, every_card)), [])
        shown = [card[label] for card in cards]
        every_card_values = cards[0] if cards else []
        if shown.count(f"Exercise: {EXERCISE_TITLE}") != 1:
            raise ProtocolFailure(f"expected one exercise card for {EXERCISE_TITLE!r} in {shown}")
        components = [m for m in doc.find("ReactiveESM") if (m.attributes.get("data") or {}).get("id") == texts[0].id]
        if len(components) != 1:
            raise ProtocolFailure(f"expected one component drawing the lesson text, found {len(components)}")
        readouts = [m for m in doc.find("Div") if is_live_region(m) and "backlog =" in m.attributes.get("text", "")]
        if len(readouts) != 1:
            raise ProtocolFailure(f"expected one queue readout Div, found {len(readouts)}")
        return cls(
            state=doc.one("PlaybackState").id,
            readout=readouts[0].id,
            arrival=field_ref(doc, ARRIVAL),
            service=field_ref(doc, SERVICE),
            text=components[0].id,
            card=shown.index(f"Exercise: {EXERCISE_TITLE}"),
            play=doc.one("Button", label="Play").id,
            verdict=_verdict_index(attributes.get("card_fields"), len(every_card_values)),
        )


def _verdict_index(fields: object, width: int) -> int | None:
    """Where a card's verdict is among its values, or None where that cannot be known.

    From the page's ``card_fields`` if it sent them (Bokeh leaves out a default), else from this
    checkout's ``CARD_FIELDS`` if the cards are as wide.
    """
    if isinstance(fields, list) and "verdict" in fields:
        return fields.index("verdict")
    return CARD_FIELDS.index("verdict") if width == len(CARD_FIELDS) else None


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

    A page may send its lab after it has loaded (``app.web.shell.deferred``: the frame and text first,
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

    def complete(_events: list[Event]) -> bool:
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


def field_ref(doc: DocIndex, label: str) -> FieldRef:
    """Where an edit of the text field labelled ``label`` goes.

    The lab's stage drawing the field (``labs.ui.stage.LabStage``: its data model's ``fields_json``
    names each field), or, in an older checkout (``--before``), a Bokeh ``TextInput`` found by its
    title or the data model of a ``JSComponent`` field found by its label.

    Parameters
    ----------
    doc : DocIndex
        The session's document.
    label : str
        The field's label, e.g. "Arrival rate λ (units/s)".

    Returns
    -------
    FieldRef
        The model, and the field's index where a stage draws it.
    """
    drawn = []
    for stage in doc.find():
        try:
            states = (json.loads(stage.attributes.get("fields_json", "null")) or {}).get("fields")
        except (TypeError, ValueError, AttributeError):
            continue
        for index, state in enumerate(states if isinstance(states, list) else []):
            if isinstance(state, dict) and state.get("label") == label:
                drawn.append((stage.id, index))
    if drawn:
        if len(drawn) != 1:
            raise ProtocolFailure(f"expected one text field labelled {label!r}, found {len(drawn)}")
        data, index = drawn[0]
        components = [m for m in doc.find("ReactiveESM") if (m.attributes.get("data") or {}).get("id") == data]
        if len(components) != 1:
            raise ProtocolFailure(f"expected one component drawing the field {label!r}, found {len(components)}")
        return FieldRef(components[0].id, index)
    found = doc.find("TextInput", title=label) or doc.find(label=label)
    if len(found) != 1:
        raise ProtocolFailure(f"expected one text field labelled {label!r}, found {len(found)}")
    return FieldRef(found[0].id)


_CARDS = {
    "card_updates": lambda text: list(json.loads(text).values()),
    "cards_json": json.loads,
    "cards": lambda cards: cards,
}
"""The lesson text's properties with cards' values, and how to read each: the cards changed since the
page was built (a JSON object by index) now, every card as a JSON string or a list before (a
``--before`` checkout may be older)."""


def cards_sent(attribute: tuple[str, Any]) -> list | None:
    """The cards' values, if ``(name, value)`` is the lesson text's property holding them.

    Parameters
    ----------
    attribute : tuple
        A property's name and its value, as a document or a PATCH-DOC event gives them.

    Returns
    -------
    list or None
        One list of values per card sent (every card, or each card changed since the page was built),
        in ``CARD_FIELDS`` order; None for another property or a value that is not such a list.
    """
    name, value = attribute
    if name not in _CARDS:
        return None
    try:
        cards = _CARDS[name](value)
    except (TypeError, ValueError, AttributeError):
        return None
    return cards if isinstance(cards, list) else None


def feedback_said_correct(events: list[Event], verdict: int | None = CARD_FIELDS.index("verdict")) -> bool:
    """A predicate: the PATCH-DOC gives an exercise card of the lesson text the verdict Correct.

    Parameters
    ----------
    events : list
        A PATCH-DOC's events.
    verdict : int or None
        Where a card's values hold its verdict (:attr:`LessonIds.verdict`); None: any value of the
        card that is exactly "correct" (no other field of a card is that word).
    """
    for event in events:
        cards = cards_sent((event.get("attr"), event.get("new")))
        for card in cards or ():
            if isinstance(card, list) and (card[verdict] == "correct" if verdict is not None else "correct" in card):
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
    session: RawSession,
    send: Send,
    wanted: Predicate,
    timeout: float,
    quiet_for: float = 0.2,
    settle_first: bool = True,
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
        The change that counts as the readout (see :func:`bench.lib.events.changed`).
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


async def student(index: int, plan: Plan, client: AsyncHTTPClient, start_delay: float, t0: float) -> Outcome:
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

    def think() -> Awaitable[None]:
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
        outcome.models = len(session.doc.models) if session.doc is not None else None
        readout = changed(ids.readout, "text")

        stage = "reset"
        await think()
        record(stage, await act(session, lambda: session.command(ids.state, "reset", None), readout, timeout))

        for stage, edited, value in (("lambda", ids.arrival, "4"), ("mu", ids.service, "3")):
            await think()
            edit = partial(edited.edit, session, value)
            record(stage, await act(session, edit, readout, timeout))

        stage = "lock"
        await think()
        enabled = changed(ids.play, "disabled", lambda new: new is False)
        lock = partial(session.send_msg, ids.text, {"card": ids.card, "action": "lock", "text": "1"})
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
        outcome.feedback_ok = any(feedback_said_correct(message.events, ids.verdict) for message in session.patches)
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
