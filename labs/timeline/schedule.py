"""The all-reduce stream of one step over DDP's buckets: pure functions of sizes and times.

Imports only numpy. Units: bytes for sizes and caps, milliseconds for every time, decimal GB/s
(10^9 bytes/s) for the network bandwidth, microseconds per ring step for the latency.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from labs.timeline.buckets import REBUILT, layout_starts


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


class Effects(NamedTuple):
    """What breaks the ideal overlap; the defaults leave the ideal schedule exactly as it is.

    Attributes
    ----------
    compute_slowdown : float
        s_c ≥ 1: while an all-reduce is in flight, backward progresses at 1/s_c of its solo rate.
    comm_slowdown : float
        s_m ≥ 1: while backward runs, an all-reduce progresses at 1/s_m of its solo rate.
    launch_gap : float
        g ≥ 0 ms: the host issues bucket k at ``max(ready_k, issue_{k−1}) + g``.
    missing_event : int or None
        A bucket (from 0) whose all-reduce does not wait for its gradients: issued at
        ``issue_{k−1} + g`` (``g`` for the first bucket).
    optimizer_waits : bool
        False: the optimizer starts when backward ends, whatever the stream is doing.
    sync_each : bool
        True: while an all-reduce runs, backward stops (a global synchronization after each collective).
    skipped_layer : int or None
        A layer (forward index from 0) whose gradient one other rank never produces.
    marks_unused : bool
        Whether the reducer marks a gradient no backward produced as ready (``find_unused_parameters``);
        without it a skipped layer's bucket never becomes ready on that rank and the step hangs.
    """

    compute_slowdown: float = 1.0
    comm_slowdown: float = 1.0
    launch_gap: float = 0.0
    missing_event: int | None = None
    optimizer_waits: bool = True
    sync_each: bool = False
    skipped_layer: int | None = None
    marks_unused: bool = False


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


class _Run(NamedTuple):
    """What :func:`_simulate` returns: the stream, backward's progress and the shared intervals."""

    ready: np.ndarray
    issue: np.ndarray
    start: np.ndarray
    end: np.ndarray
    progress_t: list[float]
    progress_w: list[float]
    frozen: bool
    shared: list[tuple[float, float]]
    stalled: float
    reduced_t: list[float]
    reduced_v: list[float]


