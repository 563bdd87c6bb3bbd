"""Unions and differences of time intervals, as ``(n, 2)`` numpy arrays of ``[start, end]``."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


def as_array(pairs: Iterable[tuple[float, float]] | np.ndarray) -> np.ndarray:
    """Intervals as a float ``(n, 2)`` array, empty ones dropped.

    Parameters
    ----------
    pairs : iterable of (start, end)
        The intervals.

    Returns
    -------
    numpy.ndarray
        One row per interval with ``end > start``.
    """
    arr = np.asarray(list(pairs) if not isinstance(pairs, np.ndarray) else pairs, dtype=float).reshape(-1, 2)
    return arr[arr[:, 1] > arr[:, 0]]


def union(pairs: Iterable[tuple[float, float]] | np.ndarray) -> np.ndarray:
    """The union of intervals: disjoint, sorted, touching ones merged.

    Parameters
    ----------
    pairs : iterable of (start, end)
        The intervals.

    Returns
    -------
    numpy.ndarray
        Disjoint sorted intervals covering exactly the same time.
    """
    arr = as_array(pairs)
    if len(arr) == 0:
        return arr
    arr = arr[np.argsort(arr[:, 0], kind="stable")]
    reach = np.maximum.accumulate(arr[:, 1])
    new = np.ones(len(arr), dtype=bool)
    new[1:] = arr[1:, 0] > reach[:-1]
    starts = arr[new, 0]
    group = np.cumsum(new) - 1
    ends = np.zeros(len(starts))
    np.maximum.at(ends, group, reach)
    return np.column_stack([starts, ends])


def clip(pairs: np.ndarray, low: float, high: float) -> np.ndarray:
    """Intervals cut to the window ``[low, high]``.

    Parameters
    ----------
    pairs : numpy.ndarray
        The intervals.
    low, high : float
        The window.

    Returns
    -------
    numpy.ndarray
        The parts inside the window.
    """
    arr = as_array(pairs).copy()
    arr[:, 0] = np.maximum(arr[:, 0], low)
    arr[:, 1] = np.minimum(arr[:, 1], high)
    return arr[arr[:, 1] > arr[:, 0]]


def measure(pairs: np.ndarray) -> float:
    """Total time covered by the intervals (overlaps counted once).

    Parameters
    ----------
    pairs : numpy.ndarray
        The intervals.

    Returns
    -------
    float
        The length of their union.
    """
    merged = union(pairs)
    return float((merged[:, 1] - merged[:, 0]).sum()) if len(merged) else 0.0


def uncovered(pairs: np.ndarray, cover: np.ndarray) -> float:
    r"""Time in the union of ``pairs`` that the union of ``cover`` does not cover.

    Parameters
    ----------
    pairs, cover : numpy.ndarray
        Intervals.

    Returns
    -------
    float
        ``|∪pairs \ ∪cover|``.
    """
    a = union(pairs)
    b = union(cover)
    if len(a) == 0:
        return 0.0
    if len(b) == 0:
        return measure(a)
    # overlap of two disjoint sorted sets: sum over pairs of max(0, min(ends) − max(starts)), by a merge
    total_overlap = 0.0
    j = 0
    for start, end in a:
        while j < len(b) and b[j, 1] <= start:
            j += 1
        k = j
        while k < len(b) and b[k, 0] < end:
            total_overlap += min(end, b[k, 1]) - max(start, b[k, 0])
            k += 1
    return measure(a) - total_overlap
