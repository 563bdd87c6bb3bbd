"""How long other students' clicks take while one student's 100 MB trace is parsed, by where it is parsed.

The trace page parses off the event loop. A worker thread keeps the loop free to run callbacks,
but the parser is pure Python, so the two threads share one interpreter lock (CPython hands it
over every ``sys.getswitchinterval()``, 5 ms); a worker process shares nothing but must send the
parsed trace back. This bench runs, in one asyncio loop, a stream of "clicks" (each one a real lab
update: the bucket timeline model recomputing its schedule after a new bucket cap, as a click on
the lab does on the server) every 50 ms while a trace is parsed in each of three ways, and prints
the clicks' latency (from when the click is due until its work is done) side by side:

- ``idle``: no parse at all (the reference);
- ``thread``: ``loop.run_in_executor(None, parse_trace, ...)``, as the page does;
- ``process``: a ``ProcessPoolExecutor`` worker, the parsed trace pickled back.

    .venv/bin/python -m bench.trace_responsiveness [--mb 100]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from app.trace import RankTrace, parse_trace
from bench.lib.stats import percentile
from bench.lib.trace_file import make_trace
from labs.timeline.model import TimelineModel

CLICK_EVERY_S = 0.05


def parse_file(path: str) -> int:
    """Parse the file in the calling process and return its step count (all a worker sends back here)."""
    return len(parse_trace(Path(path).read_bytes(), source=path).steps)


def parse_whole(path: str) -> RankTrace:
    """Parse the file and return the whole parsed trace (what the page would need from a worker)."""
    return parse_trace(Path(path).read_bytes(), source=path)


def click(model: TimelineModel, n: int) -> None:
    """One lab click's server work: a new bucket cap, the schedule and the cap sweep it redraws."""
    model.bucket_cap = 5.0 + (n % 20)
    model.schedule  # noqa: B018 (computing it is the work)
    model.step_time_sweep()


async def clicks_while(work: Awaitable[object], model: TimelineModel) -> tuple[list[float], float]:
    """Run clicks every 50 ms until ``work`` (an awaitable) is done; return their latencies (s) and its time."""
    latencies: list[float] = []
    started = time.perf_counter()
    task = asyncio.ensure_future(work)
    n = 0
    due = time.perf_counter()
    while not task.done() or n < 20:
        due += CLICK_EVERY_S
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        click(model, n)
        latencies.append(time.perf_counter() - due)
        n += 1
    await task
    return latencies, time.perf_counter() - started


def summary(name: str, latencies: list[float], seconds: float) -> str:
    """One row: the clicks' median, p95 and worst latency in ms, and how long the parse took."""
    ms = sorted(1e3 * x for x in latencies)
    p95 = percentile(ms, 95)
    return (
        f"{name:>16}: {len(ms):4d} clicks, median {statistics.median(ms):7.1f} ms, p95 {p95:7.1f} ms, "
        f"worst {ms[-1]:7.1f} ms; the parse took {seconds:5.1f} s"
    )


async def run(path: str) -> None:
    """Measure every mode in this one loop and print the table."""
    model = TimelineModel()
    loop = asyncio.get_running_loop()
    rows = []
    rows.append(summary("idle", *await clicks_while(asyncio.sleep(3.0), model)))
    rows.append(summary("thread", *await clicks_while(loop.run_in_executor(None, parse_whole, path), model)))
    with ProcessPoolExecutor(max_workers=1) as pool:
        loop.run_in_executor(pool, int, 0)  # start the worker before timing
        rows.append(summary("process, steps", *await clicks_while(loop.run_in_executor(pool, parse_file, path), model)))
        rows.append(
            summary("process, whole", *await clicks_while(loop.run_in_executor(pool, parse_whole, path), model))
        )
    for row in rows:
        print(row)


def main() -> None:
    """Make the trace and measure."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=100.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.json"
        size = make_trace(path, args.mb)
        print(
            f"trace: {size / 1e6:.1f} MB; a click every {CLICK_EVERY_S * 1e3:.0f} ms; switch interval "
            f"{sys.getswitchinterval() * 1e3:.0f} ms"
        )
        asyncio.run(run(str(path)))


if __name__ == "__main__":
    main()