def _simulate(
    needed: list[float],
    cost: list[float],
    nbytes: list[int],
    total: float,
    straggler: float,
    e: Effects,
    hung: int | None,
    record: bool = True,
) -> _Run:
    """Lay the all-reduces down in bucket order, each after what it waits for, tracking backward.

    Backward's progress W(t), in solo ms of work, is kept as breakpoints: between all-reduces it
    runs at its solo rate; beside one at 1/s_c (or not at all while synchronizing) until its work
    is done. Bucket k is ready once W reaches ``needed[k]`` (its earliest layer done); the queries come
    in increasing order, so one forward scan of the breakpoints answers them all. Without
    ``record`` it leaves out what only the picture needs (the shared intervals, the bytes reduced).
    """
    s_c, s_m, gap, late_one = float(e.compute_slowdown), float(e.comm_slowdown), float(e.launch_gap), e.missing_event
    sync = e.sync_each
    compute_free = s_c == 1.0 and not sync  # backward never slowed: W(t) = min(t, total)
    count = len(needed)
    inf = np.inf
    ready, issue, start, end = ([inf] * count for _ in range(4))
    pt, pw = [0.0], [0.0]
    frozen = False
    seek = 0
    shared: list[tuple[float, float]] = []
    stalled = 0.0
    reduced_t, reduced_v = [0.0], [0.0]
    reduced = 0.0
    issued = end_before = -inf

    def reach(work: float) -> float:  # the first time W reaches work
        nonlocal seek
        if compute_free or work <= 0:
            return work if work > 0 else 0.0
        if work > pw[-1]:
            return inf if frozen else pt[-1] + (work - pw[-1])
        i = seek
        while pw[i + 1] < work:
            i += 1
        seek = i
        return pt[i] + (work - pw[i]) * (pt[i + 1] - pt[i]) / (pw[i + 1] - pw[i])

    for k in range(count):
        late = k == late_one
        if not late:
            work = needed[k]
            if compute_free or work <= 0 or frozen or work > pw[-1]:
                at = reach(work)
            else:  # reach(work), inline: this runs for every bucket
                i = seek
                while pw[i + 1] < work:
                    i += 1
                seek = i
                at = pt[i] + (work - pw[i]) * (pt[i + 1] - pt[i]) / (pw[i + 1] - pw[i])
            ready[k] = at + straggler
            issue[k] = (ready[k] if ready[k] > issued else issued) + gap
        else:  # issued without waiting for its gradients: right after the one before it
            issue[k] = (issued if k > 0 else 0.0) + gap
        issued = issue[k]
        if hung is not None and k > hung:
            continue  # issued by the host, queued behind the collective that never ends
        begin = start[k] = issued if issued > end_before else end_before
        work = inf if k == hung else cost[k]
        if compute_free:
            done = begin if begin < total else total
        else:  # lay down backward's solo progress up to begin
            last_t, last_w = pt[-1], pw[-1]
            if begin > last_t and not frozen:
                if last_w < total < last_w + (begin - last_t):
                    pt.append(last_t + (total - last_w))
                    pw.append(total)
                pt.append(begin)
                reached = last_w + (begin - last_t)
                pw.append(reached if reached < total else total)
            done = pw[-1]
        if record:
            reduced_t.append(begin)
            reduced_v.append(reduced)
        if done >= total or (compute_free and s_m == 1.0):  # alone, or nothing slows either one
            finish = begin + work
        elif sync:  # backward waits for this all-reduce, which runs alone
            finish = begin + work
            if record:
                shared.append((begin, finish))
            if finish < inf:
                stalled += work
                pt.append(finish)
                pw.append(done)
            else:
                frozen = True
        else:  # both run, each slowed by the other, until one of them is done
            alongside, left = work * s_m, (total - done) * s_c
            if alongside <= left:
                finish = begin + alongside
                if record:
                    shared.append((begin, finish))
                if not compute_free:
                    pt.append(finish)
                    reached = done + alongside / s_c
                    pw.append(reached if reached < total else total)
            else:
                backward_done = begin + left
                finish = backward_done + (work - left / s_m)
                if not compute_free:
                    pt.append(backward_done)
                    pw.append(total)
                if record:
                    shared.append((begin, backward_done))
                    reduced_t.append(backward_done)
                    reduced_v.append(reduced + nbytes[k] * (left / s_m / work) if work > 0 else reduced)
        end[k] = finish
        if late:
            ready[k] = reach(needed[k]) + straggler
        if finish == inf:
            continue  # the one that never ends: the later ones are still issued, never started
        end_before = finish
        if record:
            reduced += nbytes[k]
            reduced_t.append(finish)
            reduced_v.append(reduced)
    if compute_free:
        pt, pw = [0.0, total], [0.0, total]
    elif not frozen and pw[-1] < total:  # backward's last stretch, alone
        pt.append(pt[-1] + (total - pw[-1]))
        pw.append(total)
    return _Run(
        np.array(ready),
        np.array(issue),
        np.array(start),
        np.array(end),
        pt,
        pw,
        frozen,
        shared,
        stalled,
        reduced_t,
        reduced_v,
    )


def _first_reach(t: np.ndarray, w: np.ndarray, work: np.ndarray, frozen: bool) -> np.ndarray:
    """The first time progress W (breakpoints ``t``, ``w``; solo rate past them) reaches each ``work``."""
    work = np.asarray(work, dtype=float)
    i = np.searchsorted(w, work, side="left")
    inside = i < len(w)
    at = np.minimum(i, len(w) - 1)
    j = np.clip(i, 1, len(w) - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        between = t[j - 1] + (work - w[j - 1]) * (t[j] - t[j - 1]) / (w[j] - w[j - 1])
    out = np.where(inside & (w[at] == work), t[at], between)
    out = np.where(inside, out, np.inf if frozen else t[-1] + (work - w[-1]))
    return np.where(work <= 0, 0.0, out)


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
        completed=int(np.isfinite(run.end).sum()),
        progress_t=progress_t,
        progress_work=progress_w,
        reduced_t=np.array(run.reduced_t),
        reduced_bytes=np.array(run.reduced_v, dtype=float),
    )
