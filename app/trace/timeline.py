"""One rank's step read as the bucket timeline: backward compute, each bucket's four times, the optimizer.

:class:`StepReader` reads a step's buckets and optimizer into a :class:`StepTimeline` (the data classes are in
:mod:`app.trace.step_timeline`, backward compute's reading in :mod:`app.trace.compute`).

Definitions (times in µs on the trace's clock inside, ms relative to the step's start outside):

- **Issue**: a ``c10d::allreduce_`` nested in a backward node (DDP issues a bucket from the hook of
  its last gradient's ``AccumulateGrad``). Fallbacks, in order: any ``c10d::allreduce_`` between
  the first backward node and the optimizer; a ``record_param_comms`` with ``Collective name``
  ``allreduce`` there.
- **Ready**: the end of the last ``torch::autograd::AccumulateGrad`` (the accumulation itself) on
  the issuing thread that ended before the issue. Fallbacks: the end of the last backward
  ``AccumulateGrad`` node that ended before it; the issue itself.
- **Start, end**: the collective as it ran (see :mod:`app.trace.links`). When no run is found the
  bucket is not ``measured``: its issue's own span is kept for drawing, and the step's tail and
  exposed communication are unknown (None), never a host-clock figure shown as a GPU one.
- **Bytes**: elements × the dtype's size, the elements from ``record_param_comms``'s ``In msg
  nelems``, else the nested ``nccl:all_reduce``'s ``Input Dims`` (2022-23 traces give
  ``c10d::allreduce_`` empty dims), else the issue's first input, else the kernel's args. An empty
  or absent shape is unknown (None), never one element.
- **Gradients**: the shapes of the accumulations since the previous issue, when their elements add
  up to the bucket's (otherwise the trace does not say which gradients a bucket holds).
- **Backward compute**: on a GPU trace, the non-NCCL kernels launched (by ``correlation``) from
  inside one of the step's backward nodes, wherever they ran on the GPU clock: the GPU often runs a
  step or more behind the host (fallback, for a trace without launch links: every non-NCCL kernel
  between backward's start and the optimizer); on a CPU trace, each top-level backward node on the
  autograd thread, cut at the first collective issued inside it (on gloo the autograd thread can
  wait there until the all-reduce has run).
- **Optimizer start**: on a GPU trace, the ``Optimizer.step#...`` GPU annotation with the host
  step's ``External id``, else the first kernel the host's ``Optimizer.step#...`` launched (traces
  before 2024 have no GPU annotation), else the host's; on a CPU trace, the host's.
- A run linked to its issue (``External id``, ``correlation``, flow) is this step's wherever it ran.
  A run paired by order alone must start before the step ends (on a GPU, before one more step's
  length): otherwise it is a later step's and this issue's run is missing.
- An all-reduce of integers is DDP's map of used parameters (``find_unused_parameters=True``, an
  int32 tensor with one element per parameter, seen in torch 2.13 traces) and is left out; on
  PrivateUse1 devices DDP makes that map float, and it would then be counted as a bucket.
- **Tail** = last all-reduce end − end of backward compute. **Exposed communication** = time in
  the union of the all-reduces, clipped to [backward start, optimizer start], not covered by the
  union of backward compute. **Step time**: the step's span.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

import numpy as np

from app.trace.compute import BackwardCompute
from app.trace.errors import TraceError
from app.trace.events import (
    ACCUMULATE_INNER,
    ACCUMULATE_OUTER,
    ALLREDUCE_OP,
    BACKWARD_PREFIX,
    DTYPE_BYTES,
    FLOAT_DTYPES,
    GPU_CATEGORIES,
    OPTIMIZER_STEP,
    PARAM_COMMS,
    Event,
    is_comm_name,
)
from app.trace.links import NCCL_ANY, NcclLinks, dtype_of, first_dims, nested, numel_of, pair_gloo, param_comms_in
from app.trace.step_timeline import BucketRun, StepTimeline
from app.trace.steps import Step

__all__ = ["NCCL_RANGE", "BucketRun", "StepReader", "StepTimeline", "collectives_named"]

NCCL_RANGE = "nccl:all_reduce"
"""The range c10d's NCCL backend records inside ``c10d::allreduce_``, with the tensor's shape and type."""


def _host(ev: Event) -> bool:
    return ev.ph == "X" and ev.cat not in GPU_CATEGORIES and ev.cat not in ("cuda_runtime", "cuda_driver")


class StepReader(BackwardCompute):
    """Reads steps of one trace; built once per trace, it indexes the events the steps share.

    Parameters
    ----------
    events : list of Event
        The kept events.
    backend : str or None
        From ``distributedInfo``, if any.
    """

    def __init__(self, events: list[Event], backend: str | None) -> None:
        self.events = sorted(events, key=lambda e: (e.ts, e.order))
        self.host = [e for e in self.events if _host(e)]
        self.all_issues = [e for e in self.host if e.name == ALLREDUCE_OP]
        self.comms = [e for e in self.host if e.name.startswith(PARAM_COMMS)]
        self.gloo_runs = [e for e in self.events if e.ph == "X" and e.name == "gloo:all_reduce"]
        self.nccl_kernels = [e for e in self.events if e.ph == "X" and e.cat == "kernel" and NCCL_ANY.match(e.name)]
        self.compute_kernels = [
            e for e in self.events if e.ph == "X" and e.cat == "kernel" and not NCCL_ANY.match(e.name)
        ]
        self.launch_of = {}
        self.launches_by_thread: dict[tuple, list[Event]] = {}
        for e in self.events:
            if e.ph == "X" and e.cat in ("cuda_runtime", "cuda_driver") and "correlation" in e.args:
                self.launch_of[e.args["correlation"]] = e
                self.launches_by_thread.setdefault(e.thread, []).append(e)
        self.launch_ts_by_thread = {k: [e.ts for e in v] for k, v in self.launches_by_thread.items()}
        self.compute_by_correlation = {
            e.args["correlation"]: e for e in self.compute_kernels if "correlation" in e.args
        }
        if backend:
            self.backend = backend
        elif self.nccl_kernels:
            self.backend = "nccl"
        elif self.gloo_runs:
            self.backend = "gloo"
        else:
            self.backend = "unknown"
        self.gpu = bool(self.nccl_kernels or self.compute_kernels) and not self.gloo_runs
        self.host_ts = [e.ts for e in self.host]
        self.issue_op_ts = [e.ts for e in self.all_issues]
        self.comm_ts = [e.ts for e in self.comms]
        self.nccl_ranges = [e for e in self.host if e.name.startswith(NCCL_RANGE)]
        self.nccl_range_ts = [e.ts for e in self.nccl_ranges]
        lone = [c for c in self.comms if c.args.get("Collective name") == "allreduce"]
        lone = [c for c in lone if not any(nested(i, c) for i in self._around(c))]
        self.issues_everywhere = sorted(self.all_issues + lone, key=lambda e: e.ts)
        self.issue_ts = [e.ts for e in self.issues_everywhere]
        self.issues_by_thread: dict[tuple, list[Event]] = {}
        for e in self.issues_everywhere:
            self.issues_by_thread.setdefault(e.thread, []).append(e)
        self.issue_ts_by_thread = {k: [e.ts for e in v] for k, v in self.issues_by_thread.items()}
        self.gpu_optimizers = [
            e for e in self.events if e.cat == "gpu_user_annotation" and e.name.startswith(OPTIMIZER_STEP)
        ]
        self.gpu_optimizer_ts = [e.ts for e in self.gpu_optimizers]
        self.gpu_optimizer_by_external = {
            e.args["External id"]: e for e in self.gpu_optimizers if "External id" in e.args
        }
        self.kernel_ts = [e.ts for e in self.compute_kernels]
        self.gloo_pairs = pair_gloo(self.issues_everywhere, self.gloo_runs)
        self.nccl = NcclLinks(self.events) if self.nccl_kernels else None
        self.nccl_pairs: dict[int, tuple[Event, str]] = {}
        if self.nccl is not None:
            for issue in self.issues_everywhere:
                found = self.nccl.find(issue, param_comms_in(issue, self._comms_near(issue)))
                if found is not None:
                    self.nccl_pairs[id(issue)] = found

    def _around(self, ev: Event) -> list[Event]:
        """The issues that began shortly before ``ev`` (those that can hold it)."""
        k = bisect_right(self.issue_op_ts, ev.ts)
        return [i for i in self.all_issues[max(0, k - 8) : k] if i.ts <= ev.ts <= i.end and i.thread == ev.thread]

    def _nccl_range_in(self, issue: Event) -> Event | None:
        """The ``nccl:all_reduce`` range nested in an issue (it has the size when the issue's dims are empty)."""
        lo, hi = bisect_left(self.nccl_range_ts, issue.ts), bisect_right(self.nccl_range_ts, issue.end)
        return next((r for r in self.nccl_ranges[lo:hi] if nested(issue, r)), None)

    def _comms_near(self, issue: Event) -> list[Event]:
        """The ``record_param_comms`` that began within the issue on its thread."""
        lo, hi = bisect_left(self.comm_ts, issue.ts), bisect_right(self.comm_ts, issue.end)
        return [c for c in self.comms[lo:hi] if c.thread == issue.thread]

    def read(
        self, step: Step, rank: int | None, world_size: int | None, base_ns: int, strict: bool = False
    ) -> StepTimeline:
        """The timeline of one step.

        Parameters
        ----------
        step : Step
            The step.
        rank, world_size : int or None
            Carried into the result.
        base_ns : int
            ``baseTimeNanoseconds``.
        strict : bool
            Refuse fallbacks for the collective's run (used on truncated files).

        Returns
        -------
        StepTimeline
            The step read.

        Raises
        ------
        TraceError
            If the step has no backward, no DDP all-reduce, or (strict) a collective whose run is missing.
        """
        notes: list[str] = []
        inside = self.host[bisect_left(self.host_ts, step.start) : bisect_left(self.host_ts, step.end)]
        nodes = [e for e in inside if e.name.startswith(BACKWARD_PREFIX)]
        if not nodes:
            raise TraceError(f"{step.label} has no backward pass (no autograd::engine::evaluate_function events)")
        first_node = min(e.ts for e in nodes)
        host_opt = next((e for e in inside if e.name.startswith(OPTIMIZER_STEP) and e.ts >= first_node), None)
        window_end = host_opt.ts if host_opt is not None else step.end
        if host_opt is None and strict:
            raise TraceError(f"the file is cut before {step.label}'s optimizer step")
        if host_opt is None:
            notes.append(f"{step.label} has no Optimizer.step#... after its backward: the step's end stands for it")
        nodes = [e for e in nodes if e.ts < window_end]
        during = self.issues_everywhere[bisect_left(self.issue_ts, first_node) : bisect_left(self.issue_ts, window_end)]
        issues = [i for i in during if any(nested(n, i) for n in nodes if n.thread == i.thread)]
        if not issues:
            issues = during
            if issues:
                notes.append("no all-reduce was issued from inside a backward node: took those issued during backward")
        maps = [i for i in issues if self._integer(i)]
        if maps:
            issues = [i for i in issues if not self._integer(i)]
            notes.append(
                f"left out {len(maps)} all-reduce(s) of integers: DDP's map of used parameters "
                "(find_unused_parameters=True), not a gradient bucket"
            )
        if not issues:
            raise TraceError(f"no DDP all-reduce found in {step.label} (no c10d::allreduce_ during its backward)")
        thread = issues[0].thread
        accum = sorted((e for e in inside if e.name == ACCUMULATE_INNER and e.thread == thread), key=lambda e: e.end)
        outer = sorted((e for e in nodes if e.name == ACCUMULATE_OUTER and e.thread == thread), key=lambda e: e.end)
        accum_ends = [e.end for e in accum]
        outer_ends = [e.end for e in outer]
        buckets: list[BucketRun] = []
        previous_issue = first_node
        for index, issue in enumerate(issues):
            comms = param_comms_in(issue, self._comms_near(issue))
            k = bisect_right(accum_ends, issue.ts)
            if k:
                ready, ready_from = accum[k - 1].end, ACCUMULATE_INNER
            elif (j := bisect_right(outer_ends, issue.ts)) > 0:
                ready, ready_from = outer[j - 1].end, ACCUMULATE_OUTER
            else:
                ready, ready_from = issue.ts, "the issue (no AccumulateGrad before it)"
            run, link = self._run(issue)
            if (
                run is not None
                and link.startswith(("order", "gloo"))
                and run.ts >= step.end + (step.duration if self.gpu else 0.0)
            ):
                run = None  # paired by order alone with a later step's run: this one's is missing
            if run is None:
                if strict:
                    raise TraceError(f"the run of {step.label}'s all-reduce {index} is missing from the file")
                start, end = issue.ts, issue.end
                link = "none found"
                kind = "kernel is linked to it" if self.gpu else "collective run is found for it"
                notes.append(
                    f"bucket {index}: no {kind}, so its time is unknown and so are the tail and the exposed "
                    "communication (its issue's host span is drawn in its place)"
                )
            else:
                start, end = run.ts, run.end
            nccl_range = self._nccl_range_in(issue)
            numel = numel_of(comms) or numel_of(nccl_range) or numel_of(issue) or numel_of(run)
            grads = [a for a in accum if previous_issue < a.end <= issue.ts]
            shapes = [tuple(d) for d in (first_dims(a) for a in grads) if d is not None]
            dtype = dtype_of(comms) or dtype_of(nccl_range) or dtype_of(run) or (dtype_of(grads[0]) if grads else None)
            gradients = None
            if len(shapes) == len(grads) and shapes:
                total = sum(int(np.prod(s)) for s in shapes)
                if numel is None or total == numel:
                    gradients = tuple(shapes)
                    numel = total if numel is None else numel
            nbytes = numel * DTYPE_BYTES[dtype] if numel is not None and dtype is not None else None
            buckets.append(
                BucketRun(
                    index,
                    numel,
                    dtype,
                    nbytes,
                    gradients,
                    ready,
                    issue.ts,
                    start,
                    end,
                    ready_from,
                    link,
                    measured=run is not None,
                )
            )
            previous_issue = issue.ts
        compute, bwd_start, opt_start, opt_from = self._compute(nodes, thread, first_node, host_opt, window_end, step)
        if len(compute) == 0:
            raise TraceError(f"{step.label} has no backward compute to measure")
        if self.gpu and self.compute_kernels and opt_from.startswith("Optimizer.step (host"):
            if strict:  # the optimizer runs after backward on the GPU: without it backward may be cut short
                raise TraceError(f"the file is cut before {step.label}'s optimizer ran on the GPU")
            notes.append(
                "the optimizer's start on the GPU is not in the trace (no GPU annotation or kernel is linked to "
                "Optimizer.step), so the host's stands for it"
            )
        return StepTimeline(
            step=step,
            rank=rank,
            world_size=world_size,
            backend=self.backend,
            backward_start=bwd_start,
            backward_end=float(compute[-1, 1]),
            optimizer_start=opt_start,
            optimizer_from=opt_from,
            compute=compute,
            buckets=tuple(buckets),
            base_ns=base_ns,
            notes=tuple(notes),
            on_gpu=bool(self.gpu and self.compute_kernels),
        )

    def _integer(self, issue: Event) -> bool:
        """Whether an all-reduce reduces integers (DDP's used-parameter map), by its comms or run."""
        run, _ = self._run(issue)
        comms = param_comms_in(issue, self._comms_near(issue))
        dtype = dtype_of(comms) or dtype_of(self._nccl_range_in(issue)) or dtype_of(run)
        return dtype is not None and dtype not in FLOAT_DTYPES

    def _run(self, issue: Event) -> tuple[Event | None, str]:
        pair = self.nccl_pairs.get(id(issue)) or self.gloo_pairs.get(id(issue))
        return pair if pair is not None else (None, "")


def collectives_named(events: list[Event]) -> list[str]:
    """The distinct collective names in a trace (c10d ops, gloo and NCCL ranges), sorted.

    Parameters
    ----------
    events : list of Event
        The kept events.

    Returns
    -------
    list of str
        Names such as ``c10d::_reduce_scatter_base_``.
    """
    names = {
        e.name
        for e in events
        if e.ph == "X" and is_comm_name(e.name) and e.name.startswith(("c10d::", "gloo:", "nccl:"))
    }
    names |= {
        f"record_param_comms {e.args['Collective name']}"
        for e in events
        if e.name.startswith(PARAM_COMMS) and isinstance(e.args.get("Collective name"), str)
    }
    return sorted(names)
