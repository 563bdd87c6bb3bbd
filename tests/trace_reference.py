"""An independent reading of a PyTorch profiler trace of DDP, from the GPU clock only (tests only).

Written apart from ``app.trace`` and importing nothing from it, so that the import can be checked
against a second, plain reading of the same file. It uses the whole JSON in memory and simple
rules, with no fallbacks:

- A **step** is a host ``ProfilerStep#N`` range. A host op belongs to the step whose range holds
  its start (host ops are timed on the host clock, which is right for them).
- A **kernel** (category ``kernel``) belongs to the host op that launched it: the ``cuda_runtime``
  / ``cuda_driver`` event with the same ``correlation``, and the host ops that enclose that launch
  on its thread. So a kernel belongs to its launch's step wherever it ran on the GPU clock.
- **All-reduce kernels** of a bucket: those launched from inside a ``c10d::allreduce_`` that is
  itself inside a backward node (``autograd::engine::evaluate_function: ...``), whatever the
  kernel's name. A bucket's all-reduce runs from its first kernel's start to its last one's end.
- **Backward compute**: kernels launched from inside a backward node and not from inside a
  ``c10d::`` op, ``nccl:`` range or ``record_param_comms``.
- **Optimizer start on the device**: the first kernel launched from inside ``Optimizer.step#...``.
- **Tail** = last all-reduce kernel end − last backward compute kernel end (signed; negative
  means hidden). **Exposed** = time in the union of all-reduce kernels, clipped to [first backward
  kernel start, optimizer start on the device], that no backward compute kernel covers.
- **Bucket bytes**: elements × element size, from ``record_param_comms`` (``In msg nelems``,
  ``dtype``), else the ``nccl:all_reduce`` record's ``Input Dims`` and ``Input type``, else the
  ``c10d::allreduce_``'s own first input when its shape is not empty; else unknown (None).
"""

from __future__ import annotations

import gzip
import json
import math
from bisect import bisect_right
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

BACKWARD = "autograd::engine::evaluate_function"
ELEMENT_BYTES = {
    "float": 4, "Float": 4, "c10::Float": 4, "float32": 4,
    "double": 8, "Double": 8,
    "half": 2, "Half": 2, "c10::Half": 2, "float16": 2,
    "c10::BFloat16": 2, "BFloat16": 2, "bfloat16": 2,
}  # fmt: skip


@dataclass
class RefBucket:
    """One bucket's all-reduce on the GPU: µs on the trace's clock, and its size where known."""

    start: float
    end: float
    nbytes: int | None
    kernels: int

    @property
    def duration_ms(self) -> float:
        return (self.end - self.start) / 1e3


@dataclass
class RefStep:
    """One step read from the GPU clock."""

    number: int
    buckets: list[RefBucket]
    backward_start: float
    backward_end: float
    optimizer_start: float | None
    tail_ms: float
    exposed_ms: float


def load(path: str | Path) -> dict:
    """The trace's JSON (gzipped or not) as a dict with ``traceEvents``."""
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    doc = json.loads(data)
    return doc if isinstance(doc, dict) else {"traceEvents": doc}  # an execution trace has none: no steps


