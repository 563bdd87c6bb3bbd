"""The class database on SQLite and on a real PostgreSQL server: votes, rounds, reveals, export, failures."""

from __future__ import annotations

import sqlite3
import threading
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.classroom.limits import WriteLimiter
from app.classroom.store import SCHEMA_VERSION, ClassStore, Round, StoreUnavailable, metadata

STUDENTS = [f"{n:032x}" for n in range(1, 41)]


@pytest.fixture
def store(url):
    opened = ClassStore(url)
    yield opened
    opened.dispose()


def test_one_vote_per_student_exercise_and_round(store):
    assert store.version() == SCHEMA_VERSION
    assert store.current_round("overlap/growth") == Round(1, False)
    assert store.lock("overlap/growth", STUDENTS[0], 4.0) == (Round(1, False), True)
    assert store.lock("overlap/growth", STUDENTS[0], 9.0) == (Round(1, False), False)  # replaces nothing
    assert store.student_vote("overlap/growth", 1, STUDENTS[0]) == 4.0
    assert store.lock("overlap/growth", STUDENTS[1], 5.5)[1]
    assert store.lock("overlap/other", STUDENTS[0], 1.0)[1]  # another exercise is another vote
    (only,) = store.rounds_of("overlap/growth")
    assert only.round == Round(1, False) and only.predictions == (4.0, 5.5)


def test_reveal_then_a_new_round_for_the_vote_after_discussion(store):
    key = "buckets/count"
    store.lock(key, STUDENTS[0], 3.0)
    assert store.reveal(key) == Round(1, True)
    assert store.lock(key, STUDENTS[1], 4.0) == (Round(1, True), False)  # a revealed round takes no votes
    assert store.new_round(key) == Round(2, False)
    assert store.lock(key, STUDENTS[0], 4.0) == (Round(2, False), True)  # the same student votes again
    assert [(r.round, r.predictions) for r in store.rounds_of(key)] == [
        (Round(1, True), (3.0,)),
        (Round(2, False), (4.0,)),
    ]


def test_new_round_first_reveals_the_open_one(store):
    store.lock("k/e", STUDENTS[0], 1.0)
    assert store.new_round("k/e") == Round(2, False)
    assert store.rounds_of("k/e")[0].round.revealed


def test_export_has_anonymous_ids_and_every_vote(store):
    store.lock("a/b", STUDENTS[0], 0.1)
    store.lock("a/b", STUDENTS[1], 2.0)
    lines = store.export_csv().splitlines()
    assert lines[0] == "exercise,round,student,prediction,locked_at,variant,class"
    assert lines[1].startswith(f"a/b,1,{STUDENTS[0]},0.1,") and lines[1].endswith("Z,,")  # no judge: no class
    assert len(lines) == 3
    judged = store.export_csv(lambda key, prediction, variant: f"{key} {prediction:g} {variant}").splitlines()
    assert judged[2].endswith(",a/b 2 None")


def test_a_second_process_opening_the_same_database_sees_the_same_votes(store, url):
    other = ClassStore(url)  # as another app process would, schema already there
    assert other.lock("x/y", STUDENTS[2], 7.0)[1]
    assert store.rounds_of("x/y")[0].predictions == (7.0,)
    other.dispose()


def test_thirty_students_locking_at_once_are_thirty_votes(store):
    barrier = threading.Barrier(30)
    results = []

    def student(n: int) -> None:
        barrier.wait()
        results.append(store.lock("rush/hour", STUDENTS[n], float(n % 3))[1])

    threads = [threading.Thread(target=student, args=(n,)) for n in range(30)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results.count(True) == 30
    assert sorted(store.rounds_of("rush/hour")[0].predictions) == sorted(float(n % 3) for n in range(30))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 1), st.floats(-1e6, 1e6)), max_size=25))
def test_the_first_lock_is_the_one_kept(store, locks):
    key = f"prop/{uuid.uuid4().hex}"  # a fresh exercise per example (hashes collide: hash(-1.0) == hash(-2.0))
    first: dict[int, float] = {}
    for student, _exercise, value in locks:
        stored = store.lock(key, STUDENTS[student], value)[1]
        assert stored == (student not in first)
        first.setdefault(student, value)
    assert sorted(store.rounds_of(key)[0].predictions) == sorted(first.values())


def test_a_locked_sqlite_file_says_so_instead_of_waiting_for_ever(tmp_path):
    path = tmp_path / "class.db"
    store = ClassStore(f"sqlite:///{path}")
    holder = sqlite3.connect(path, timeout=0)
    holder.execute("BEGIN EXCLUSIVE")  # another process in the middle of a write
    with pytest.raises(StoreUnavailable, match="cannot be written"):
        store.lock("a/b", STUDENTS[0], 1.0)
    holder.rollback()
    assert store.lock("a/b", STUDENTS[0], 1.0)[1]  # and works again once the lock is gone
    store.dispose()


