"""The all-reduce stream of one step over DDP's buckets: pure functions of sizes and times.

It prices a ring all-reduce, lays the buckets out (:mod:`labs.timeline.buckets`), runs the step's
event simulation (:mod:`labs.timeline.stream`, where :class:`Effects` is defined) and assembles what
it gives into the step's :class:`Schedule`, or just its end for sweeps.

Imports only numpy and the pure modules beside it. Units: bytes for sizes and caps, milliseconds for
every time, decimal GB/s (10^9 bytes/s) for the network bandwidth, microseconds per ring step for the
latency.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from labs.timeline.buckets import REBUILT, layout_starts
from labs.timeline.stream import Effects, _first_reach, _Run, _simulate

__all__ = [
    "Effects",
    "Schedule",
    "_Run",
    "_first_reach",
    "_simulate",
    "ring_allreduce_ms",
    "step_end",
    "step_schedule",
]


def ring_allreduce_ms(
    nbytes: float | np.ndarray, ranks: float, bandwidth_gbps: float, latency_us: float
) -> float | np.ndarray:
    """Time of one ideal ring all-reduce in the α–β model, in milliseconds.

    Parameters
    ----------
    nbytes : float or numpy.ndarray
        n, the bytes reduced (per rank).
    ranks : float
        p, the number of ranks in the ring (at least 2).
    bandwidth_gbps : float
        B, the network bandwidth in decimal GB/s (10^9 bytes/s).
    latency_us : float
        α, the latency of one ring step in microseconds.

    Returns
    -------
    float or numpy.ndarray
        ``2(p−1)·α + 2(p−1)/p · n / B``, converted to ms.
    """
    p = float(ranks)
    cost = 2 * (p - 1) * latency_us / 1e3 + 2 * (p - 1) / p * np.asarray(nbytes, dtype=float) / (bandwidth_gbps * 1e6)
    return float(cost) if np.ndim(cost) == 0 else cost


class Schedule(NamedTuple):
    """The timeline of one step: backward slots, buckets and their all-reduces (times in ms).

    A time that never comes (the step hangs) is ``inf``.

    Attributes
    ----------
    layer_start, layer_end : numpy.ndarray
        Each layer's backward slot on this rank, in forward order (stretched by contention and stalls).
    buckets : tuple of tuple of int
        Each bucket's layers (forward-order indices from 0), bucket by bucket, each in ready order.
    bucket_bytes : numpy.ndarray
        Each bucket's size in bytes (int64).
    bucket_ready : numpy.ndarray
        When each bucket is ready on every rank: its last gradient's slot end plus the straggler delay.
    bucket_issue : numpy.ndarray
        When the host issues each bucket's all-reduce.
    bucket_start, bucket_end : numpy.ndarray
        Each bucket's all-reduce on the one communication stream.
    backward_end : float
        When this rank's backward ends.
    optimizer_start : float
        When the optimizer starts: the step end (``inf`` when the step hangs).
    step_end : float
        The optimizer's start: ``max(backward end, last all-reduce end)`` when it waits, else backward end.
    no_overlap_step : float
        The reference without overlap: backward alone, the straggler, the launch gap, then one
        all-reduce of everything.
    backward_solo : float
        The sum of the backward times: backward's length with nothing slowing or stopping it.
    backward_stalled : float
        How long backward stood still for synchronizations (ms).
    shared : numpy.ndarray
        ``(n, 2)`` intervals where an all-reduce was in flight before backward ended: both ran, each
        slowed by its factor, or (synchronizing after every bucket) backward stood still.
    read_early : tuple of int
        Layers whose gradient an all-reduce read before every rank had written it.
    optimizer_early : tuple of int
        Layers whose gradient the optimizer read before their all-reduce ended.
    hung_bucket : int or None
        The bucket (from 0) whose all-reduce never completes, or None.
    completed : int
        How many all-reduces complete.
    progress_t, progress_work : numpy.ndarray
        Breakpoints of backward's done work (solo ms) against time; linear in between, flat after the last.
    reduced_t, reduced_bytes : numpy.ndarray
        Breakpoints of the bytes all-reduced so far against time; linear in between, flat after the last.
    bucket_complete : numpy.ndarray
        When each all-reduce counts as complete: its end, or in one NCCL group the group's end (the
        last one's end, ``inf`` if any never ends).
    """

    layer_start: np.ndarray
    layer_end: np.ndarray
    buckets: tuple[tuple[int, ...], ...]
    bucket_bytes: np.ndarray
    bucket_ready: np.ndarray
    bucket_issue: np.ndarray
    bucket_start: np.ndarray
    bucket_end: np.ndarray
    backward_end: float
    optimizer_start: float
    step_end: float
    no_overlap_step: float
    backward_solo: float
    backward_stalled: float
    shared: np.ndarray
    read_early: tuple[int, ...]
    optimizer_early: tuple[int, ...]
    hung_bucket: int | None
    completed: int
    progress_t: np.ndarray
    progress_work: np.ndarray
    reduced_t: np.ndarray
    reduced_bytes: np.ndarray
    bucket_complete: np.ndarray

    @property
    def hangs(self) -> bool:
        """Whether some all-reduce never completes."""
        return self.hung_bucket is not None

    @property
    def valid(self) -> bool:
        """Whether every all-reduce read written gradients and the optimizer read reduced ones."""
        return not self.read_early and not self.optimizer_early

    @property
    def backward_lost(self) -> float:
        """Backward's time lost to contention: its length minus its solo time and its stalls (ms)."""
        return self.backward_end - self.backward_solo - self.backward_stalled


