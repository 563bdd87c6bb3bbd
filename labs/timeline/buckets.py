"""DDP's bucket assignment: which gradients share a bucket, under each of PyTorch's layouts.

Imports only numpy. Sizes and caps are in bytes. The assignment is PyTorch's own
(``compute_bucket_assignment_by_size`` in ``torch/csrc/distributed/c10d/reducer.cpp``); the schedule of
one step over these buckets is :mod:`labs.timeline.schedule`.
"""

from __future__ import annotations

import numpy as np


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
    starts = bucket_starts(sizes_bytes, first_cap_bytes, cap_bytes)
    bounds = [*starts.tolist(), len(sizes_bytes)]
    return [list(range(bounds[k], bounds[k + 1])) for k in range(len(starts))]


def bucket_starts(
    sizes_bytes: list[int] | tuple[int, ...] | np.ndarray, first_cap_bytes: float, cap_bytes: float
) -> np.ndarray:
    """Where each bucket of :func:`assign_buckets` begins: the same rule, one search per bucket.

    Parameters
    ----------
    sizes_bytes : sequence of int
        Each gradient's size in bytes, in the order they are bucketed; none negative.
    first_cap_bytes, cap_bytes : float
        The first bucket's limit and every later one's, in bytes.

    Returns
    -------
    numpy.ndarray
        The position (int64) of each bucket's first gradient; bucket k holds positions
        ``starts[k]`` up to ``starts[k + 1]`` (the last one, to the end).

    Raises
    ------
    ValueError
        If a size or a cap is negative.
    """
    if first_cap_bytes < 0 or cap_bytes < 0:
        raise ValueError("bucket caps cannot be negative")
    sizes = np.asarray(sizes_bytes, dtype=np.int64).reshape(-1)
    if (sizes < 0).any():
        raise ValueError(f"gradient {int(np.argmax(sizes < 0))} has a negative size")
    count = len(sizes)
    if count == 0:
        return np.zeros(0, dtype=np.int64)
    filled = np.cumsum(sizes)  # exact: whole bytes
    before = np.concatenate([[0], filled[:-1]])
    positions = np.arange(count)

    def after(limit: float) -> np.ndarray:
        # from each position, where the next bucket starts: past the first gradient at which the
        # bucket holds at least its limit (it holds at least one gradient)
        return np.maximum(positions, np.searchsorted(filled, before + limit, side="left")) + 1

    position = int(after(first_cap_bytes)[0])
    following = after(cap_bytes).tolist()
    starts = [0]
    while position < count:
        starts.append(position)
        position = following[position]
    return np.array(starts, dtype=np.int64)


REBUILT = "rebuilt"
"""Layout after DDP's bucket rebuild (iteration 2 on): gradients bucketed in the order they became ready."""
FIRST_ITERATION = "first"
"""Layout of DDP's first iteration: one bucket holding every gradient."""
REGISTRATION = "registration"
"""Layout with ``find_unused_parameters=True``: bucketed in registration order, list reversed, never rebuilt."""
REBUILT_SMALL_LAST = "rebuilt, small bucket last"
"""Layout after the rebuild with ``DDP_SET_LAST_BUCKET_CAP=1``: the ready order bucketed from its far end."""
LAYOUTS = (REBUILT, FIRST_ITERATION, REGISTRATION, REBUILT_SMALL_LAST)

LAST_BUCKET_CAP_SOURCE = (
    "pytorch/pytorch ad78a7b33a496f60c756927a4fcd8e3e8fc1aee6, torch/csrc/distributed/c10d/reducer.cpp, "
    "Reducer::rebuild_buckets and compute_bucket_assignment_by_size"
)
"""Where :data:`REBUILT_SMALL_LAST` was read from."""


def _from_the_far_end(sizes_in_order: np.ndarray, first_cap_bytes: float, cap_bytes: float) -> np.ndarray:
    """Bucket a list from its far end, then turn the list of buckets back: their starts, in list order."""
    count = len(sizes_in_order)
    if count == 0:
        return np.zeros(0, dtype=np.int64)
    backwards = bucket_starts(sizes_in_order[::-1], first_cap_bytes, cap_bytes)  # bucket k: backwards[k] up to [k+1]
    ends = np.append(backwards[1:], count)
    return (count - ends)[::-1]


