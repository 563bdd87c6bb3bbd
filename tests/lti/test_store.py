"""What the tool keeps between requests, in memory and in the class database (SQLite and PostgreSQL alike)."""

from __future__ import annotations

import json
import time

import pytest
import sqlalchemy as sa

from app.classroom.store import ClassStore
from app.classroom.store import metadata as class_metadata
from app.lti.store import DatabaseState, MemoryState, metadata, scores
from tests.classroom.conftest import postgres  # noqa: F401 (the class tests' private PostgreSQL server)


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def state(request, tmp_path):
    if request.param == "memory":
        yield MemoryState()
        return
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'class.db'}"
    else:
        url = request.getfixturevalue("postgres").url
    store = ClassStore(url)
    yield DatabaseState(store.engine)
    metadata.drop_all(store.engine)  # the next test (an LTI one or a class one) starts from empty tables
    class_metadata.drop_all(store.engine)
    store.dispose()


def kept_record(state, score_id: int) -> dict:
    """What the store still holds of a score."""
    if isinstance(state, MemoryState):
        return state._scores[score_id]["record"]
    with state.engine.connect() as db:
        return json.loads(db.execute(sa.select(scores.c.record).where(scores.c.id == score_id)).scalar_one())


def test_a_nonce_is_used_once(state):
    later = time.time() + 60
    assert state.use_nonce("n1", later) is True
    assert state.use_nonce("n1", later) is False
    assert state.use_nonce("n2", later) is True


def test_an_expired_nonce_is_forgotten(state):
    assert state.use_nonce("old", time.time() - 1) is True
    assert state.use_nonce("new", time.time() + 60) is True  # its insert prunes the expired one
    assert state.use_nonce("old", time.time() + 60) is True


def test_a_launch_code_is_taken_once_and_not_after_it_expired(state):
    state.put_launch("c1", {"kind": "learner", "n": 1}, time.time() + 60)
    assert state.take_launch("c1") == {"kind": "learner", "n": 1}
    assert state.take_launch("c1") is None
    state.put_launch("c2", {"kind": "learner"}, time.time() - 1)
    assert state.take_launch("c2") is None
    assert state.take_launch("never") is None


def test_a_score_is_kept_until_it_is_sent(state):
    first = state.add_score({"lineitem": "a"})
    second = state.add_score({"lineitem": "b"})
    assert [p.record["lineitem"] for p in state.pending_scores()] == ["a", "b"]
    assert state.claim(first, time.time() + 60)
    assert not state.claim(first, time.time() + 60)  # another process's try: already taken
    assert [p.id for p in state.pending_scores()] == [second]  # not due while claimed
    state.score_failed(first, "the platform answered 503", retry_at=time.time() - 1)
    again = next(p for p in state.pending_scores() if p.id == first)
    assert again.attempts == 1
    state.score_failed(first, "the platform answered 503", retry_at=time.time() + 600)
    assert [p.id for p in state.pending_scores()] == [second]  # waits for its next try
    assert [p.id for p in state.pending_scores(now=time.time() + 601)] == [second, first]  # most overdue first
    state.score_sent(first)
    assert state.is_sent(first) and not state.is_sent(second)
    assert kept_record(state, first) == {}  # what was sent (the student's sub with it) is forgotten
    assert [p.id for p in state.pending_scores()] == [second]
