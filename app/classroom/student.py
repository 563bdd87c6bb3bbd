"""A student's side of the class: share a locked prediction anonymously, and after a reveal see the class.

One :class:`ClassShare` per lesson session. Database work runs in a worker thread (a slow or locked
database must not hold the event loop that serves everyone) and its result comes back under the
session's document lock. Nothing about the class is read for a student before the instructor
reveals the round: counts and the answer are never sent to a student session earlier.
"""

from __future__ import annotations

import asyncio
import html
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

import panel as pn
import param
from panel.io.state import set_curdoc

from app.classroom import STUDENT_ID
from app.classroom.class_result import class_result_text
from app.classroom.limits import ADDRESS_WINDOW_S, ADDRESS_WRITES, WRITES_PER_SECOND, WriteLimiter
from app.classroom.signin import client_address
from app.classroom.store import ClassStore, Round, RoundFull, RoundVotes, StoreUnavailable
from app.course.content import Exercise
from app.course.exercise_words import amount_html
from app.web.background import in_worker_thread

POLL_MS = 2000
"""How often the process-wide RoundWatch reads the rounds its students shared in."""

SHARED_NOTICE = "Your locked prediction is shared anonymously with the instructor (no name, no account)."

ADDRESS_LIMIT = WriteLimiter(per_second=ADDRESS_WRITES, window_s=ADDRESS_WINDOW_S)
"""This process's predictions per client address (every session from one address together)."""

TOO_MANY = "Not shared: too many predictions at once. Try again in a moment."


class RecentReads:
    """Answers read from the database in the last ``fresh_s`` seconds, shared by every session of a process.

    A lecture hall's pages all ask every 2 s whether their round was revealed; with this, the
    database sees one such read per exercise per second per process, however many students.
    A round's predictions are read only once it is revealed, so nothing cached here is ever
    shown before the reveal.
    """

    def __init__(self, fresh_s: float = 1.0) -> None:
        self.fresh_s = fresh_s
        self._held: dict[tuple[str, str], tuple[float, Any]] = {}
        self._lock = threading.Lock()

    def read(self, key: tuple[str, str], fetch: Callable[[], Any]) -> Any:
        """The answer for ``key``, fetched again only when the one held is older than ``fresh_s``."""
        now = time.monotonic()
        with self._lock:
            held = self._held.get(key)
        if held is not None and now - held[0] < self.fresh_s:
            return held[1]
        value = fetch()  # outside the lock: a slow database holds no other session's read
        with self._lock:
            self._held[key] = (now, value)
        return value


SHARED_READS = RecentReads()


class RoundWatch:
    """One watcher per process for the rounds its students shared in: their pages hear only of a change.

    Every POLL_MS it reads (in a worker thread) the current round of each exercise some session of
    this process shared in; when a round is revealed or a new one opens, it asks just those sessions
    to look again (:meth:`ClassShare.poll`, under each session's lock). A hall of waiting pages then
    costs one read per exercise per tick, not a callback per student.
    """

    def __init__(self) -> None:
        self._subscribers: dict[int, tuple[weakref.ref, Any]] = {}
        self._seen: dict[str, Round] = {}
        self._task: asyncio.Task | None = None

    def subscribe(self, share: ClassShare, doc: Any) -> None:
        """Tell ``share`` (in the session of ``doc``) when one of its rounds changes."""
        self._subscribers[id(share)] = (weakref.ref(share), doc)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    def _live(self) -> list[tuple[ClassShare, Any]]:
        live = []
        for key, (ref, doc) in list(self._subscribers.items()):
            share = ref()
            if share is None or doc.session_context is None or not share.keys():
                del self._subscribers[key]
            else:
                live.append((share, doc))
        return live

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while self._live():
            await asyncio.sleep(POLL_MS / 1000)
            live = self._live()
            keys = sorted({key for share, _doc in live for key in share.keys()})
            if not keys:
                continue
            store = live[0][0].store
            try:
                rounds = await loop.run_in_executor(
                    None, lambda store=store, keys=keys: {key: store.current_round(key) for key in keys}
                )
            except StoreUnavailable:
                continue  # the next tick tries again; the exercises are unaffected
            changed = {key for key, current in rounds.items() if self._seen.get(key) != current}
            self._seen.update(rounds)
            for share, doc in live:
                if changed & set(share.keys()):
                    with set_curdoc(doc):
                        pn.state.execute(share.poll, schedule=True)


