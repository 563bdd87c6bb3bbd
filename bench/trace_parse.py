"""Parse time and peak memory of app.trace on a ~100 MB trace, beside json.load of the same file.

The trace is made by repeating the steps of a real fixture (tests/fixtures/traces/gloo_schedule_rank0,
torch 2.13, gloo; bench/lib/trace_file.py): every repetition's events are shifted by the fixture's span
and renumbered (``ProfilerStep#N``), and written in the profiler's own indented layout. Each measurement runs in a
fresh process: ``tracemalloc`` gives the peak of Python allocations after the file's bytes were
read (the bytes themselves, which the page holds anyway, are not counted), ``ru_maxrss`` the
process's peak resident size (file bytes and interpreter included). Time is taken in a separate run
without ``tracemalloc``, which slows every allocation. Budget: parse peak at most 2× the file size.

    .venv/bin/python -m bench.trace_parse [--mb 100] [--keep PATH]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from bench.lib.trace_file import FIXTURE, make_trace


def child(mode: str, path: str, traced: bool) -> None:
    """Measure one way of reading the file in this process and print JSON (memory only if traced)."""
    data = Path(path + ".gz" if mode == "app.trace .gz" else path).read_bytes()
    if traced:
        tracemalloc.start()
    t0 = time.perf_counter()
    if mode == "json.load":
        with open(path, "rb") as handle:
            doc = json.load(handle)
        result = {"events": len(doc["traceEvents"])}
    else:
        from app.trace import parse_trace  # here, so that its import is timed and traced with the parse

        trace = parse_trace(data)
        tl = trace.timeline()
        result = {"events": trace.event_count, "steps": len(trace.steps), "tail_ms": tl.tail_ms}
    seconds = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] if traced else 0
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"mode": mode, "seconds": seconds, "peak": peak, "rss": rss, **result}))


def main() -> None:
    """Make the trace, measure both readers, print the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=100.0)
    parser.add_argument("--keep", default="")
    parser.add_argument("--child", nargs=3, metavar=("MODE", "PATH", "TRACED"))
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.child[2] == "1")
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.keep or os.path.join(tmp, "bench.json"))
        size = make_trace(path, args.mb)
        print(f"trace: {size / 1e6:.1f} MB, repeating {FIXTURE.name}")
        rows = []
        gz = Path(str(path) + ".gz")
        gz.write_bytes(gzip.compress(path.read_bytes(), 6))
        print(f"gzipped: {gz.stat().st_size / 1e6:.1f} MB")
        for mode in ("app.trace", "app.trace .gz", "json.load"):
            runs = []
            for traced in ("0", "1"):  # time without tracemalloc (it slows allocation), memory with it
                done = subprocess.run(
                    [sys.executable, __file__, "--child", mode, str(path), traced],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                runs.append(json.loads(done.stdout))
            rows.append(dict(runs[1], seconds=runs[0]["seconds"], rss=runs[0]["rss"]))
        for r in rows:
            extra = f", {r['steps']} steps, tail {r['tail_ms']:.3f} ms" if "steps" in r else ""
            print(
                f"{r['mode']:>13}: {r['seconds']:6.2f} s, peak {r['peak'] / 1e6:7.1f} MB "
                f"({r['peak'] / size:.2f}× the file), max RSS {r['rss'] / 1e6:7.1f} MB, {r['events']:,} events{extra}"
            )
        ours = rows[0]
        verdict = "within" if ours["peak"] <= 2 * size else "OVER"
        print(f"budget: parse peak ≤ 2× file size: {verdict} ({ours['peak'] / size:.2f}×)")


if __name__ == "__main__":
    main()
