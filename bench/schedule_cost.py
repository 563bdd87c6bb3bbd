"""Server time the bucket timeline spends per edit: one schedule and the 49-point cap sweep.

Every edit of a timeline control recomputes the step's schedule (the event simulation in
``labs/timeline/schedule.py``) and, unless only the bucket cap changed, the sweep of the step over
49 bucket caps. This bench times both on a 512-layer network (the most the Layers field takes),
with every effect off and with contention on (s_c = 1.5, s_m = 1.3), a launch gap and a
synchronization after every bucket, and prints them beside one frame at 60 Hz (16.7 ms), the
budget the issue sets. It also prints a CPython reference loop timed in the same run, so figures
from machines of different speed can be compared (divide by it).

Usage: ``.venv/bin/python -m bench.schedule_cost [--repeats 20]``
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

import numpy as np

from bench.lib.machine import best_seconds, integer_additions_s
from labs.timeline.model import TimelineModel

FRAME_MS = 1000 / 60

CASES = {
    "ideal (defaults)": {},
    "contention s_c 1.5, s_m 1.3": {"compute_slowdown": 1.5, "comm_slowdown": 1.3},
    "contention + gap 0.05 ms": {"compute_slowdown": 1.5, "comm_slowdown": 1.3, "launch_gap": 0.05},
    "sync after every bucket": {"sync_each": True},
}


def network(layers: int = 512, seed: int = 1) -> str:
    """A Layers text of ``layers`` layers: 0.5 to 16 MiB, 0.05 to 0.5 ms each, seeded."""
    rng = np.random.default_rng(seed)
    return ", ".join(f"{rng.uniform(0.5, 16):.2f}:{rng.uniform(0.05, 0.5):.3f}" for _ in range(layers))


def best_ms(action: Callable[[], object], repeats: int) -> float:
    """The shortest of ``repeats`` timings of ``action()``, in ms (the least disturbed run)."""
    return 1e3 * best_seconds(action, repeats)


def reference_ms() -> float:
    """CPython adding one million integers in a loop, timed once, in ms: the machine's speed, same run."""
    return 1e3 * integer_additions_s(repeats=1, additions=1_000_000)


def main() -> None:
    """Time one timeline schedule and a cap sweep at 512 layers and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--layers", type=int, default=512)
    args = parser.parse_args()
    layers = network(args.layers)
    load = os.getloadavg()[0]
    print(f"{args.layers} layers, best of {args.repeats}; load average {load:.2f} on {os.cpu_count()} cores")
    print(f"reference: 10^6 integer additions in CPython take {reference_ms():.1f} ms here")
    print(f"{'case':32} {'buckets':>7} {'schedule ms':>12} {'sweep ms':>9} {'sweep/frame':>12}")
    for name, controls in CASES.items():
        m = TimelineModel(layers=layers, **controls)

        def schedule(m=m):
            m._memo.clear()
            return m.schedule

        def sweep(m=m):
            m._memo.clear()
            return m.step_time_sweep()

        one, every = best_ms(schedule, args.repeats), best_ms(sweep, args.repeats)
        print(f"{name:32} {m.bucket_count:7d} {one:12.2f} {every:9.1f} {every / FRAME_MS:11.2f}x")
    print(f"one frame at 60 Hz: {FRAME_MS:.1f} ms; an edit of the bucket cap alone reuses the sweep")


if __name__ == "__main__":
    main()
