"""One rank's step as the bucket timeline: what a step read from a trace holds, and its figures.

The data classes :class:`BucketRun` (one bucket's all-reduce) and :class:`StepTimeline` (the step:
buckets, backward compute, the optimizer's start, the tail and exposed communication). How a trace's
events are read into them, and what each time means, is :mod:`app.trace.timeline`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from app.trace import intervals
from app.trace.steps import Step

__all__ = ["BucketRun", "StepTimeline"]


@dataclass(frozen=True)
class BucketRun:
    """One bucket's all-reduce in one step on one rank; times in µs on the trace's clock.

    Parameters
    ----------
    index : int
        Position in issue order (bucket 0 is reduced first).
    numel : int or None
        Elements reduced, where the trace says.
    dtype : str or None
        Element type, where the trace says.
    nbytes : int or None
        ``numel`` × the dtype's size.
    gradients : tuple of tuple of int, or None
        Shapes of the gradients it holds, in ready order, where the trace says.
    ready, issue, start, end : float
        Last gradient written; all-reduce issued; collective started and ended.
    ready_from : str
        Which event gave ``ready``.
    link : str
        How the run was paired with the issue.
    measured : bool
        Whether ``start`` and ``end`` are the collective as it ran. When no run is linked to the
        issue they are the issue's own host span, drawn but never counted as the collective.
    """

    index: int
    numel: int | None
    dtype: str | None
    nbytes: int | None
    gradients: tuple[tuple[int, ...], ...] | None
    ready: float
    issue: float
    start: float
    end: float
    ready_from: str
    link: str
    measured: bool = True

    @property
    def duration_ms(self) -> float:
        """How long the collective ran, in ms."""
        return (self.end - self.start) / 1e3


@dataclass(frozen=True)
class StepTimeline:
    """One rank's step: buckets, compute and the figures.

    Parameters
    ----------
    step : Step
        The step.
    rank, world_size : int or None
        From ``distributedInfo`` or the caller.
    backend : str
        ``"gloo"``, ``"nccl"`` or what ``distributedInfo`` says.
    backward_start, backward_end, optimizer_start : float
        µs on the trace's clock.
    optimizer_from : str
        Which event gave ``optimizer_start``.
    compute : numpy.ndarray
        Backward compute intervals (µs), disjoint and sorted.
    buckets : tuple of BucketRun
        In issue order.
    base_ns : int
        ``baseTimeNanoseconds`` (0 if absent): ``ts × 1000 + base_ns`` is the host's epoch clock.
    notes : tuple of str
        Fallbacks taken and anything else worth saying.
    on_gpu : bool
        Whether compute and communication were measured on GPU streams (ready and issue are
        host times either way).
    """

    step: Step
    rank: int | None
    world_size: int | None
    backend: str
    backward_start: float
    backward_end: float
    optimizer_start: float
    optimizer_from: str
    compute: np.ndarray
    buckets: tuple[BucketRun, ...]
    base_ns: int = 0
    notes: tuple[str, ...] = field(default=())
    on_gpu: bool = False

    def ms(self, ts: float) -> float:
        """A time on the trace's clock (µs) as ms from the step's start."""
        return (ts - self.step.start) / 1e3

    def absolute_us(self, ts: float) -> float:
        """A time on the trace's clock as µs since the epoch (comparable across ranks)."""
        return ts + self.base_ns / 1e3

    @property
    def communication(self) -> np.ndarray:
        """The all-reduces as they ran, ``(n, 2)`` µs."""
        return intervals.as_array([(b.start, b.end) for b in self.buckets])

    @property
    def measured(self) -> bool:
        """Whether every bucket's collective was found as it ran (else tail and exposed are unknown)."""
        return all(b.measured for b in self.buckets)

    @property
    def tail_ms(self) -> float | None:
        """Last all-reduce end minus the end of backward compute, in ms; None when a run is missing."""
        if not self.measured:
            return None
        return (max(b.end for b in self.buckets) - self.backward_end) / 1e3

    @property
    def exposed_ms(self) -> float | None:
        """Communication not covered by backward compute between backward start and optimizer start, ms.

        None when a bucket's run is missing: a host span is never counted as the collective's time.
        """
        if not self.measured:
            return None
        comm = intervals.clip(self.communication, self.backward_start, self.optimizer_start)
        return intervals.uncovered(comm, self.compute) / 1e3

    @property
    def step_ms(self) -> float:
        """The step's length in ms."""
        return self.step.duration / 1e3

    @property
    def compute_ms(self) -> float:
        """Total backward compute in ms."""
        return intervals.measure(self.compute) / 1e3
