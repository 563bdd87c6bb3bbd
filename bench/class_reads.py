"""What the instructor's refresh and Export CSV cost at the class store's bound, SQLite and PostgreSQL.

Fills one exercise with ``--rounds`` full rounds (``MAX_VOTES_PER_ROUND`` votes each, distinct
students, as the bound allows), then times the refresh's read (the last two rounds), the read of
every round (what the refresh read before the bound), the chart worked out from the two rounds
shown, and the CSV export of everything. Every figure is the median of ``--repeats`` runs.

    .venv/bin/python -m bench.class_reads [--rounds 10] [--repeats 5] [--postgres]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable

from app.classroom.histogram import chart_of
from app.classroom.judging import csv_class
from app.classroom.schema import votes
from app.classroom.store import MAX_VOTES_PER_ROUND, ClassStore, metadata
from app.course.content import load_lessons
from tests.postgres import start_postgres, stop_postgres

LESSON = next(lesson for lesson in load_lessons() if lesson.slug == "overlap")
EXERCISE = LESSON.exercise("growth")
KEY = f"{LESSON.slug}/{EXERCISE.id}"


def fill(store: ClassStore, rounds: int) -> None:
    """``rounds`` full rounds of one exercise, inserted in bulk (the timing is of the reads)."""
    now = time.time()
    for number in range(1, rounds + 1):
        rows = [
            {
                "exercise": KEY,
                "round": number,
                "student": f"{n:032x}",
                "prediction": 0.5 + (n % 40) / 10,
                "locked_at": now,
                "variant": None,
            }
            for n in range(MAX_VOTES_PER_ROUND)
        ]
        with store.engine.begin() as db:
            db.execute(votes.insert(), rows)
        if number < rounds:
            store.new_round(KEY)


def median_ms(work: Callable[[], object], repeats: int) -> float:
    """The median time of ``work()`` over ``repeats`` runs, in ms."""
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        work()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def measure(url: str, rounds: int, repeats: int) -> dict[str, float]:
    """Each read's median time on a fresh database at ``url`` holding ``rounds`` full rounds."""
    store = ClassStore(url)
    metadata.drop_all(store.engine)
    store.dispose()
    store = ClassStore(url)
    fill(store, rounds)
    shown = store.rounds_of(KEY, last=2)
    figures = {
        "refresh read (last 2 rounds)": median_ms(lambda: store.rounds_of(KEY, last=2), repeats),
        f"read of all {rounds} rounds": median_ms(lambda: store.rounds_of(KEY), repeats),
        "chart of the 2 rounds shown": median_ms(lambda: chart_of(EXERCISE, shown, True), repeats),
        f"export CSV ({rounds * MAX_VOTES_PER_ROUND:,} votes)": median_ms(lambda: store.export_csv(csv_class), repeats),
    }
    store.dispose()
    return figures


def main() -> None:
    """Print the figures, SQLite first."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--postgres", action="store_true", help="also on a private PostgreSQL server")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        urls = {"SQLite": f"sqlite:///{folder}/class.db"}
        server = start_postgres() if args.postgres else None
        if server is not None:
            urls["PostgreSQL"] = server.url
        try:
            for name, url in urls.items():
                for what, ms in measure(url, args.rounds, args.repeats).items():
                    print(f"{name:10s}  {what:34s} {ms:8.1f} ms")
        finally:
            if server is not None:
                stop_postgres(server)


if __name__ == "__main__":
    main()
