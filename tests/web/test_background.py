"""Background work: each kind in its own pool; a failure in a worker thread is said in the server's log, never lost."""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import threading
import zlib
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import panel as pn
import pytest

from app.classroom.store import ClassStore
from app.trace.page.shown import read_file
from app.web.background import CLASS_DB, TRACE_POOL, TRACE_WORKERS, WorkerPool, in_worker_thread
from tests.waiting import STUCK_AFTER_S, poll

ROOT = Path(__file__).parents[2]


def test_a_failure_in_the_worker_is_logged_and_done_is_not_called(caplog, monkeypatch):
    served = SimpleNamespace(session_context=object())  # as a server session's document looks here
    monkeypatch.setattr(type(pn.state), "curdoc", property(lambda _self: served))
    called = []

    def work() -> None:
        raise ValueError("the database went away")

    async def run() -> None:
        in_worker_thread(work, called.append)
        for _ in range(200):  # the worker's result comes back through the loop
            if caplog.records:
                return
            await asyncio.sleep(0.01)

    # A loop of its own, in a thread of its own: Playwright's sync API may run one in this thread.
    with caplog.at_level(logging.ERROR, logger="app.web.background"):
        loop_thread = threading.Thread(target=lambda: asyncio.run(run()))
        loop_thread.start()
        loop_thread.join()
    assert called == []
    assert [record.getMessage() for record in caplog.records] == ["background work failed"]
    assert "the database went away" in caplog.text


def _hostile_traces() -> dict[str, bytes]:
    """Six expansion bombs and oversized statements, made from a real trace as the security review made them."""
    real = json.loads(gzip.decompress((ROOT / "content" / "traces" / "gloo_late_rank0.json.gz").read_bytes()))
    real["distributedInfo"]["world_size"] = 2_000_000

    def bomb(head: bytes, filler: bytes, mib: int, tail: bytes = b"") -> bytes:
        packer = zlib.compressobj(9, zlib.DEFLATED, 31)
        block = filler * (2**20 // len(filler))
        return b"".join([packer.compress(head), *(packer.compress(block) for _ in range(mib)), packer.flush()])

    spaces = bomb(b'{"traceEvents":[', b" ", 64)  # the review's, with 64 MiB of spaces (test_trace_limits: a GiB)
    return {
        **{f"spaces{k}.json.gz": spaces for k in range(4)},
        "events.json.gz": bomb(b"[", b"0," * 512, 7, b"0]"),
        "ws2000000.json": json.dumps(real).encode(),
    }


def test_trace_parses_filling_their_pool_never_hold_up_the_class_database(tmp_path):
    """H2: six bombs in the trace pool, a vote stored in the class database's pool meanwhile."""
    store = ClassStore(f"sqlite:///{tmp_path / 'class.db'}")
    gate = threading.Event()
    hostile = _hostile_traces()

    def parse_after_the_gate(name: str, data: bytes) -> object:
        assert gate.wait(STUCK_AFTER_S), "the class database's work never finished"
        return read_file(data, name)

    parses = [TRACE_POOL.submit(partial(parse_after_the_gate, name, data)) for name, data in hostile.items()]
    try:
        vote = CLASS_DB.submit(lambda: store.lock("overlap/growth", "ab" * 16, 3.0))
        _round, stored = vote.result(timeout=STUCK_AFTER_S)
        assert stored and store.student_vote("overlap/growth", 1, "ab" * 16) == 3.0
        assert (TRACE_POOL.running, TRACE_POOL.queued) == (TRACE_WORKERS, len(hostile) - TRACE_WORKERS)
    finally:
        gate.set()
    said = [future.result(timeout=STUCK_AFTER_S) for future in parses]
    assert said[:4] == [
        f"spaces{k}.json.gz: the file holds more than 1.0 MiB of white space in a row, more than this page reads "
        "(no trace has that much)"
        for k in range(4)
    ]
    assert said[4] == "events.json.gz: the file has more events than this page reads (at most 3,000,000)"
    assert said[5] == "ws2000000.json: world_size 2000000 is more than this page reads (at most 65536)"
    store.dispose()


@pytest.mark.parametrize(("pool", "thread"), [(None, "overlap-class-db"), (TRACE_POOL, "overlap-trace")])
def test_work_runs_in_the_pool_named_and_the_class_database_is_the_default(caplog, monkeypatch, pool, thread):
    served = SimpleNamespace(session_context=object())
    monkeypatch.setattr(type(pn.state), "curdoc", property(lambda _self: served))

    def work() -> None:
        raise ValueError(f"ran on {threading.current_thread().name}")

    async def run() -> None:
        if pool is None:
            in_worker_thread(work, print)
        else:
            in_worker_thread(work, print, pool=pool)
        for _ in range(200):
            if caplog.records:
                return
            await asyncio.sleep(0.01)

    with caplog.at_level(logging.ERROR, logger="app.web.background"):
        loop_thread = threading.Thread(target=lambda: asyncio.run(run()))
        loop_thread.start()
        loop_thread.join()
    assert f"ran on {thread}_" in caplog.text


def test_a_pool_counts_what_runs_and_what_waits_and_says_when_work_starts():
    pool = WorkerPool("test", 1)
    gate, started = threading.Event(), []
    first = pool.submit(lambda: gate.wait(STUCK_AFTER_S), started=lambda: started.append("first"))
    second = pool.submit(lambda: "done", started=lambda: started.append("second"))
    poll(lambda: started == ["first"], what="the first work starting")
    assert (pool.running, pool.queued, pool.full()) == (1, 1, True)
    gate.set()
    assert first.result(timeout=STUCK_AFTER_S) is True and second.result(timeout=STUCK_AFTER_S) == "done"
    assert started == ["first", "second"] and (pool.running, pool.queued, pool.full()) == (0, 0, False)
