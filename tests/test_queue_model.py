"""The fluid-queue model: formulas, invariants (hypothesis), refusals, Step and Reset."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labs.queue.model import QueueModel
from labs.timed import InvalidInput

rates = st.floats(min_value=0.0, max_value=100.0, allow_nan=False)
service_rates = st.floats(min_value=0.01, max_value=100.0, allow_nan=False)
backlogs = st.floats(min_value=0.0, max_value=1000.0, allow_nan=False)
times = st.floats(min_value=0.0, max_value=10.0, allow_nan=False)


def model(lam: float, mu: float, q0: float = 4.0) -> QueueModel:
    m = QueueModel()
    m.param.update(arrival_rate=lam, service_rate=mu, initial_backlog=q0)
    return m


def test_seed_growth_one_unit_per_second_from_four():
    m = model(4, 3)
    assert [m.backlog_at(t) for t in range(4)] == [4, 5, 6, 7]
    assert m.net_rate == 1
    assert m.drain_time is None
    assert m.mm1 is None


def test_seed_drain_at_four_seconds():
    m = model(2, 3)
    assert m.drain_time == 4
    assert [m.backlog_at(t) for t in (3, 4, 5, 10)] == [1, 0, 0, 0]


def test_mm1_reference_values():
    ref = model(2, 3).mm1
    assert ref is not None
    assert ref.rho == pytest.approx(2 / 3)
    assert ref.L == pytest.approx(2.0)
    assert ref.Lq == pytest.approx(4 / 3)
    assert ref.W == pytest.approx(1.0)
    assert ref.Wq == pytest.approx(2 / 3)
    assert model(3, 3).mm1 is None


@given(rates, service_rates, backlogs, times)
def test_backlog_is_never_negative(lam, mu, q0, t):
    assert model(lam, mu, q0).backlog_at(t) >= 0


@given(rates, service_rates, backlogs, times, times)
def test_linear_until_zero_then_zero(lam, mu, q0, t1, t2):
    m = model(lam, mu, q0)
    drain = m.drain_time
    for t in (t1, t2):
        if drain is None or t <= drain:
            assert m.backlog_at(t) == pytest.approx(q0 + (lam - mu) * t, abs=1e-9)
        else:
            assert m.backlog_at(t) == 0


@given(rates, service_rates, backlogs, times)
def test_continuous_in_time(lam, mu, q0, t):
    m = model(lam, mu, q0)
    h = 1e-7
    assert abs(m.backlog_at(t + h) - m.backlog_at(t)) <= abs(lam - mu) * h + 1e-9


@given(rates, service_rates, times, rates)
def test_edit_keeps_t_and_recomputes_from_q0(lam, mu, t, new_lam):
    m = model(lam, mu)
    m.t = t
    m.apply("arrival_rate", new_lam)
    assert m.t == t
    assert m.backlog == pytest.approx(max(0.0, 4 + (new_lam - mu) * t), abs=1e-9)


@given(rates, service_rates, backlogs)
def test_trajectory_breakpoints_reproduce_the_formula(lam, mu, q0):
    import numpy as np

    m = model(lam, mu, q0)
    traj = m.trajectory()
    grid = np.linspace(0, m.horizon, 101)
    assert np.allclose(np.interp(grid, traj["t"], traj["backlog"]), m.backlog_at(grid), atol=1e-7)


@settings(max_examples=50)
@given(st.one_of(st.text(max_size=8), st.sampled_from(["nan", "inf", "-inf", "-1", "101", "1e9"])))
def test_refused_values_change_nothing(raw):
    m = model(4, 3)
    m.t = 2
    before = m.param.values()
    try:
        value = float(raw.strip().replace("\u2212", "-"))
    except ValueError:
        value = math.nan
    if math.isfinite(value) and 0 <= value <= 100:
        return  # a valid number: nothing to refuse
    with pytest.raises(InvalidInput) as refusal:
        m.apply("arrival_rate", raw)
    assert "Arrival rate λ" in str(refusal.value)
    assert "kept 4" in str(refusal.value)
    assert m.param.values() == before


@pytest.mark.parametrize("raw", ["0", "-2", "nan", "abc"])
def test_service_rate_must_be_positive(raw):
    m = QueueModel()
    with pytest.raises(InvalidInput, match="Service rate μ"):
        m.apply("service_rate", raw)
    assert m.service_rate == 2


def test_typed_forms_are_accepted():
    m = QueueModel()
    assert m.apply("arrival_rate", " 2.5 ") == 2.5
    assert m.apply("arrival_rate", "3,5") == 3.5
    assert m.apply("initial_backlog", "1e1") == 10


def test_unknown_control_is_refused():
    with pytest.raises(InvalidInput):
        QueueModel().apply("t", 3)


def test_step_stops_at_the_horizon_and_reset_restores_defaults():
    m = model(4, 3, 7)
    for _ in range(15):
        m.step()
    assert m.t == m.horizon == 10
    assert m.at_end
    m.reset()
    assert (m.t, m.arrival_rate, m.service_rate, m.initial_backlog) == (0, 1, 2, 4)


@pytest.mark.parametrize(
    ("reported", "expected"), [(3.25, 3.25), (-1, 0), (99, 10), ("x", 1), (math.nan, 1), (None, 1)]
)
def test_take_time_clamps_and_ignores_garbage(reported, expected):
    m = QueueModel()
    m.t = 1
    m.take_time(reported)
    assert m.t == expected


def test_empty_queue_with_more_arrivals_grows_from_zero():
    m = model(2, 1, 0)
    assert m.drain_time is None
    assert m.backlog_at(3) == 3
