"""Pair each issued all-reduce with the collective as it ran, by the links the trace has.

gloo (CPU): the worker thread's ``gloo:all_reduce`` shares no id with the issue; the runs are
taken in time order, each issue getting the next unused run that started after it, checked by
size where both sizes are known.

NCCL (CUDA), in this order, the first link found wins:

1. ``External id``: the ``record_param_comms`` nested in the issue and the kernel carry the same.
2. ``correlation``: a kernel launch nested in the issue and the kernel carry the same.
3. ``ac2g`` flow (``async_cpu_to_gpu`` before late 2022): a flow start on the issuing thread within
   the issue, its finish at the kernel's start on the kernel's stream.
4. Order: the next unused NCCL all-reduce kernel that started after the issue, checked by size;
   only when the issue launched nothing with a ``correlation``: a launch whose kernel is not in the
   file (a truncated trace, a trace stopped before the GPU got there) means the run is missing, and
   another kernel must not stand for it.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import defaultdict

from app.trace.errors import TraceError
from app.trace.events import DTYPE_BYTES, FLOW_CATEGORIES, PARAM_COMMS, Event

MAX_ELEMENTS = 2**40
"""The most elements a collective's tensor may be said to have (4 TiB of float32; a DDP bucket is megabytes):
a larger ``In msg nelems`` or ``Input Dims`` is refused before it sizes a bucket or a bar."""

NCCL_ALLREDUCE = re.compile(r"^nccl(Dev|SymkDev)?Kernel_(AllReduce|Generic)", re.IGNORECASE)
"""NCCL kernels named as an all-reduce (``ncclDevKernel_Generic`` too, as newer NCCL and RCCL name them,
and NCCL 2.27's symmetric ``ncclSymkDevKernel_AllReduce_*``): only these are paired by order alone."""
NCCL_ANY = re.compile(r"^(nccl|rccl)", re.IGNORECASE)
"""Every NCCL or RCCL kernel (HTA's rule for communication kernels). A kernel linked to an issued
all-reduce is accepted whatever its name: some deployments run one as ``ncclKernel_SendRecv_*``."""


def nested(outer: Event, inner: Event) -> bool:
    """Whether ``inner`` lies within ``outer`` on the same thread.

    Parameters
    ----------
    outer, inner : Event
        Two events.

    Returns
    -------
    bool
        Same pid and tid, and ``inner`` inside ``outer``'s span.
    """
    return outer.thread == inner.thread and outer.ts <= inner.ts and inner.end <= outer.end + 1e-3


def first_dims(ev: Event) -> list | None:
    """The first input's shape from ``Input Dims`` (a TensorList's first tensor), or None."""
    dims = ev.args.get("Input Dims")
    while isinstance(dims, list) and dims and isinstance(dims[0], list):
        if all(isinstance(x, int) for x in dims[0]):
            # an empty shape: in 2022-23 traces c10d::allreduce_ has Input Dims [[], [], [], []], and its
            # size is unknown there (it is on the nested nccl:all_reduce), not one element
            return dims[0] or None
        dims = dims[0]
    return None


def numel_of(ev: Event | None) -> int | None:
    """Elements of the collective's tensor: ``In msg nelems``, else the first input's shape.

    Parameters
    ----------
    ev : Event or None
        An issue, a ``record_param_comms``, a gloo run or a kernel.

    Returns
    -------
    int or None
        The element count, or None where the trace does not say.
    """
    if ev is None:
        return None
    nelems = ev.args.get("In msg nelems")
    if isinstance(nelems, int) and not isinstance(nelems, bool) and nelems >= 0:
        if nelems > MAX_ELEMENTS:
            raise TraceError(f"In msg nelems {nelems} is more than this page reads (at most {MAX_ELEMENTS})")
        return nelems
    dims = first_dims(ev)
    if dims is not None:
        count = 1
        for d in dims:
            count *= d
            if count > MAX_ELEMENTS or d < 0:  # checked at each factor: a long list is never multiplied out
                shown = dims[:8]
                raise TraceError(f"Input Dims {shown} is more elements than this page reads (at most {MAX_ELEMENTS})")
        return count
    return None


def dtype_of(ev: Event | None) -> str | None:
    """The element type's name (``dtype``, else the first ``Input type``) when it has a known size."""
    if ev is None:
        return None
    name = ev.args.get("dtype")
    if not isinstance(name, str):
        types = ev.args.get("Input type")
        name = types[0] if isinstance(types, list) and types and isinstance(types[0], str) else None
    return name if name in DTYPE_BYTES else None


def pair_gloo(issues: list[Event], runs: list[Event]) -> dict[int, tuple[Event, str]]:
    """Pair issues with ``gloo:all_reduce`` runs in time order, checked by size.

    Parameters
    ----------
    issues : list of Event
        Every issued all-reduce in the trace.
    runs : list of Event
        Every ``gloo:all_reduce`` in the trace.

    Returns
    -------
    dict
        ``id(issue) -> (run, how)``, ``how`` being ``"gloo order, size checked"`` or ``"gloo order"``.
    """
    runs = sorted(runs, key=lambda r: r.ts)
    used = [False] * len(runs)
    out: dict[int, tuple[Event, str]] = {}
    starts = [r.ts for r in runs]
    for issue in sorted(issues, key=lambda e: e.ts):
        want = numel_of(issue)
        for k in range(bisect_left(starts, issue.ts), len(runs)):
            if used[k]:
                continue
            have = numel_of(runs[k])
            if want is not None and have is not None and want != have:
                continue
            used[k] = True
            out[id(issue)] = (
                runs[k],
                "gloo order, size checked" if want is not None and have is not None else "gloo order",
            )
            break
    return out


class NcclLinks:
    """The NCCL kernels of a trace indexed by every link a kernel can have.

    Parameters
    ----------
    events : list of Event
        The kept events.
    """

    def __init__(self, events: list[Event]) -> None:
        linkable = [e for e in events if e.ph == "X" and e.cat == "kernel" and NCCL_ANY.match(e.name)]
        self.kernels = sorted((e for e in linkable if NCCL_ALLREDUCE.match(e.name)), key=lambda e: e.ts)
        self.by_external: dict[object, Event] = {}
        self.by_correlation: dict[object, Event] = {}
        self.by_place: dict[tuple, Event] = {}
        for k in linkable:
            # before 2023 a kernel's External id is its correlation, not its record_param_comms's
            if "External id" in k.args and k.args["External id"] != k.args.get("correlation"):
                self.by_external.setdefault(k.args["External id"], k)
            if "correlation" in k.args:
                self.by_correlation.setdefault(k.args["correlation"], k)
            self.by_place[(k.pid, k.tid, k.ts)] = k
        self.launches = defaultdict(list)
        for e in events:
            if e.ph == "X" and e.cat in ("cuda_runtime", "cuda_driver"):
                self.launches[e.thread].append(e)
        self.flow_starts = defaultdict(list)
        self.flow_ends: dict[object, Event] = {}
        for e in events:
            if e.cat in FLOW_CATEGORIES:
                if e.ph == "s":
                    self.flow_starts[e.thread].append(e)
                elif e.ph == "f":
                    self.flow_ends[e.flow_id] = e
        for lists in (self.launches, self.flow_starts):
            for key in lists:
                lists[key].sort(key=lambda e: e.ts)
        self.launch_ts = {k: [e.ts for e in v] for k, v in self.launches.items()}
        self.flow_ts = {k: [e.ts for e in v] for k, v in self.flow_starts.items()}
        self.used: set[int] = set()
        self.starts = [k.ts for k in self.kernels]

    def _free(self, kernel: Event | None) -> Event | None:
        return kernel if kernel is not None and id(kernel) not in self.used else None

    def find(self, issue: Event, comms: Event | None) -> tuple[Event, str] | None:
        """The kernel that ran this issue's all-reduce, and which link found it.

        Parameters
        ----------
        issue : Event
            The ``c10d::allreduce_`` (or a lone ``record_param_comms``).
        comms : Event or None
            The ``record_param_comms`` nested in it.

        Returns
        -------
        tuple or None
            ``(kernel, how)``, or None when no link and no kernel in order is found.
        """
        found = None
        if comms is not None and "External id" in comms.args:
            kernel = self._free(self.by_external.get(comms.args["External id"]))
            found = (kernel, "External id") if kernel else None
        launched = False  # the issue launched a kernel the trace can name (whether or not it is in the file)
        if found is None:
            launches = self.launches.get(issue.thread, [])
            ts = self.launch_ts.get(issue.thread, [])
            for launch in launches[bisect_left(ts, issue.ts) : bisect_right(ts, issue.end)]:
                if nested(issue, launch) and "correlation" in launch.args:
                    launched = True
                    kernel = self._free(self.by_correlation.get(launch.args["correlation"]))
                    if kernel:
                        found = (kernel, "correlation")
                        break
        if found is None:
            flows = self.flow_starts.get(issue.thread, [])
            ts = self.flow_ts.get(issue.thread, [])
            for flow in flows[bisect_left(ts, issue.ts) : bisect_right(ts, issue.end)]:
                if issue.ts <= flow.ts <= issue.end and flow.flow_id in self.flow_ends:
                    end = self.flow_ends[flow.flow_id]
                    kernel = self._free(self.by_place.get((end.pid, end.tid, end.ts)))
                    if kernel:
                        found = (kernel, "ac2g flow")
                        break
        if found is None and not launched:  # a launch whose kernel is not in the file: it is missing
            want = numel_of(comms) or numel_of(issue)
            for k in range(bisect_left(self.starts, issue.ts), len(self.kernels)):
                kernel = self.kernels[k]
                have = numel_of(kernel)
                if id(kernel) in self.used or (want is not None and have is not None and want != have):
                    continue
                found = (kernel, "order" + (", size checked" if want is not None and have is not None else ""))
                break
        if found is not None:
            self.used.add(id(found[0]))
        return found


def param_comms_in(issue: Event, comms: list[Event]) -> Event | None:
    """The ``record_param_comms`` nested in an issue (the issue itself if it is one), or None."""
    if issue.name.startswith(PARAM_COMMS):
        return issue
    for c in comms:
        if nested(issue, c):
            return c
    return None
