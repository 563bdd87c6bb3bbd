"""The few trace events the analysis needs, kept compactly while the file streams past.

A Chrome trace from ``torch.profiler`` holds about 240 bytes per event, most of them ATen ops that
say nothing about buckets. :func:`keep` decides from the name and category alone which events to
keep; :class:`Event` holds one of them with only the arguments the analysis reads.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from app.trace.errors import TraceError

BACKWARD_PREFIX = "autograd::engine::evaluate_function: "
"""Every backward node the autograd engine runs is recorded under this prefix."""
OLD_BACKWARD = re.compile(r"^(?:torch::autograd::)?[A-Z][A-Za-z0-9_]*Backward\d*$")
"""A backward node as older profilers name it, bare (``CudnnConvolutionBackward``, ``ReluBackward1``:
the 2020-21 traces in tests/fixtures/traces/real); later ones put :data:`BACKWARD_PREFIX` in front."""
ACCUMULATE_OUTER = BACKWARD_PREFIX + "torch::autograd::AccumulateGrad"
"""The backward node that writes one parameter's gradient (and runs DDP's hook)."""
ACCUMULATE_INNER = "torch::autograd::AccumulateGrad"
"""The accumulation itself, nested in :data:`ACCUMULATE_OUTER`; its input is the gradient."""
ALLREDUCE_OP = "c10d::allreduce_"
"""The dispatcher op a DDP bucket's all-reduce is issued through (gloo and NCCL)."""
PARAM_COMMS = "record_param_comms"
"""c10d's annotation of a collective with its size, dtype and group (NCCL, some gloo builds)."""
GLOO_ALLREDUCE = "gloo:all_reduce"
"""The all-reduce as the gloo worker thread runs it."""
OPTIMIZER_STEP = "Optimizer.step#"
"""Prefix of the optimizer step annotation, e.g. ``Optimizer.step#SGD.step``."""
PROFILER_STEP = "ProfilerStep#"
"""Prefix of the step annotation ``profile(schedule=...)`` writes."""
FLOW_CATEGORIES = ("ac2g", "async_cpu_to_gpu")
"""Flow categories joining a kernel launch to its kernel (the second one before late 2022)."""
FSDP_MARKERS = (
    "_allgather_base",
    "allgather_into_tensor_coalesced",
    "_reduce_scatter_base",
    "reduce_scatter_tensor_coalesced",
    "FullyShardedDataParallel.",
    "FSDP::",
)
"""Names (as substrings) that only FSDP traces show."""

GPU_CATEGORIES = ("kernel", "gpu_user_annotation", "gpu_memcpy", "gpu_memset")
"""Categories of events that ran on a GPU stream rather than a host thread."""
OLD_KERNEL_CATEGORY = "Kernel"
"""What Kineto called a GPU kernel's category in 2020-21 (PyTorch 1.8); kept only to tell one GPU apart."""

ARG_KEYS = (
    "External id",
    "correlation",
    "Input Dims",
    "Input type",
    "In msg nelems",
    "Out msg nelems",
    "dtype",
    "Collective name",
    "Group size",
    "Process Group Name",
    "Process Group ID",
    "Seq",
    "stream",
    "device",
)
"""The only arguments kept."""
KEPT_TEXT = 256
"""The longest string an event keeps (a name of a dtype, a process group, a stream)."""
KEPT_ITEMS = 256
"""The most list items, all levels counted, one kept argument may have (``Input Dims``: tensors, then dimensions)."""
EVENT_COST = 700
"""About the bytes a kept event with a few arguments takes (670 measured on a real trace's kept events)."""
ITEM_COST = 16
"""About the bytes one kept list item takes (its pointer, and its share of the list and its number)."""

DTYPE_BYTES = {
    "float": 4, "float32": 4, "Float": 4, "c10::Float": 4,
    "double": 8, "float64": 8, "Double": 8,
    "half": 2, "float16": 2, "Half": 2, "c10::Half": 2,
    "bfloat16": 2, "BFloat16": 2, "c10::BFloat16": 2,
    "long": 8, "int64": 8, "Long": 8, "long int": 8,
    "int": 4, "int32": 4, "Int": 4,
    "short": 2, "int16": 2, "Short": 2,
    "signed char": 1, "int8": 1, "Char": 1, "unsigned char": 1, "uint8": 1, "Byte": 1,
    "bool": 1, "Bool": 1,
    "float8_e4m3fn": 1, "Float8_e4m3fn": 1, "float8_e5m2": 1, "Float8_e5m2": 1,
}  # fmt: skip
"""Bytes per element for the dtype names traces write (ATen's, c10d's and torch's spellings)."""
FLOAT_DTYPES = frozenset(
    name for name in DTYPE_BYTES if any(w in name.lower() for w in ("float", "double", "half", "bfloat16"))
)
"""The floating-point dtypes: gradient buckets have one of them."""


def is_comm_name(name: str) -> bool:
    """Whether a name belongs to a collective or to c10d (kept whatever its category).

    Parameters
    ----------
    name : str
        An event's name.

    Returns
    -------
    bool
        True for c10d ops, ``record_param_comms``, gloo and NCCL ranges and FSDP markers.
    """
    return name.startswith(("c10d::", "gloo:", "nccl:", "record_param_comms")) or any(
        marker in name for marker in FSDP_MARKERS
    )


