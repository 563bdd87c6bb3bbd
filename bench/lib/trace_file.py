"""A large profiler trace for the trace benches, made by repeating the steps of a real fixture.

The fixture is ``tests/fixtures/traces/gloo_schedule_rank0`` (torch 2.13, gloo): every repetition's
events are shifted by the fixture's span and renumbered (``ProfilerStep#N``), and written in the
profiler's own indented layout.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

# Not devtools.serving.REPOSITORY: importing it brings urllib and ssl (about 9 MB), which
# bench/trace_parse.py's children would count in their max RSS.
FIXTURE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "traces" / "gloo_schedule_rank0.json.gz"
"""The real trace whose steps are repeated."""


def make_trace(path: Path, megabytes: float) -> int:
    """Write a trace of about ``megabytes`` MB by repeating the fixture's events.

    Parameters
    ----------
    path : pathlib.Path
        Where to write it (JSON, not compressed).
    megabytes : float
        About how large (at least one repetition).

    Returns
    -------
    int
        Its size in bytes.
    """
    trace = json.loads(gzip.decompress(FIXTURE.read_bytes()))
    events = [e for e in trace["traceEvents"] if e.get("ph") != "M"]
    meta = [e for e in trace["traceEvents"] if e.get("ph") == "M"]
    steps = [e for e in events if e.get("name", "").startswith("ProfilerStep#")]
    lo = min(e["ts"] for e in steps)
    span = max(e["ts"] + e["dur"] for e in steps) - lo + 1000.0
    one = sum(len(json.dumps(e, indent=2)) + 4 for e in events)
    repeats = max(1, int(megabytes * 1e6 / one))
    head = {k: v for k, v in trace.items() if k != "traceEvents"}
    with open(path, "w") as out:
        out.write("{\n")
        for key, value in head.items():
            if key != "traceName":
                out.write(f'  "{key}": {json.dumps(value)},\n')
        out.write('  "traceEvents": [\n')
        first = True
        for e in meta:
            out.write(("" if first else ",\n") + json.dumps(e, indent=2))
            first = False
        for r in range(repeats):
            for e in events:
                e2 = dict(e, ts=round(e["ts"] + r * span, 3))
                if e2.get("name", "").startswith("ProfilerStep#"):
                    e2["name"] = f"ProfilerStep#{int(e2['name'].split('#')[1]) + 2 * r}"
                out.write(",\n" + json.dumps(e2, indent=2))
        out.write('\n  ],\n  "traceName": "bench.json"\n}\n')
    return path.stat().st_size