def _merge(spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[list[float]] = []
    for s, e in sorted(spans):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def _length(spans: list[tuple[float, float]]) -> float:
    return sum(e - s for s, e in spans)


def _minus(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> float:
    """Time in ∪a that ∪b does not cover, testing the middle of every piece between two boundaries."""
    a, b = _merge(a), _merge(b)
    points = sorted({x for s, e in a + b for x in (s, e)})
    a_starts, b_starts = [s for s, _ in a], [s for s, _ in b]

    def covered(spans: list[tuple[float, float]], starts: list[float], x: float) -> bool:
        k = bisect_right(starts, x) - 1
        return k >= 0 and x < spans[k][1]

    total = 0.0
    for lo, hi in zip(points, points[1:], strict=False):
        mid = (lo + hi) / 2
        if covered(a, a_starts, mid) and not covered(b, b_starts, mid):
            total += hi - lo
    return total


def _size(ops: list[dict]) -> int | None:
    """Bytes of a bucket from the ops enclosing or enclosed by its launch (see the module doc)."""
    by_name = defaultdict(list)
    for op in ops:
        by_name[op["name"].split(" ")[0]].append(op.get("args", {}))
    for args in by_name["record_param_comms"]:
        n, dtype = args.get("In msg nelems"), args.get("dtype")
        if isinstance(n, int) and dtype in ELEMENT_BYTES:
            return n * ELEMENT_BYTES[dtype]
    for name in ("nccl:all_reduce", "c10d::allreduce_"):
        for args in by_name[name]:
            dims, types = args.get("Input Dims"), args.get("Input type")
            if not (isinstance(dims, list) and dims and isinstance(types, list) and types):
                continue
            shape, dtype = dims[0], types[0]
            if name == "c10d::allreduce_":  # a TensorList: its first tensor
                shape = shape[0] if isinstance(shape, list) and shape and isinstance(shape[0], list) else None
                dtype = None if dtype == "TensorList" else dtype
                dtype = dtype or next((a.get("dtype") for a in by_name["record_param_comms"]), None)
            if shape and all(isinstance(d, int) for d in shape) and dtype in ELEMENT_BYTES:
                return math.prod(shape) * ELEMENT_BYTES[dtype]
    return None


def read(path: str | Path) -> list[RefStep]:
    """Every step of the trace that has a DDP all-reduce kernel and backward compute kernels.

    Parameters
    ----------
    path : str or Path
        A Chrome trace from ``torch.profiler`` (``.json`` or ``.json.gz``).

    Returns
    -------
    list of RefStep
        In step order; steps whose launches have no kernel in the file are left out.
    """
    events = [e for e in load(path).get("traceEvents", []) if isinstance(e, dict) and e.get("ph") == "X"]
    steps = sorted(
        (e for e in events if e.get("name", "").startswith("ProfilerStep#") and e.get("cat") != "gpu_user_annotation"),
        key=lambda e: e["ts"],
    )
    kernels = {e["args"]["correlation"]: e for e in events if e.get("cat") == "kernel" and "correlation" in e["args"]}
    host_cats = ("cpu_op", "user_annotation")
    threads = defaultdict(list)
    for e in events:
        launch = e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e["args"]
        if e.get("cat") in host_cats or launch:
            threads[(e["pid"], e["tid"])].append(e)
    # each launch with the host ops around it (a stack sweep per thread)
    launched: list[tuple[dict, dict, list[dict]]] = []  # (launch, kernel, enclosing ops)
    contents: dict[int, list[dict]] = defaultdict(list)
    for evs in threads.values():
        stack: list[dict] = []
        for e in sorted(evs, key=lambda e: (e["ts"], -e["dur"])):
            while stack and stack[-1]["ts"] + stack[-1]["dur"] < e["ts"] + e.get("dur", 0) - 1e-3:
                stack.pop()
            if e.get("cat") in host_cats:
                for op in stack:
                    if op["name"] == "c10d::allreduce_":
                        contents[id(op)].append(e)  # what the issue holds: nccl:all_reduce, record_param_comms
                stack.append(e)
            elif e["args"]["correlation"] in kernels:
                launched.append((e, kernels[e["args"]["correlation"]], list(stack)))
    out = []
    for step in steps:
        number = int(step["name"].split("#")[1])
        lo, hi = step["ts"], step["ts"] + step["dur"]
        buckets: dict[int, list] = {}
        compute, optimizer = [], []
        for launch, kernel, ops in launched:
            if not lo <= launch["ts"] < hi:
                continue
            names = [op["name"] for op in ops]
            span = (kernel["ts"], kernel["ts"] + kernel["dur"])
            issue = next((op for op in ops if op["name"] == "c10d::allreduce_"), None)
            in_backward = any(n.startswith(BACKWARD) for n in names)
            if issue is not None and in_backward:
                buckets.setdefault(id(issue), [issue, [], [issue, *contents[id(issue)]]])[1].append(span)
            elif in_backward and not any(n.startswith(("c10d::", "nccl:", "record_param_comms")) for n in names):
                compute.append(span)
            elif any(n.startswith("Optimizer.step#") for n in names):
                optimizer.append(span)
        if not buckets or not compute:
            continue
        rows = []
        for _issue, spans, ops in sorted(buckets.values(), key=lambda b: b[0]["ts"]):
            start, end = min(s for s, _ in spans), max(e for _, e in spans)
            rows.append(RefBucket(start, end, _size(ops), len(spans)))
        bwd_start = min(s for s, _ in compute)
        bwd_end = max(e for _, e in compute)
        opt_start = min(s for s, _ in optimizer) if optimizer else None
        high = opt_start if opt_start is not None else math.inf
        comm = [(max(s, bwd_start), min(e, high)) for s, e in ((b.start, b.end) for b in rows)]
        tail = (max(b.end for b in rows) - bwd_end) / 1e3
        out.append(RefStep(number, rows, bwd_start, bwd_end, opt_start, tail, _minus(comm, compute) / 1e3))
    return out