class _Step(NamedTuple):
    """The layout and the numbers :func:`_simulate` needs, shared by the schedule and the sweep."""

    starts: np.ndarray
    bucket_bytes: np.ndarray
    cost: np.ndarray
    done_at_end: np.ndarray
    needed: list[float]
    hung: int | None


def _prepare(sizes, times, first_cap_bytes, cap_bytes, ranks, bandwidth_gbps, latency_us, layout, e) -> _Step:
    count = len(sizes)
    starts = layout_starts(sizes, first_cap_bytes, cap_bytes, layout)
    sizes_ready = sizes[::-1]
    bucket_bytes = np.add.reduceat(sizes_ready, starts) if count else np.zeros(0, dtype=np.int64)
    cost = np.asarray(ring_allreduce_ms(bucket_bytes, ranks, bandwidth_gbps, latency_us), dtype=float).reshape(-1)
    work_ready = np.cumsum(times[::-1])  # backward's solo work done as each layer's slot ends, in ready order
    last_in_bucket = np.append(starts[1:], count) - 1
    hung = None
    if e.skipped_layer is not None and not e.marks_unused and 0 <= e.skipped_layer < count:
        hung = int(np.searchsorted(starts, count - 1 - e.skipped_layer, side="right") - 1)
    return _Step(starts, bucket_bytes, cost, work_ready[::-1], work_ready[last_in_bucket].tolist(), hung)


def step_end(
    sizes_bytes: np.ndarray,
    backward_ms: np.ndarray,
    first_cap_bytes: float,
    cap_bytes: float,
    ranks: float,
    bandwidth_gbps: float,
    latency_us: float,
    straggler_ms: float = 0.0,
    layout: str = REBUILT,
    effects: Effects = Effects(),  # noqa: B008 (an immutable NamedTuple)
) -> float:
    """When the optimizer starts (``inf`` if the step hangs): :func:`step_schedule`'s ``step_end`` alone.

    Parameters are those of :func:`step_schedule`; this is its simulation without the rest of the
    picture, for sweeps.

    Returns
    -------
    float
        The step end in ms.
    """
    sizes, times = np.asarray(sizes_bytes, dtype=np.int64), np.asarray(backward_ms, dtype=float)
    p = _prepare(sizes, times, first_cap_bytes, cap_bytes, ranks, bandwidth_gbps, latency_us, layout, effects)
    total = float(p.done_at_end[0]) if len(sizes) else 0.0
    if p.hung is not None:
        return np.inf
    run = _simulate(p.needed, p.cost.tolist(), [], total, straggler_ms, effects, p.hung, record=False)
    backward_end = run.progress_t[run.progress_w.index(total)] if total in run.progress_w else np.inf
    return max(backward_end, float(run.end[-1])) if effects.optimizer_waits else backward_end


