"""The fluid-queue model: formulas, invariants (hypothesis), refusals, Step and Reset."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labs.numbers import parse_number
from labs.queue.model import QueueModel
from labs.timed import InvalidInput

# Subnormal floats (below 2.2e-308) are left out: at that scale q0 − μ·t rounds to 0 before the
# drain time, which says nothing about the model.
rates = st.floats(min_value=0.0, max_value=100.0, allow_nan=False, allow_subnormal=False)
service_rates = st.floats(min_value=0.01, max_value=100.0, allow_nan=False, allow_subnormal=False)
backlogs = st.floats(min_value=0.0, max_value=1000.0, allow_nan=False, allow_subnormal=False)
times = st.floats(min_value=0.0, max_value=10.0, allow_nan=False, allow_subnormal=False)


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
@given(st.one_of(st.text(max_size=8), st.sampled_from(["nan", "inf", "-inf", "-1", "101", "1e9", "1,5", "1,000"])))
def test_refused_values_change_nothing(raw):
    m = model(4, 3)
    m.t = 2
    before = m.param.values()
    try:
        value = parse_number(raw)  # the app's one rule (a decimal comma reads as a point)
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


# -- "Arrivals stop at" T: after T, λ = 0 and the backlog drains at μ ----------------------------

stops = st.floats(min_value=0.0, max_value=1000.0, allow_nan=False, allow_subnormal=False)
stops_inside = st.floats(min_value=0.0, max_value=10.0, allow_nan=False, allow_subnormal=False)


def stopped(lam: float, mu: float, q0: float, stop: float | None) -> QueueModel:
    m = model(lam, mu, q0)
    m.arrivals_stop = stop
    return m


def test_arrivals_never_stop_by_default_and_reset_clears_the_stop():
    m = QueueModel()
    assert m.arrivals_stop is None and m.shown_value("arrivals_stop") == "never"
    m.apply("arrivals_stop", "5")
    assert m.arrivals_stop == 5 and m.shown_value("arrivals_stop") == "5"
    m.reset()
    assert m.arrivals_stop is None


def test_the_tail_after_arrivals_stop():
    m = stopped(4, 3, 4, 5)
    assert m.backlog_at(5) == 9  # 4 + (4 − 3) × 5
    assert [m.backlog_at(t) for t in (6, 7, 8, 9)] == [6, 3, 0, 0]  # then down at μ = 3
    assert m.drain_time == 8  # 5 + 9/3: a 3 s tail
    traj = m.trajectory()
    assert traj["t"].tolist() == [0, 5, 8, 10] and traj["backlog"].tolist() == [4, 9, 0, 0]
    assert m.net_rate == 1  # λ − μ is still the rate while work arrives


def test_a_queue_that_drains_before_the_stop_is_not_changed_by_it():
    m = stopped(2, 3, 4, 6)
    assert m.drain_time == 4
    assert [m.backlog_at(t) for t in (3, 4, 6, 8)] == [1, 0, 0, 0]


def test_a_stop_before_the_drain_shortens_it():
    m = stopped(2, 3, 4, 1)  # 3 left at t = 1, then gone at 3 per second
    assert m.backlog_at(1) == 3 and m.drain_time == 2


@given(rates, service_rates, backlogs, stops_inside, times)
def test_before_the_stop_nothing_changes(lam, mu, q0, stop, t):
    t = min(t, stop)
    assert stopped(lam, mu, q0, stop).backlog_at(t) == model(lam, mu, q0).backlog_at(t)


@given(rates, service_rates, backlogs, stops_inside, times)
def test_after_the_stop_it_drains_at_mu(lam, mu, q0, stop, t):
    m = stopped(lam, mu, q0, stop)
    at_stop = m.backlog_at(stop)
    if t > stop:
        assert m.backlog_at(t) == pytest.approx(max(0.0, at_stop - mu * (t - stop)), abs=1e-9)
        assert m.backlog_at(t) <= at_stop
    assert m.backlog_at(t) >= 0


@given(rates, service_rates, backlogs, stops)
def test_with_a_stop_it_always_drains_and_stays_empty(lam, mu, q0, stop):
    m = stopped(lam, mu, q0, stop)
    drain = m.drain_time
    assert drain is not None and math.isfinite(drain)
    assert m.backlog_at(drain) == pytest.approx(0, abs=1e-6 * max(1.0, q0 + lam * stop))
    assert m.backlog_at(drain + 1) == 0
    if drain > 0:
        assert m.backlog_at(drain * (1 - 1e-6)) > 0 or q0 == 0


@given(rates, service_rates, backlogs, stops_inside, times)
def test_continuous_in_time_with_a_stop(lam, mu, q0, stop, t):
    m = stopped(lam, mu, q0, stop)
    h = 1e-7
    assert abs(m.backlog_at(t + h) - m.backlog_at(t)) <= max(abs(lam - mu), mu) * h + 1e-9


@given(rates, service_rates, backlogs, stops, st.lists(times, min_size=1, max_size=20))
def test_trajectory_breakpoints_are_exact_with_a_stop(lam, mu, q0, stop, probes):
    import numpy as np

    m = stopped(lam, mu, q0, stop)
    traj = m.trajectory()
    assert traj["t"][0] == 0 and traj["t"][-1] == m.horizon
    assert np.all(np.diff(traj["t"]) > 0)
    grid = np.concatenate([np.linspace(0, m.horizon, 101), probes])
    scale = max(1.0, q0 + lam * m.horizon)
    assert np.allclose(np.interp(grid, traj["t"], traj["backlog"]), m.backlog_at(grid), atol=1e-9 * scale)
    if stop >= m.horizon:
        plain = model(lam, mu, q0).trajectory()
        assert np.array_equal(traj["t"], plain["t"]) and np.array_equal(traj["backlog"], plain["backlog"])


@given(rates, service_rates, stops_inside, times, rates)
def test_edits_keep_t_and_the_stop(lam, mu, stop, t, new_lam):
    m = stopped(lam, mu, 4, stop)
    m.t = t
    m.apply("arrival_rate", new_lam)
    assert m.t == t and m.arrivals_stop == stop
    assert m.backlog == pytest.approx(stopped(new_lam, mu, 4, stop).backlog_at(t), abs=1e-12)


@pytest.mark.parametrize(("typed", "value"), [("", None), ("never", None), (" Never ", None), ("3,5", 3.5), ("0", 0)])
def test_stop_time_typed_forms(typed, value):
    m = QueueModel()
    m.arrivals_stop = 7
    assert m.apply("arrivals_stop", typed) == value
    assert m.arrivals_stop == value


@settings(max_examples=50)
@given(
    st.one_of(st.text(max_size=8), st.sampled_from(["nan", "inf", "-inf", "-1", "1001", "1e9", "soon"])),
    st.sampled_from([None, 5.0]),
)
def test_refused_stop_times_change_nothing(raw, kept):
    m = model(4, 3)
    m.arrivals_stop = kept
    m.t = 2
    before = m.param.values()
    text = raw.strip().replace("\u2212", "-")
    if text.lower() in ("", "never", "none", "no", "-", "\u2014"):
        return  # "never": accepted
    if text.count(",") == 1 and "." not in text:
        text = text.replace(",", ".")
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if math.isfinite(value) and 0 <= value <= 1000:
        return  # a valid time: nothing to refuse
    with pytest.raises(InvalidInput) as refusal:
        m.apply("arrivals_stop", raw)
    message = str(refusal.value)
    assert "Arrivals stop at" in message and "empty for never" in message
    assert ("kept never" if kept is None else "kept 5") in message
    assert m.param.values() == before
