"""The random (M/M/1) queue beside the fluid one: invariants (hypothesis), the seed, the switch, the horizon."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labs.queue.model import MAX_DRAWN_EVENTS, RANDOM_HORIZON, QueueModel, simulate_mm1
from labs.timed import InvalidInput

rates = st.floats(min_value=0.0, max_value=5.0, allow_nan=False, allow_subnormal=False)
service_rates = st.floats(min_value=0.01, max_value=5.0, allow_nan=False, allow_subnormal=False)
starts = st.integers(min_value=0, max_value=20)
seeds = st.integers(min_value=0, max_value=999_999)
stops = st.none() | st.floats(min_value=0.0, max_value=60.0, allow_nan=False, allow_subnormal=False)


def random_model(lam: float = 1.0, mu: float = 2.0, q0: float = 4.0, seed: int = 2026, **more) -> QueueModel:
    m = QueueModel()
    m.param.update(arrival_rate=lam, service_rate=mu, initial_backlog=q0, seed=seed, random_queue=True, **more)
    return m


@settings(max_examples=60)
@given(lam=rates, mu=service_rates, start=starts, stop=stops, seed=seeds)
def test_the_path_is_whole_never_negative_and_moves_one_job_at_a_time(lam, mu, start, stop, seed):
    path = simulate_mm1(lam, mu, start, stop, 60.0, seed)
    assert path.jobs.dtype.kind == "i"
    assert (path.jobs >= 0).all()
    steps = np.diff(np.concatenate([[start], path.jobs]))
    assert set(np.unique(steps)) <= {-1, 1}
    assert (np.diff(path.times) >= 0).all() and ((path.times > 0) & (path.times <= 60.0)).all()
    if stop is not None:  # after the stop nothing arrives: the count only falls
        assert (steps[path.times >= stop] == -1).all()


@settings(max_examples=40)
@given(lam=rates, mu=service_rates, start=starts, seed=seeds)
def test_the_same_seed_gives_the_same_path(lam, mu, start, seed):
    one, two = (simulate_mm1(lam, mu, start, None, 40.0, seed) for _ in range(2))
    assert np.array_equal(one.times, two.times) and np.array_equal(one.jobs, two.jobs)


def test_another_seed_gives_another_path():
    one, two = (simulate_mm1(1.0, 2.0, 4, None, 100.0, seed) for seed in (1, 2))
    assert not (one.times.size == two.times.size and np.array_equal(one.times, two.times))


@settings(max_examples=40)
@given(lam=st.floats(min_value=0.1, max_value=5.0), start=starts, seed=seeds)
def test_with_no_service_jobs_only_arrive(lam, start, seed):
    path = simulate_mm1(lam, 0.0, start, None, 30.0, seed)
    assert (np.diff(np.concatenate([[start], path.jobs])) == 1).all()  # every event is an arrival


@settings(max_examples=25, derandomize=True, deadline=None)
@given(
    rho=st.floats(min_value=0.1, max_value=0.8),
    mu=st.floats(min_value=0.5, max_value=5.0),
    seed=seeds,
)
def test_a_long_run_averages_near_the_mm1_mean(rho, mu, seed):
    """The time-average over a long run lies within 4 standard errors of L = ρ/(1 − ρ).

    The standard error is the M/M/1 queue length's asymptotic variance for a time-average over T,
    2ρ(1 + ρ) / ((1 − ρ)⁴ μ T) (Whitt, "Planning queueing simulations", 1989; checked here against 300
    seeded runs at ρ = 0.5 and 0.8 to within 10%). T = 20 000 / μ keeps the run under about 32 000
    events, and starting empty biases the average by about L / (μ(1 − √ρ)² T) ≤ 0.02 job, far below
    one standard error. derandomize keeps the drawn cases the same in every run: a 4σ miss would
    otherwise fail one run in about 15 000 cases at random.
    """
    horizon = 20_000 / mu
    path = simulate_mm1(rho * mu, mu, 0, None, horizon, seed)
    last = path.times[-1] if path.times.size else 0.0
    held = path.jobs[-1] if path.jobs.size else 0
    average = (path.area[-1] + held * (horizon - last)) / horizon
    mean = rho / (1 - rho)
    standard_error = math.sqrt(2 * rho * (1 + rho) / ((1 - rho) ** 4 * mu * horizon))
    assert abs(average - mean) <= 4 * standard_error, (average, mean, standard_error)


def test_the_switch_is_off_by_default_and_leaves_the_fluid_queue_as_it_was():
    m = QueueModel()
    assert m.random_queue is False and m.horizon == 10
    assert set(m.trajectory()) == {"t", "backlog"}
    np.testing.assert_array_equal(m.trajectory()["t"], m.fluid_trajectory()["t"])


def test_switched_on_the_run_lasts_500_s_and_off_again_the_horizon_is_back():
    m = QueueModel()
    m.t = 3.0
    m.apply("random_queue", True)
    assert m.horizon == RANDOM_HORIZON == 500 and m.t == 3.0
    m.t = 200.0
    m.apply("random_queue", "off")
    assert m.horizon == 10 and m.t == 10
    m.apply("random_queue", "on")
    m.reset()
    assert m.random_queue is False and m.horizon == 10 and m.t == 0 and m.seed == 2026


def test_readings_follow_the_path_at_any_time():
    m = random_model()
    path = m.random_path
    assert m.random_jobs_at(0.0) == 4 and m.random_average_at(0.0) == 4 and m.random_peak_at(0.0) == 4
    for k in (0, 5, len(path.times) // 2, len(path.times) - 1):
        t = float(path.times[k])
        assert m.random_jobs_at(t) == path.jobs[k]  # right-continuous: the event at t has happened
        assert m.random_jobs_at(np.nextafter(t, 0)) == (path.jobs[k - 1] if k else 4)
        assert m.random_average_at(t) == pytest.approx(path.area[k] / t)
        assert m.random_peak_at(t) == max(4, path.jobs[: k + 1].max())
    m.t = 123.0
    assert m.random_jobs == m.reading("random_jobs") == m.reading("random_jobs", at=123.0)
    assert m.reading("random_average", at=500) == m.random_average_at(500.0)
    assert QueueModel.readable_at("random_average") and QueueModel.readable_at("random_peak")


def test_the_run_is_computed_once_per_change_of_the_controls():
    m = random_model()
    first = m.random_path
    m.t = 250.0
    assert m.random_path is first
    m.seed = 7
    assert m.random_path is not first
    m.seed = 2026
    assert np.array_equal(m.random_path.times, first.times)


def test_the_drawn_path_holds_the_count_between_events_and_the_fluid_line_is_exact():
    m = random_model(arrivals_stop=100.0)
    drawn = m.trajectory()
    assert set(drawn) == {"t", "backlog", "random", "average"}
    assert (np.diff(drawn["t"]) >= 0).all() and drawn["t"][0] == 0 and drawn["t"][-1] == 500
    probes = np.linspace(0, 500, 997)
    np.testing.assert_allclose(np.interp(probes, drawn["t"], drawn["random"]), m.random_jobs_at(probes))
    np.testing.assert_allclose(np.interp(probes, drawn["t"], drawn["backlog"]), m.backlog_at(probes), atol=1e-9)
    np.testing.assert_allclose(drawn["average"], m.random_average_at(drawn["t"]))


def test_a_busy_queue_is_drawn_sampled_but_read_exactly():
    m = random_model(lam=50.0, mu=50.0)
    assert m.random_path.times.size > MAX_DRAWN_EVENTS
    drawn = m.trajectory()
    assert drawn["t"].size <= 2 * MAX_DRAWN_EVENTS + 8
    grid = np.linspace(0, 500, MAX_DRAWN_EVENTS + 1)[1:-1]
    np.testing.assert_array_equal(np.interp(grid, drawn["t"], drawn["random"]), m.random_jobs_at(grid))


def test_after_the_stop_the_random_queue_empties_for_good():
    m = random_model(lam=1.0, mu=2.0, arrivals_stop=50.0)
    assert m.random_jobs_at(500.0) == 0


@pytest.mark.parametrize("typed", ["1.5", "-1", "1000000", "abc", "nan"])
def test_a_seed_must_be_a_whole_number_in_range(typed):
    m = QueueModel()
    with pytest.raises(InvalidInput, match="Seed"):
        m.apply("seed", typed)
    assert m.seed == 2026


def test_a_seed_is_kept_as_a_whole_number():
    m = QueueModel()
    assert m.apply("seed", "42") == 42 and isinstance(m.seed, int) and m.shown_value("seed") == "42"


def test_the_switch_takes_on_and_off_and_refuses_anything_else():
    m = QueueModel()
    assert m.apply("random_queue", "true") is True
    with pytest.raises(InvalidInput, match="neither on nor off"):
        m.apply("random_queue", "maybe")
    assert m.random_queue is True