def step_schedule(
    sizes_bytes: list[int] | np.ndarray,
    backward_ms: list[float] | np.ndarray,
    first_cap_bytes: float,
    cap_bytes: float,
    ranks: float,
    bandwidth_gbps: float,
    latency_us: float,
    straggler_ms: float = 0.0,
    layout: str = REBUILT,
    effects: Effects = Effects(),  # noqa: B008 (an immutable NamedTuple)
) -> Schedule:
    """Simulate one step: backward from the last layer to the first, buckets, the all-reduce stream.

    Exact and event by event (piecewise linear, no time step). The host issues bucket k at
    ``issue_k = max(ready_k, issue_{k−1}) + g``; its all-reduce starts at ``max(issue_k, end_{k−1})``
    on the one stream and needs its ring cost of solo work, done at 1/s_m of the solo rate while
    backward runs; backward runs at 1/s_c of its solo rate while an all-reduce is in flight (or
    stops, with a synchronization after every bucket). See :class:`Effects` for the rest.

    Parameters
    ----------
    sizes_bytes : sequence of int
        Each layer's gradient size in bytes, in forward order (at least one layer).
    backward_ms : sequence of float
        Each layer's backward time in ms, in forward order.
    first_cap_bytes, cap_bytes : float
        The bucket limits, as for :func:`labs.timeline.buckets.assign_buckets`.
    ranks : float
        p, the number of ranks.
    bandwidth_gbps : float
        B, network bandwidth in decimal GB/s.
    latency_us : float
        α, latency per ring step in µs.
    straggler_ms : float, optional
        d: the slowest rank produces every gradient d ms later, so every bucket is ready d later.
    layout : str, optional
        One of :data:`labs.timeline.buckets.LAYOUTS` (see :func:`labs.timeline.buckets.layout_starts`).
    effects : Effects, optional
        What breaks the ideal overlap; by default nothing does.

    Returns
    -------
    Schedule
        Every time in ms from the start of backward on this rank.
    """
    sizes = np.asarray(sizes_bytes, dtype=np.int64)
    times = np.asarray(backward_ms, dtype=float)
    count = len(sizes)
    e = effects
    p = _prepare(sizes, times, first_cap_bytes, cap_bytes, ranks, bandwidth_gbps, latency_us, layout, e)
    total = float(p.done_at_end[0])  # the sum of the backward times, added as the slots run
    run = _simulate(p.needed, p.cost.tolist(), p.bucket_bytes.tolist(), total, straggler_ms, e, p.hung)
    progress_t, progress_w = np.array(run.progress_t), np.array(run.progress_w)
    if e.compute_slowdown == 1.0 and not e.sync_each:
        layer_end = p.done_at_end.copy()  # exactly the sums of the backward times
    else:
        layer_end = _first_reach(progress_t, progress_w, p.done_at_end, run.frozen)
    order = np.arange(count)[::-1]
    layer_start = np.empty(count)
    layer_start[order] = np.concatenate([[0.0], layer_end[order][:-1]])
    backward_end = float(layer_end[0])

    bounds = [*p.starts.tolist(), count]
    groups = tuple(tuple(range(count - 1 - bounds[k], count - 1 - bounds[k + 1], -1)) for k in range(len(bounds) - 1))
    read_early: list[int] = []
    if e.missing_event is not None and e.missing_event < len(groups):
        written = layer_end + straggler_ms  # every rank has written a layer's gradient d after this rank
        late = e.missing_event
        read_early = sorted(i for i in groups[late] if run.start[late] < written[i])
    if p.hung is not None:
        optimizer = np.inf
        optimizer_early: list[int] = []
    elif e.optimizer_waits:
        optimizer = max(backward_end, float(run.end[-1]))
        optimizer_early = []
    else:
        optimizer = backward_end
        optimizer_early = sorted(i for k, g in enumerate(groups) if run.end[k] > backward_end for i in g)
    total_cost = ring_allreduce_ms(float(sizes.sum()), ranks, bandwidth_gbps, latency_us)
    complete = run.end.copy()
    if e.group and count:
        complete[:] = complete.max()  # the group completes as one, when its last all-reduce ends
    return Schedule(
        layer_start=layer_start,
        layer_end=layer_end,
        buckets=groups,
        bucket_bytes=p.bucket_bytes,
        bucket_ready=run.ready,
        bucket_issue=run.issue,
        bucket_start=run.start,
        bucket_end=run.end,
        backward_end=backward_end,
        optimizer_start=float(optimizer),
        step_end=float(optimizer),
        no_overlap_step=total + straggler_ms + float(e.launch_gap) + float(total_cost),
        backward_solo=total,
        backward_stalled=float(run.stalled),
        shared=np.array(run.shared, dtype=float).reshape(-1, 2),
        read_early=tuple(read_early),
        optimizer_early=tuple(optimizer_early),
        hung_bucket=p.hung,
        completed=int(np.isfinite(complete).sum()),
        progress_t=progress_t,
        progress_work=progress_w,
        reduced_t=np.array(run.reduced_t),
        reduced_bytes=np.array(run.reduced_v, dtype=float),
        bucket_complete=complete,
    )
