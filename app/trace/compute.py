"""Backward compute and the optimizer's start of one step, read from a trace's indexed events.

On a GPU trace, the kernels a backward node launched (by ``correlation``), wherever they ran, and
the optimizer's start on the device; on a CPU trace, each top-level backward node on the autograd
thread, cut at the first collective issued inside it (see the definitions in
:mod:`app.trace.timeline`). :class:`BackwardCompute` is a mixin of :class:`app.trace.timeline.StepReader`,
whose index of the trace's events (launches, kernels, issues, ``record_param_comms``) it reads.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

import numpy as np

from app.trace import intervals
from app.trace.events import Event
from app.trace.steps import Step

__all__ = ["BackwardCompute"]


def _top_level(nodes: list[Event]) -> list[Event]:
    """Backward nodes not nested in another one on the same thread."""
    out, reach = [], {}
    for node in sorted(nodes, key=lambda e: (e.ts, -e.dur)):
        if node.ts < reach.get(node.thread, float("-inf")):
            continue
        out.append(node)
        reach[node.thread] = node.end
    return out


class BackwardCompute:
    """Reads backward compute and the optimizer's start; a mixin of :class:`app.trace.timeline.StepReader`.

    It reads the reader's index: ``launches_by_thread``, ``launch_ts_by_thread``,
    ``compute_by_correlation``, ``compute_kernels``, ``kernel_ts``, ``gpu``,
    ``gpu_optimizer_by_external``, ``issues_by_thread``, ``issue_ts_by_thread``, ``comms`` and ``comm_ts``.
    """

    def launched(self, op: Event) -> list[Event]:
        """The compute kernels launched from inside a host op (by ``correlation``), wherever they ran.

        Parameters
        ----------
        op : Event
            A host op (a backward node, the optimizer step).

        Returns
        -------
        list of Event
            Its kernels, in launch order; communication kernels are not included.
        """
        launches = self.launches_by_thread.get(op.thread, [])
        ts = self.launch_ts_by_thread.get(op.thread, [])
        found = []
        for launch in launches[bisect_left(ts, op.ts) : bisect_right(ts, op.end)]:
            if launch.end <= op.end + 1e-3:
                kernel = self.compute_by_correlation.get(launch.args["correlation"])
                if kernel is not None:
                    found.append(kernel)
        return found

    def _device_compute(
        self, nodes: list[Event], first_node: float, host_opt: Event | None, window_end: float
    ) -> tuple[np.ndarray, float, float, str]:
        """Backward compute and the optimizer's start on the GPU clock, chosen by launch, not by time.

        A kernel belongs to backward when a backward node of this step launched it, wherever it ran
        (the GPU often runs a step or more behind the host). The optimizer starts on the device at
        its ``gpu_user_annotation`` (the one with the host step's ``External id``), else at the first
        kernel the host's ``Optimizer.step#...`` launched. A trace without launch links falls back to
        the kernels between backward's start and the optimizer on the trace's clock.
        """
        if self.compute_by_correlation and self.launches_by_thread:
            picked = [(k.ts, k.end) for node in _top_level(nodes) for k in self.launched(node)]
        else:
            picked = [
                (k.ts, k.end)
                for k in self.compute_kernels[
                    bisect_left(self.kernel_ts, first_node) : bisect_right(self.kernel_ts, window_end)
                ]
            ]
        compute = intervals.union(picked)
        bwd_start = float(compute[0, 0]) if len(compute) else first_node
        annotation = self.gpu_optimizer_by_external.get(host_opt.args.get("External id")) if host_opt else None
        kernels = self.launched(host_opt) if host_opt is not None and annotation is None else []
        if annotation is not None:
            opt_start, opt_from = annotation.ts, "Optimizer.step (GPU annotation)"
        elif kernels:
            opt_start, opt_from = min(k.ts for k in kernels), "Optimizer.step (its first kernel)"
        else:
            opt_start, opt_from = window_end, "Optimizer.step (host: no optimizer kernel is linked to it)"
        return compute, bwd_start, opt_start, opt_from

    def _compute(
        self,
        nodes: list[Event],
        thread: tuple,
        first_node: float,
        host_opt: Event | None,
        window_end: float,
        step: Step,
    ) -> tuple[np.ndarray, float, float, str]:
        if self.gpu and self.compute_kernels:
            return self._device_compute(nodes, first_node, host_opt, window_end)
        pieces = []
        issues = self.issues_by_thread.get(thread, [])
        starts = self.issue_ts_by_thread.get(thread, [])
        for node in _top_level([n for n in nodes if n.thread == thread]):
            k = bisect_right(starts, node.ts - 1e-9)
            stop = node.end
            if k < len(issues) and issues[k].ts < node.end:
                stop = min(stop, issues[k].ts)
            lo, hi = bisect_left(self.comm_ts, node.ts), bisect_left(self.comm_ts, stop)
            for ev in self.comms[lo:hi]:
                if ev.thread == thread:
                    stop = min(stop, ev.ts)
                    break
            pieces.append((node.ts, stop))
        compute = intervals.union(pieces)
        opt_from = "Optimizer.step (host)" if host_opt is not None else "the step's end"
        return compute, first_node, window_end, opt_from