def test_a_process_still_holding_the_lock_at_start_up_is_waited_for(tmp_path, monkeypatch):
    """Two cluster processes starting at once on a loaded machine: the second outlasts the busy timeout."""
    from app.classroom import store as store_module

    path = tmp_path / "class.db"
    holder = sqlite3.connect(path, timeout=0, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # the other process, in the middle of creating the schema
    retries = []

    def other_process_done(seconds: float) -> None:  # the store's pause before its next try
        retries.append(seconds)
        if holder.in_transaction:
            holder.rollback()

    monkeypatch.setattr(store_module, "SQLITE_BUSY_TIMEOUT_S", 0.1)
    monkeypatch.setattr(store_module.time, "sleep", other_process_done)
    store = ClassStore(f"sqlite:///{path}")
    assert len(retries) == 1  # the first try gave up on the lock; the second, after it was released, worked
    assert store.version() == SCHEMA_VERSION and store.lock("a/b", STUDENTS[0], 1.0)[1]
    store.dispose()
    holder.close()


def test_a_database_that_is_not_there_is_one_sentence():
    with pytest.raises(StoreUnavailable, match="cannot be opened"):
        ClassStore("postgresql+psycopg://nobody@127.0.0.1:1/none")


def test_the_write_limit_is_per_student_and_per_second():
    limit = WriteLimiter(per_second=3, keys=2)
    assert [limit.allow("a", now=10.0) for _ in range(4)] == [True, True, True, False]
    assert limit.allow("b", now=10.0)  # a flood from one changes nothing for another
    assert limit.allow("a", now=11.0)  # a second later it may write again
    limit.allow("c", now=11.0)
    assert len(limit._seen) == 2  # remembers a bounded number of students


def test_a_vote_keeps_the_variant_its_student_saw(store):
    assert store.lock("v/x", STUDENTS[0], 1.0)[1]  # the exercise as written
    assert store.lock("v/x", STUDENTS[1], 2.0, variant="seed-17")[1]
    (only,) = store.rounds_of("v/x")
    assert only.predictions == (1.0, 2.0) and only.variants == (None, "seed-17")
    assert only.variant_of(1) == "seed-17" and only.variant_of(5) is None
    assert store.own_vote("v/x", 1, STUDENTS[1]) == (2.0, "seed-17")
    assert store.own_vote("v/x", 1, STUDENTS[2]) is None
    assert store.export_csv().splitlines()[2].endswith(",seed-17,")


def version_1_schema(url: str) -> None:
    """Make the class database as schema version 1 made it (votes without a variant), with one vote."""
    import sqlalchemy as sa

    old = sa.MetaData()
    for name in ("schema_version", "rounds"):
        metadata.tables[name].to_metadata(old)
    votes = sa.Table(  # as store.py declared it at version 1
        "votes",
        old,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("exercise", sa.String(200), nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("student", sa.String(64), nullable=False),
        sa.Column("prediction", sa.Float, nullable=False),
        sa.Column("locked_at", sa.Float, nullable=False),
        sa.UniqueConstraint("exercise", "round", "student", name="one_vote_per_round"),
    )
    engine = sa.create_engine(url)
    old.create_all(engine)
    with engine.begin() as db:
        db.execute(old.tables["schema_version"].insert().values(version=1))
        db.execute(votes.insert().values(exercise="old/one", round=1, student=STUDENTS[0], prediction=4.0, locked_at=0))
    engine.dispose()


def test_a_version_1_database_gains_the_variant_column_and_keeps_its_votes(url):
    version_1_schema(url)
    store = ClassStore(url)  # as the new code's first process opens the class of yesterday
    assert store.version() == SCHEMA_VERSION == 2
    (old,) = store.rounds_of("old/one")
    assert old.predictions == (4.0,) and old.variants == (None,)
    assert store.lock("old/one", STUDENTS[1], 5.0, variant="v2")[1]
    assert store.rounds_of("old/one")[0].variants == (None, "v2")
    again = ClassStore(url)  # a second process: the column is there, nothing to do
    assert again.version() == 2
    again.dispose()
    store.dispose()


def test_processes_starting_together_on_a_version_1_database_add_the_column_once(url):
    version_1_schema(url)
    barrier = threading.Barrier(4)
    opened, failed = [], []

    def start() -> None:
        barrier.wait()
        try:
            opened.append(ClassStore(url))
        except StoreUnavailable as problem:
            failed.append(str(problem))

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failed and len(opened) == 4
    assert opened[0].version() == 2 and opened[1].lock("old/one", STUDENTS[2], 1.0, variant="x")[1]
    for store in opened:
        store.dispose()
