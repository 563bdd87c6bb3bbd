"""The one percentile the benches report: nearest rank, no interpolation, NaN for no values."""

from __future__ import annotations

import math
from collections.abc import Iterable


def percentile(values: Iterable[float], q: float) -> float:
    """The ``q``-th percentile by the nearest-rank method (NaN for no values).

    Parameters
    ----------
    values : iterable of float
        The sample.
    q : float
        Between 0 and 100.

    Returns
    -------
    float
        The smallest value with at least q % of the sample at or below it.
    """
    ordered = sorted(values)
    if not ordered:
        return math.nan
    rank = max(1, -(-len(ordered) * q // 100))  # ceil(n q / 100)
    return ordered[int(rank) - 1]


def worst(values: Iterable[float]) -> float:
    """The largest value (NaN for no values).

    Parameters
    ----------
    values : iterable of float
        The sample.

    Returns
    -------
    float
        Its maximum.
    """
    return max(values, default=math.nan)
