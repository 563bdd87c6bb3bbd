"""One student, one vote: a session's id fixed once sent, writes limited, the store bounded, sane predictions only.

Real SQLite and a real PostgreSQL server (``url`` runs each test on both); the lesson's real
exercise runner and the class share, headless (database work runs at once).
"""

from __future__ import annotations

import time
import uuid

import pytest
import sqlalchemy as sa

from app.classroom import limits
from app.classroom import store as store_module
from app.classroom.store import ClassStore, Round, RoundFull
from app.classroom.student import TOO_MANY, ClassShare
from app.course.content import load_lessons
from app.course.exercise import ExerciseRunner, ExerciseSession
from app.course.exercise_range import prediction_range
from app.course.progress import ProgressStore
from labs.queue.view import QueueLab
from labs.timed import format_number

LESSON = next(lesson for lesson in load_lessons() if lesson.slug == "overlap")
EXERCISE = LESSON.exercise("growth")
KEY = f"{LESSON.slug}/{EXERCISE.id}"


@pytest.fixture
def store(url):
    opened = ClassStore(url)
    yield opened
    opened.dispose()


@pytest.fixture(autouse=True)
def fresh_address_limit(monkeypatch):
    monkeypatch.setattr(
        "app.classroom.student.ADDRESS_LIMIT",
        limits.WriteLimiter(limits.ADDRESS_WRITES, window_s=limits.ADDRESS_WINDOW_S),
    )


def session(store: ClassStore, writes: limits.WriteLimiter | None = None) -> tuple[ClassShare, ExerciseRunner]:
    """One lesson session's class share and exercise (the id not yet sent by the page)."""
    share = ClassShare(store, writes=writes)
    runner = ExerciseRunner(
        lab=QueueLab(),
        session=ExerciseSession(),
        progress=ProgressStore(),
        exercise=EXERCISE,
        lesson_slug=LESSON.slug,
        classroom=share,
    )
    return share, runner


def lock(runner: ExerciseRunner, text: str) -> None:
    runner.card.receive({"action": "lock", "text": text})


def test_a_thousand_locks_from_one_session_with_changing_ids_are_one_vote(store, monkeypatch):
    """The review's script: Start once, then a fresh id and a lock, a thousand times; every lock reaches the store."""
    monkeypatch.setattr("app.classroom.student.ADDRESS_LIMIT", limits.WriteLimiter(per_second=10**6))
    share, runner = session(store, writes=limits.WriteLimiter(per_second=10**6, keys=1))
    first = uuid.uuid4().hex
    share.student = first
    runner.card.receive({"action": "start"})
    inserts: list[str] = []
    sa.event.listen(
        store.engine, "before_cursor_execute", lambda *a: inserts.append(a[2]) if "INSERT" in a[2] else None
    )
    for n in range(1000):
        share.student = uuid.uuid4().hex  # as a page script would set ProgressStore.student
        lock(runner, str(1 + n % 3))
    assert len(inserts) == 1000  # no lock was cut off: the one vote is the id's doing, not the write limit's
    (only,) = store.rounds_of(KEY)
    assert only.predictions == (1.0,)
    with store.engine.connect() as db:
        assert db.execute(sa.text("SELECT student FROM votes")).scalars().all() == [first]
    assert "You already shared a prediction in round 1 (1 work unit per second); it stays" in runner.card.class_html


def test_the_write_limit_is_per_session_whatever_the_id(store):
    share, runner = session(store)  # the default limit: a few writes a second for this session
    share.student = uuid.uuid4().hex
    notes = set()
    for n in range(50):
        share.student = uuid.uuid4().hex
        lock(runner, str(1 + n % 3))
        notes.add(runner.class_note)
    assert TOO_MANY in notes
    assert store.rounds_of(KEY)[0].predictions == (1.0,)


