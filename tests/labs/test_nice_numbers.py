"""Nice numbers (labs/numbers.py): 1, 2 or 5 times a power of ten, rounded up or down.

The labs' own names for them (the queue's axis ``nice_ceiling``, the timeline's ``nice_step``, the
roofline's ``playback_scale``) are checked with their labs; this is the shared rule itself.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labs.numbers import ONE_TWO_FIVE, nice_at_least, nice_at_most

positive = st.floats(min_value=1e-300, max_value=1e300, allow_nan=False, allow_infinity=False)
rows = st.sampled_from([ONE_TWO_FIVE, (1.0, 2.0, 2.5, 5.0), (1.0,), (1.0, 3.0)])


def mantissa(value: float) -> float:
    """``value`` divided by its power of ten, in [1, 10)."""
    return value / 10 ** math.floor(math.log10(value) + 1e-12)


def is_nice(value: float, mantissas: tuple[float, ...]) -> bool:
    m = mantissa(value)
    return any(math.isclose(m, n, rel_tol=1e-9) or math.isclose(m, 10 * n, rel_tol=1e-9) for n in mantissas)


@pytest.mark.parametrize(
    ("value", "up", "down"),
    [(1, 1, 1), (1.5, 2, 1), (3, 5, 2), (7, 10, 5), (0.03, 0.05, 0.02), (2e9, 2e9, 2e9), (999, 1000, 500)],
)
def test_examples(value, up, down):
    assert nice_at_least(value) == pytest.approx(up)
    assert nice_at_most(value) == pytest.approx(down)


@given(positive, rows)
def test_at_least_is_the_smallest_nice_number_not_below(value, mantissas):
    up = nice_at_least(value, mantissas)
    assert up >= value and is_nice(up, mantissas)
    assert nice_at_most(math.nextafter(up, 0), mantissas) < up  # no nice number in [value, up)
    assert nice_at_most(math.nextafter(up, 0), mantissas) < value or up == value


@given(positive, rows)
def test_at_most_is_the_largest_nice_number_not_above(value, mantissas):
    down = nice_at_most(value, mantissas)
    assert down <= value and is_nice(down, mantissas)
    assert nice_at_least(math.nextafter(down, math.inf), mantissas) > value or down == value


@given(positive)
def test_a_nice_number_rounds_to_itself(value):
    nice = nice_at_least(value)
    assert nice_at_least(nice) == nice_at_most(nice) == nice


@given(st.sampled_from(ONE_TWO_FIVE), st.integers(-20, 20))
def test_slack_keeps_a_nice_number_a_rounding_error_away(m, k):
    nice = m * 10.0**k
    assert nice_at_least(nice * (1 + 1e-13), slack=1e-12) == nice
    assert nice_at_most(nice * (1 - 1e-13), slack=1e-12) == nice
    assert nice_at_least(nice * (1 + 1e-13)) > nice
    assert nice_at_most(nice * (1 - 1e-13)) < nice


@pytest.mark.parametrize("value", [0.0, -1.0, math.nan, math.inf])
def test_no_nice_number_for_what_is_not_positive_and_finite(value):
    with pytest.raises(ValueError, match="positive finite"):
        nice_at_least(value)
    with pytest.raises(ValueError, match="positive finite"):
        nice_at_most(value)