ROUND_WATCH = RoundWatch()


class SharingRunner(Protocol):
    """What :class:`ClassShare` needs from an exercise runner."""

    exercise: Exercise
    key: str
    class_note: str
    class_result: str
    new_round: bool


@dataclass
class Shared:
    """One exercise this session shared: in which round, and what it locked."""

    round: int
    prediction: float
    revealed: bool = False
    variant: str | None = None


class ClassShare(param.Parameterized):
    """One lesson session's link to the class database.

    Parameters
    ----------
    store : ClassStore
        This process's class database.
    background : callable, optional
        ``background(work, done)`` runs ``work()`` and then ``done(result)``; by default in a worker
        thread with ``done`` back under the session's lock (in a session), or at once (headless).
    writes : WriteLimiter, optional
        This session's own limit on predictions sent (:data:`~app.classroom.limits.WRITES_PER_SECOND`
        by default); every session of one client address also shares :data:`ADDRESS_LIMIT`.

    The session votes under the first valid id the page sends and keeps it: a page that later sends
    another (a script setting ``student``) still has one vote per exercise per round.
    """

    student = param.String(default="", doc="What the page last sent as this browser's anonymous id (32 hex digits).")
    # LTI hook (app.lti.pages): an LMS course's class is its own, its exercise keys under this prefix
    scope = param.String(
        default="", constant=True, doc="Prefix of this class's exercise keys ('' for the course's own class)."
    )

    def __init__(
        self,
        store: ClassStore,
        background: Callable[[Callable[[], Any], Callable[[Any], None]], None] | None = None,
        writes: WriteLimiter | None = None,
        **params,
    ):
        self._id = ""  # the id this session votes under: the first valid one the page sent, never changed
        super().__init__(**params)
        self.store = store
        self._background = background or in_worker_thread
        self._writes = writes or WriteLimiter(per_second=WRITES_PER_SECOND, keys=1)
        self._shared: dict[str, tuple[SharingRunner, Shared]] = {}
        self._waiting: list[tuple[SharingRunner, float, str | None]] = []
        self._student_known()  # an id given to the constructor is fixed as one the page sent

    # ----- sharing ----------------------------------------------------------------------------------

    def share(self, runner: SharingRunner, prediction: float, variant: str | None = None) -> None:
        """Share a prediction the student just locked (or say why it is not shared).

        Parameters
        ----------
        runner : SharingRunner
            The exercise it was locked in; its class note and result say what happened.
        prediction : float
            The locked prediction.
        variant : str, optional
            The variant of the exercise the student saw, stored with the vote so that the class is
            judged against its numbers (None: the exercise as written).
        """
        runner.class_result = ""
        if not self._id:
            runner.class_note = "Sharing your prediction with the instructor as soon as the page is ready…"
            self._waiting = [w for w in self._waiting if w[0] is not runner] + [(runner, prediction, variant)]
            return
        if not self._writes.allow("session") or not ADDRESS_LIMIT.allow(client_address(pn.state.curdoc)):
            runner.class_note = TOO_MANY
            return
        runner.class_note = "Sharing your prediction with the instructor…"
        key, student = self.scope + runner.key, self._id
        self._background(
            partial(self._lock, key, student, prediction, variant), partial(self._locked, runner, prediction, variant)
        )

    def _lock(
        self, key: str, student: str, prediction: float, variant: str | None
    ) -> tuple[Round, bool, tuple[float, str | None] | None] | RoundFull | str:
        try:
            current, stored = self.store.lock(key, student, prediction, variant)
            earlier = None if stored else self.store.own_vote(key, current.number, student)
            return current, stored, earlier
        except RoundFull as full:
            return full
        except StoreUnavailable as problem:
            return str(problem)

    def _locked(
        self,
        runner: SharingRunner,
        prediction: float,
        variant: str | None,
        result: tuple[Round, bool, tuple[float, str | None] | None] | RoundFull | str,
    ) -> None:
        if isinstance(result, RoundFull):
            runner.class_note = f"Not shared: {result}."
            return
        if isinstance(result, str):
            runner.class_note = (
                "Your prediction could not be shared with the instructor: the class database is not answering. "
                "The exercise goes on here as usual."
            )
            return
        current, stored, earlier = result
        if earlier is None:  # stored now (or, oddly, not found): this prediction is the one kept
            kept = Shared(current.number, prediction, variant=variant)
        else:  # the first lock of this round stays, with the variant it was made in
            kept = Shared(current.number, earlier[0], variant=earlier[1])
        self._shared[runner.key] = (runner, kept)
        if stored:
            runner.class_note = f"Shared anonymously with the instructor (round {current.number})."
        elif current.revealed:
            runner.class_note = (
                f"Not shared: the instructor has already revealed round {current.number}; wait for the next round."
            )
        else:
            amount = html.unescape(amount_html(runner.exercise, kept.prediction, exact=True))
            shown = "" if earlier is None else f" ({amount})"
            runner.class_note = (
                f"You already shared a prediction in round {current.number}{shown}; "
                "it stays, one per round. The instructor may open a new round."
            )
        self._watch_rounds()

    @param.depends("student", watch=True)
    def _student_known(self) -> None:
        """Take the page's id, once: a later one (a page script setting another) is ignored for this session."""
        if self._id or not STUDENT_ID.fullmatch(self.student or ""):
            return
        self._id = self.student
        waiting, self._waiting = self._waiting, []
        for runner, prediction, variant in waiting:
            self.share(runner, prediction, variant)

    # ----- the reveal -------------------------------------------------------------------------------

    def _watch_rounds(self) -> None:
        doc = pn.state.curdoc
        if doc is not None and doc.session_context is not None:
            ROUND_WATCH.subscribe(self, doc)

    def keys(self) -> list[str]:
        """The exercises this session shared a prediction in and still waits on (keys as stored, with the scope)."""
        return [self.scope + key for key in self._shared]

    def poll(self) -> None:
        """Ask whether any shared round was revealed (or a new round opened) and show what changed."""
        asked = {key: (shared.round, shared.revealed) for key, (_runner, shared) in self._shared.items()}
        if asked:
            self._background(partial(self._read, asked), self._show)

    def _read(self, asked: dict[str, tuple[int, bool]]) -> dict[str, tuple[Round, RoundVotes | None]] | str:
        try:
            found = {}
            for key, (number, seen) in asked.items():
                stored = self.scope + key
                current = SHARED_READS.read(("round", stored), lambda stored=stored: self.store.current_round(stored))
                revealed = current.revealed or current.number > number
                votes = None  # only a revealed round's predictions are read: nothing before the reveal
                if revealed and not seen:
                    rounds = SHARED_READS.read(("rounds", stored), lambda stored=stored: self.store.rounds_of(stored))
                    votes = next(r for r in rounds if r.round.number == number)
                found[key] = (current, votes)
            return found
        except StoreUnavailable as problem:
            return str(problem)

    def _show(self, found: dict[str, tuple[Round, RoundVotes | None]] | str) -> None:
        if isinstance(found, str):
            return  # the next poll tries again; the exercise itself is unaffected
        for key, (current, votes) in found.items():
            if key not in self._shared:
                continue
            runner, shared = self._shared[key]
            if votes is not None:
                shared.revealed = True
                runner.class_result = class_result_text(runner.exercise, votes, shared.prediction, shared.variant)
            if current.number > shared.round:
                runner.class_note = (
                    f"Round {current.number} is open: press Try again to predict again after discussing."
                )
                runner.new_round = True
                del self._shared[key]

    notice_text = SHARED_NOTICE
    """The line an exercise shows before its prediction is locked, when the class is on."""
