"""The step's event simulation: backward and the all-reduce stream laid down bucket by bucket, exactly.

:func:`_simulate` runs one step event by event (piecewise linear, no time step) under the
:class:`Effects` that break the ideal overlap and returns the stream, backward's progress and the
intervals they shared (:class:`_Run`); :func:`_first_reach` reads that progress back.
:mod:`labs.timeline.schedule` lays out the buckets, calls them and assembles the step's schedule.

Imports only numpy. Units: bytes for sizes, milliseconds for every time.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["Effects", "_Run", "_first_reach", "_last_issue", "_simulate"]


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
    group : bool
        True: every all-reduce is launched inside one NCCL group (``ncclGroupStart``/``ncclGroupEnd``),
        so none is submitted before the group ends, once the host has issued the last bucket; they run
        in bucket order and each counts as complete only when the last one ends.
    no_progress : bool
        True: MPI without a progress thread moves bytes only while the host is inside an MPI call,
        which it first enters for the final wait after issuing the last bucket: no all-reduce starts
        before then (they run in bucket order), so nothing overlaps backward.
    """

    compute_slowdown: float = 1.0
    comm_slowdown: float = 1.0
    launch_gap: float = 0.0
    missing_event: int | None = None
    optimizer_waits: bool = True
    sync_each: bool = False
    skipped_layer: int | None = None
    marks_unused: bool = False
    group: bool = False
    no_progress: bool = False

    @property
    def held(self) -> bool:
        """Whether no all-reduce may start before the host has issued the last bucket."""
        return self.group or self.no_progress


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
    hold = _last_issue(needed, straggler, gap, late_one) if e.held and count else -inf

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
        begin = start[k] = max(issued, end_before, hold)
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


def _last_issue(needed: list[float], straggler: float, gap: float, late_one: int | None) -> float:
    """When the host issues the last bucket while no all-reduce has started: backward runs alone.

    Every bucket is issued by then, so backward's progress up to that time is W(t) = min(t, total)
    and bucket k is ready at ``needed[k] + d``; the issues follow :func:`_simulate`'s rule.
    """
    issued = -np.inf
    for k, work in enumerate(needed):
        if k == late_one:
            issued = (issued if k > 0 else 0.0) + gap
        else:
            ready = (work if work > 0 else 0.0) + straggler
            issued = (ready if ready > issued else issued) + gap
    return float(issued)


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