def keep(name: str, cat: str) -> bool:
    """Whether the analysis needs an event of this name and category.

    Parameters
    ----------
    name, cat : str
        The event's name and category.

    Returns
    -------
    bool
        True for backward nodes, accumulations, steps, optimizer annotations, collectives, GPU
        kernels and kernel launches.
    """
    if cat in ("kernel", "gpu_user_annotation", OLD_KERNEL_CATEGORY):
        return True
    if cat == "cuda_runtime" or cat == "cuda_driver":
        return "Launch" in name
    return (
        name.startswith((BACKWARD_PREFIX, PROFILER_STEP, "Optimizer.", "DistributedDataParallel.forward"))
        or name == ACCUMULATE_INNER
        or is_comm_name(name)
        or OLD_BACKWARD.match(name) is not None
    )


class Event:
    """One kept event: a complete event (``ph`` X) or one end of a flow (``s`` / ``f``).

    Parameters
    ----------
    order : int
        Its position among the file's events.
    ph, name, cat : str
        Phase, name and category.
    pid, tid : object
        Process and thread (or device and stream), as the trace gives them.
    ts, dur : float
        Start and duration in µs (``dur`` 0 for flows).
    args : dict
        The arguments in :data:`ARG_KEYS` that it has.
    flow_id : object
        A flow's id (None for complete events).
    """

    __slots__ = ("order", "ph", "name", "cat", "pid", "tid", "ts", "dur", "args", "flow_id")

    def __init__(
        self,
        order: int,
        ph: str,
        name: str,
        cat: str,
        pid: object,
        tid: object,
        ts: float,
        dur: float,
        args: dict,
        flow_id: object = None,
    ) -> None:
        self.order = order
        self.ph = ph
        self.name = name
        self.cat = cat
        self.pid = pid
        self.tid = tid
        self.ts = ts
        self.dur = dur
        self.args = args
        self.flow_id = flow_id

    @property
    def end(self) -> float:
        """Where it ends, in µs."""
        return self.ts + self.dur

    @property
    def thread(self) -> tuple[object, object]:
        """``(pid, tid)``: the thread or stream it ran on."""
        return (self.pid, self.tid)

    def __repr__(self) -> str:
        return f"Event({self.name!r}, ts={self.ts}, dur={self.dur}, tid={self.tid!r})"


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:  # an integer beyond a float's range is no time
        return None
    return number if number == number and abs(number) != float("inf") else None


def compact(raw: object, order: int) -> Event | None:
    """The kept form of one raw event from the file, or None if the analysis does not need it.

    Parameters
    ----------
    raw : object
        The decoded JSON value of one element of ``traceEvents``.
    order : int
        Its position in the file.

    Returns
    -------
    Event or None
        The event, or None when it is not one :func:`keep` wants (or not an object at all).

    Raises
    ------
    TraceError
        If an event the analysis needs lacks a number for ``ts`` or ``dur``.
    """
    if not isinstance(raw, dict):
        return None
    ph = raw.get("ph")
    name = raw.get("name")
    if not isinstance(name, str) or ph not in ("X", "s", "f"):
        return None
    cat = raw.get("cat")
    cat = cat if isinstance(cat, str) else ""
    if ph == "X":
        if not keep(name, cat):
            return None
    elif cat not in FLOW_CATEGORIES:
        return None
    ts = _number(raw.get("ts"))
    dur = _number(raw.get("dur")) if ph == "X" else 0.0
    if ts is None or dur is None or dur < 0:
        field = "ts" if ts is None else "dur"
        raise TraceError(f"event {order} ({name[:60]!r}) has no valid {field!r}, so the trace cannot be timed")
    args = raw.get("args")
    kept = {k: args[k] for k in ARG_KEYS if k in args and _small(args[k])} if isinstance(args, dict) else {}
    pid, tid, flow = (value if _small(value, 0) else None for value in (raw.get("pid"), raw.get("tid"), raw.get("id")))
    return Event(order, ph, sys.intern(name), sys.intern(cat), pid, tid, ts, dur, kept, flow)


def _small(value: object, depth: int = 3) -> bool:
    """Whether a value is small enough to keep: a number, a short string, or short lists ``depth`` deep.

    A TensorList's shapes (``Input Dims`` of ``c10d::allreduce_``) are three lists deep. An argument
    is kept with its event for as long as the trace is shown, so a list of millions of dimensions in
    one event's ``Input Dims`` is dropped (read as absent), not kept: a real one lists a few tensors
    of a few dimensions.
    """
    return _left(value, depth, KEPT_ITEMS) >= 0


def _left(value: object, depth: int, budget: int) -> int:
    """``budget`` less the list items in ``value`` (all levels), or -1 past it or past ``depth``."""
    if value is None or isinstance(value, bool | int | float):
        return budget
    if isinstance(value, str):
        return budget if len(value) <= KEPT_TEXT else -1
    if not isinstance(value, list) or depth == 0 or len(value) > budget:
        return -1
    budget -= len(value)
    for item in value:
        budget = _left(item, depth - 1, budget)
        if budget < 0:
            return -1
    return budget


def kept_cost(event: Event) -> int:
    """About how many bytes of memory a kept event takes (measured: 670 for a real trace's mix).

    Parameters
    ----------
    event : Event
        As :func:`compact` made it.

    Returns
    -------
    int
        :data:`EVENT_COST` plus each kept argument's list items and characters.
    """
    cost = EVENT_COST
    for value in event.args.values():
        if isinstance(value, str):
            cost += len(value)
        elif isinstance(value, list):
            cost += ITEM_COST * (KEPT_ITEMS - _left(value, 3, KEPT_ITEMS))
    return cost