def test_the_sessions_of_one_address_share_a_limit(store, monkeypatch):
    monkeypatch.setattr("app.classroom.student.ADDRESS_LIMIT", limits.WriteLimiter(per_second=5, window_s=60))
    notes = []
    for _ in range(6):  # six tabs from one address (headless: the same "unknown" address)
        share, runner = session(store)
        share.student = uuid.uuid4().hex
        lock(runner, "1")
        notes.append(runner.class_note)
    assert notes[:5] == ["Shared anonymously with the instructor (round 1)."] * 5
    assert notes[5] == TOO_MANY
    assert len(store.rounds_of(KEY)[0].predictions) == 5


def test_an_id_sent_before_the_page_was_ready_is_the_one_kept(store):
    share, runner = session(store)
    lock(runner, "1")
    assert "as soon as the page is ready" in runner.class_note
    share.student = "not an id"  # refused: still waiting
    assert "as soon as the page is ready" in runner.class_note
    mine = uuid.uuid4().hex
    share.student = mine
    assert runner.class_note == "Shared anonymously with the instructor (round 1)."
    share.student = uuid.uuid4().hex
    runner.card.receive({"action": "start"})
    lock(runner, "2")
    assert "You already shared a prediction in round 1" in runner.class_note
    assert store.own_vote(KEY, 1, mine) == (1.0, None)


def test_a_full_round_refuses_the_next_vote_with_a_message(store, monkeypatch):
    monkeypatch.setattr(store_module, "MAX_VOTES_PER_ROUND", 3)
    for n in range(3):
        assert store.lock(KEY, f"{n:032x}", 1.0) == (Round(1, False), True)
    with pytest.raises(RoundFull):
        store.lock(KEY, f"{9:032x}", 1.0)
    share, runner = session(store)
    share.student = uuid.uuid4().hex
    lock(runner, "1")
    assert runner.class_note == "Not shared: round 1 already holds 3 predictions, as many as it keeps."
    store.new_round(KEY)
    assert store.lock(KEY, f"{9:032x}", 1.0) == (Round(2, False), True)  # a new round has room again


def test_old_rounds_are_pruned_and_recent_ones_kept(store):
    store.lock(KEY, "a" * 32, 1.0)
    store.new_round(KEY)
    store.lock(KEY, "a" * 32, 2.0)
    assert store.prune(keep_days=1) == 0  # all of it from today
    assert [r.predictions for r in store.rounds_of(KEY)] == [(1.0,), (2.0,)]
    assert store.prune(keep_days=1, now=time.time() + 2 * 86_400) == 2
    assert [(r.round, r.predictions) for r in store.rounds_of(KEY)] == [(Round(1, False), ())]


def test_the_instructor_reads_only_the_rounds_shown(store):
    for number in range(1, 5):
        store.lock(KEY, "a" * 32, float(number))
        store.new_round(KEY)
    statements: list[str] = []
    sa.event.listen(store.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    last = store.rounds_of(KEY, last=2)
    assert [(r.round.number, r.predictions) for r in last] == [(4, (4.0,)), (5, ())]
    assert len(statements) == 2
    assert [r.round.number for r in store.rounds_of(KEY)] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("text", ["1.7e308", "-1.7e308", "1e12", "-5e6"])
def test_a_prediction_far_outside_the_exercise_is_refused_at_the_lock(store, text):
    share, runner = session(store)
    share.student = uuid.uuid4().hex
    lock(runner, text)
    low, high = prediction_range(EXERCISE)
    assert runner.prediction is None and not runner.card.locked
    assert runner.notice.startswith("Your prediction: ") and "is far outside what this exercise can give" in (
        runner.notice
    )
    assert f"type a number from {format_number(low)} to {format_number(high)} work units per second." in runner.notice
    assert 'role="alert"' in runner.card.steps_html and "far outside" in runner.card.steps_html
    assert store.rounds_of(KEY)[0].predictions == ()
    lock(runner, "1")  # a sane one locks as before
    assert runner.prediction == 1.0 and store.rounds_of(KEY)[0].predictions == (1.0,)
