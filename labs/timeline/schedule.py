"""DDP's bucket assignment and the all-reduce stream of one step: pure functions of sizes and times.

Imports only numpy. Units: bytes for sizes and caps, milliseconds for every time, decimal GB/s
(10^9 bytes/s) for the network bandwidth, microseconds per ring step for the latency.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


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


def assign_buckets(
    sizes_bytes: list[int] | tuple[int, ...] | np.ndarray, first_cap_bytes: float, cap_bytes: float
) -> list[list[int]]:
    """Group gradients into buckets the way PyTorch DDP does when it rebuilds its buckets.

    Gradients are taken in the order given (the caller passes them in ready order). A bucket takes
    whole tensors until its bytes reach the current limit (``>=``), then closes; the first bucket's
    limit is ``first_cap_bytes``, every later one ``cap_bytes``; the last bucket holds whatever is
    left. A tensor is never split, so a bucket can exceed its limit.

    This is ``torch.distributed._compute_bucket_assignment_by_size(tensors, [first_cap_bytes,
    cap_bytes])`` for tensors of one dtype on one device (checked against torch 2.13.0 by
    ``tests/fixtures/ddp_buckets.json``, made by ``tools/make_bucket_fixtures.py``). Where PyTorch
    differs:

    - It takes tensors and counts ``numel × element_size`` bytes; here the byte counts are given.
    - It keeps one open bucket *and one limit iterator per (dtype, device)*, appends the buckets
      still open at the end after all the closed ones, and gives a sparse gradient a bucket of its
      own. With one dtype on one device none of this changes anything.
    - Called without ``tensor_indices`` (as DDP does at construction, on parameters in registration
      order) it sorts the buckets by the smallest index in each. For one dtype every bucket is a
      run of consecutive indices, so the sort keeps the order. Called with ``tensor_indices`` (as
      ``Reducer::rebuild_buckets`` does, with the parameter indices in the order their gradients
      were observed) it returns those indices instead of positions, in ready order, unsorted:
      ``[[tensor_indices[i] for i in bucket] for bucket in assign_buckets(...)]``.
    - It also returns each bucket's limit (``[first, cap, cap, ...]``, the open last bucket with the
      limit current at the end) and refuses an empty list of tensors; here an empty list gives no
      bucket.
    - The limit list may be longer in PyTorch (its last entry repeats); DDP passes two limits.

    Parameters
    ----------
    sizes_bytes : sequence of int
        Each gradient's size in bytes, in ready order; none negative.
    first_cap_bytes : float
        The first bucket's limit in bytes.
    cap_bytes : float
        Every later bucket's limit in bytes.

    Returns
    -------
    list of list of int
        Positions in ``sizes_bytes``, bucket by bucket; every position appears exactly once, in
        increasing order.

    Raises
    ------
    ValueError
        If a size or a cap is negative.
    """
    if first_cap_bytes < 0 or cap_bytes < 0:
        raise ValueError("bucket caps cannot be negative")
    buckets: list[list[int]] = []
    current: list[int] = []
    filled = 0
    limit = first_cap_bytes
    for position, size in enumerate(sizes_bytes):
        if size < 0:
            raise ValueError(f"gradient {position} has a negative size")
        current.append(position)
        filled += size
        if filled >= limit:
            buckets.append(current)
            current, filled, limit = [], 0, cap_bytes
    if current:
        buckets.append(current)
    return buckets


class Schedule(NamedTuple):
    """The timeline of one step: backward slots, buckets and their all-reduces (times in ms).

    Attributes
    ----------
    layer_start, layer_end : numpy.ndarray
        Each layer's backward slot on this rank, in forward order.
    buckets : tuple of tuple of int
        Each bucket's layers (forward-order indices from 0), bucket by bucket, each in ready order.
    bucket_bytes : numpy.ndarray
        Each bucket's size in bytes (int64).
    bucket_ready : numpy.ndarray
        When each bucket is ready on every rank: its last gradient's slot end plus the straggler delay.
    bucket_start, bucket_end : numpy.ndarray
        Each bucket's all-reduce on the one communication stream.
    backward_end : float
        When this rank's backward ends.
    step_end : float
        max(backward end, last all-reduce end): when the optimizer may start.
    no_overlap_step : float
        The reference without overlap: backward, the straggler, then one all-reduce of everything.
    """

    layer_start: np.ndarray
    layer_end: np.ndarray
    buckets: tuple[tuple[int, ...], ...]
    bucket_bytes: np.ndarray
    bucket_ready: np.ndarray
    bucket_start: np.ndarray
    bucket_end: np.ndarray
    backward_end: float
    step_end: float
    no_overlap_step: float


def step_schedule(
    sizes_bytes: list[int] | np.ndarray,
    backward_ms: list[float] | np.ndarray,
    first_cap_bytes: float,
    cap_bytes: float,
    ranks: float,
    bandwidth_gbps: float,
    latency_us: float,
    straggler_ms: float = 0.0,
    one_bucket: bool = False,
) -> Schedule:
    """Lay out one step: backward from the last layer to the first, buckets, the all-reduce stream.

    Parameters
    ----------
    sizes_bytes : sequence of int
        Each layer's gradient size in bytes, in forward order (at least one layer).
    backward_ms : sequence of float
        Each layer's backward time in ms, in forward order.
    first_cap_bytes, cap_bytes : float
        The bucket limits, as for :func:`assign_buckets`.
    ranks : float
        p, the number of ranks.
    bandwidth_gbps : float
        B, network bandwidth in decimal GB/s.
    latency_us : float
        α, latency per ring step in µs.
    straggler_ms : float, optional
        d: the slowest rank produces every gradient d ms later, so every bucket is ready d later.
    one_bucket : bool, optional
        The first iteration: one bucket holding every gradient, instead of :func:`assign_buckets`.

    Returns
    -------
    Schedule
        Every time in ms from the start of backward on this rank.
    """
    sizes = np.asarray(sizes_bytes, dtype=np.int64)
    times = np.asarray(backward_ms, dtype=float)
    count = len(sizes)
    ready_order = np.arange(count)[::-1]  # backward runs from the last layer to the first
    ends_in_ready_order = np.cumsum(times[ready_order])
    layer_end = np.empty(count)
    layer_end[ready_order] = ends_in_ready_order
    layer_start = layer_end - times
    backward_end = float(ends_in_ready_order[-1])
    sizes_ready = sizes[ready_order]
    if one_bucket:
        groups = [list(range(count))]
    else:
        groups = assign_buckets([int(s) for s in sizes_ready], first_cap_bytes, cap_bytes)
    bucket_bytes = np.array([int(sizes_ready[g].sum()) for g in groups], dtype=np.int64)
    bucket_ready = np.array([float(ends_in_ready_order[g].max()) for g in groups]) + straggler_ms
    cost = np.asarray(ring_allreduce_ms(bucket_bytes, ranks, bandwidth_gbps, latency_us), dtype=float)
    bucket_start = np.empty(len(groups))
    bucket_end = np.empty(len(groups))
    previous_end = -np.inf
    for k in range(len(groups)):  # one stream: in bucket order, each after the one before
        bucket_start[k] = max(bucket_ready[k], previous_end)
        bucket_end[k] = previous_end = bucket_start[k] + cost[k]
    total_cost = ring_allreduce_ms(float(sizes.sum()), ranks, bandwidth_gbps, latency_us)
    return Schedule(
        layer_start=layer_start,
        layer_end=layer_end,
        buckets=tuple(tuple(int(ready_order[i]) for i in g) for g in groups),
        bucket_bytes=bucket_bytes,
        bucket_ready=bucket_ready,
        bucket_start=bucket_start,
        bucket_end=bucket_end,
        backward_end=backward_end,
        step_end=max(backward_end, float(bucket_end[-1])),
        no_overlap_step=backward_end + straggler_ms + float(total_cost),
    )