def layout_starts(
    sizes_bytes: list[int] | np.ndarray, first_cap_bytes: float, cap_bytes: float, layout: str = REBUILT
) -> np.ndarray:
    """Where each bucket begins in the ready order (the forward order reversed), bucket by bucket.

    In every layout the buckets, taken in bucket order, hold the gradients in ready order: backward
    produces them from the last layer to the first, and DDP reduces bucket 0 first.

    - :data:`REBUILT`: :func:`assign_buckets` over the gradients in ready order. The first bucket
      (with the first cap) holds the first gradients ready, from the last layers.
    - :data:`FIRST_ITERATION`: one bucket holding every gradient.
    - :data:`REGISTRATION`: :func:`assign_buckets` over the layers in forward (registration) order,
      then the bucket list reversed, as DDP does at construction. The first cap then falls on the
      first-registered layers, whose bucket is reduced last.
    - :data:`REBUILT_SMALL_LAST`: the rebuild with the environment variable
      ``DDP_SET_LAST_BUCKET_CAP=1``. ``Reducer::rebuild_buckets`` (see
      :data:`LAST_BUCKET_CAP_SOURCE`) reverses the ready-order list of gradients, calls
      ``compute_bucket_assignment_by_size`` on it with the limits ``[first cap, cap]``, and reverses
      the list of buckets it gets back (and their limits). The first cap so falls on the *last*
      gradients to be ready, whose bucket is reduced last, and the full-size buckets are counted off
      from the end of backward. Here the ready order is the forward order reversed, so the groups
      are those of :data:`REGISTRATION`; what differs is when they apply (after the rebuild, not
      from the first iteration, and never with ``find_unused_parameters=True``, which never
      rebuilds). Inside a bucket PyTorch keeps the reversed order (its flat buffer lists the
      gradients from the one ready last); the timeline does not depend on that order.

    Parameters
    ----------
    sizes_bytes : sequence of int
        Each layer's gradient size in bytes, in forward order.
    first_cap_bytes, cap_bytes : float
        The bucket limits, as for :func:`assign_buckets`.
    layout : str
        One of :data:`LAYOUTS`.

    Returns
    -------
    numpy.ndarray
        Positions in the ready order (int64) where each bucket starts; the first is 0.
    """
    sizes = np.asarray(sizes_bytes, dtype=np.int64)
    count = len(sizes)
    if layout == FIRST_ITERATION:
        return np.zeros(1, dtype=np.int64)
    if layout == REBUILT:
        return bucket_starts(sizes[::-1], first_cap_bytes, cap_bytes)
    if layout == REGISTRATION:
        forward = bucket_starts(sizes, first_cap_bytes, cap_bytes)  # bucket k: forward[k] up to forward[k+1]
        ends = np.append(forward[1:], count)
        return (count - ends)[::-1]  # reversed list; each bucket's last layer comes first when ready
    if layout == REBUILT_SMALL_LAST:
        return _from_the_far_end(sizes[::-1], first_cap_bytes, cap_bytes)
    raise ValueError(f"unknown layout {layout!r}")


def bucket_layout(
    sizes_bytes: list[int] | np.ndarray, first_cap_bytes: float, cap_bytes: float, layout: str = REBUILT
) -> list[tuple[int, ...]]:
    """Which layers each bucket holds, in bucket order (see :func:`layout_starts` for the layouts).

    Parameters
    ----------
    sizes_bytes : sequence of int
        Each layer's gradient size in bytes, in forward order.
    first_cap_bytes, cap_bytes : float
        The bucket limits, as for :func:`assign_buckets`.
    layout : str
        One of :data:`LAYOUTS`.

    Returns
    -------
    list of tuple of int
        Forward-order layer indices (from 0) per bucket, bucket by bucket, each in ready order.
    """
    count = len(sizes_bytes)
    bounds = [*layout_starts(sizes_bytes, first_cap_bytes, cap_bytes, layout).tolist(), count]
    return [tuple(range(count - 1 - bounds[k], count - 1 - bounds[k + 1], -1)) for k in range(len(bounds) - 1)]
