"""Locked predictions per second the class database sustains, SQLite and PostgreSQL side by side.

Each writer is a separate process with its own :class:`app.classroom.store.ClassStore`, as each app
process has, locking predictions for distinct anonymous students as fast as it can (one INSERT per
vote, exactly what a student's Lock does). SQLite is a WAL file in a temporary directory;
PostgreSQL a private server started from Debian's package as the tests start it
(:mod:`tests.postgres`). Also prints the time of an instructor's read of one exercise's rounds
with every vote in.

    .venv/bin/python -m bench.class_writes [--votes 2000] [--writers 1,2,4]
"""

from __future__ import annotations

import argparse
import multiprocessing
import tempfile
import time

from app.classroom.store import ClassStore, metadata
from tests.postgres import postgres_binaries, start_postgres, stop_postgres


def writer(url: str, first: int, count: int, start: multiprocessing.Event, done: multiprocessing.Queue) -> None:
    """Lock ``count`` predictions for students ``first``..., once ``start`` is set; report the time taken."""
    store = ClassStore(url)
    start.wait()
    began = time.perf_counter()
    for n in range(first, first + count):
        store.lock("bench/exercise", f"{n:032x}", float(n % 7))
    done.put(time.perf_counter() - began)
    store.dispose()


def measure(url: str, writers: int, votes: int) -> tuple[float, float]:
    """Votes per second with ``writers`` processes sharing ``votes``; and the instructor's read in ms."""
    store = ClassStore(url)
    metadata.drop_all(store.engine)
    store.dispose()
    store = ClassStore(url)
    start, done = multiprocessing.Event(), multiprocessing.Queue()
    each = votes // writers
    workers = [multiprocessing.Process(target=writer, args=(url, w * each, each, start, done)) for w in range(writers)]
    for worker in workers:
        worker.start()
    time.sleep(1.0)  # every writer has opened its store (a bench, not a test)
    began = time.perf_counter()
    start.set()
    for worker in workers:
        worker.join()
    wall = time.perf_counter() - began
    read = time.perf_counter()
    (rounds,) = store.rounds_of("bench/exercise")
    read_ms = (time.perf_counter() - read) * 1e3
    assert len(rounds.predictions) == each * writers, len(rounds.predictions)
    store.dispose()
    return each * writers / wall, read_ms


def main() -> None:
    """Measure every database and writer count, print one table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--votes", type=int, default=2000)
    parser.add_argument("--writers", default="1,2,4")
    args = parser.parse_args()
    counts = [int(w) for w in args.writers.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        targets = [("SQLite (WAL file)", f"sqlite:///{tmp}/class.db")]
        server = start_postgres() if postgres_binaries() else None
        if server is not None:
            targets.append(("PostgreSQL 1 server", server.url))
        try:
            for name, url in targets:
                for writers in counts:
                    rate, read_ms = measure(url, writers, args.votes)
                    rows.append((name, writers, rate, read_ms))
        finally:
            if server is not None:
                stop_postgres(server)
    print(f"{args.votes} votes, one INSERT each, distinct students; the instructor reads every vote after")
    for name, writers, rate, read_ms in rows:
        print(f"{name:>20}: {writers} writer processes: {rate:8.0f} votes/s; instructor's read {read_ms:6.1f} ms")


if __name__ == "__main__":
    main()
