"""The random (M/M/1) queue beside the fluid one: invariants (hypothesis), the seed, the switch, the horizon."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labs.queue.model import MAX_DRAWN_EVENTS, RANDOM_HORIZON, QueueModel, simulate_mm1
from labs.timed import InvalidInput
from labs.ui.playback import fill_template, readout_html, sample
from tests.headless import send, status_text

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


# ----- the view, headless ---------------------------------------------------------------------------


@pytest.fixture
def lab():
    from labs.queue.view import QueueLab

    view = QueueLab()
    view.__panel__()
    return view


def drawn_now(lab) -> tuple:
    """Everything the page shows of the lab, for comparing two states."""
    return (
        status_text(lab),
        lab.mm1_panel.text,
        lab.figure.title.text,
        lab.figure.y_range.end,
        lab.figure.x_range.end,
        list(lab.figure.renderers),
        lab.transport.speed.options,
        lab.transport.speed.value,
        {k: list(v) for k, v in lab.transport.reveal.data.items()},
        lab.describe_plots(),
    )


def test_off_the_lab_is_as_it_was_and_switching_on_then_off_brings_it_back(lab):
    before = drawn_now(lab)
    assert "random" not in before[0] and "average" not in before[0] and len(before[5]) == 2
    assert set(lab.transport.state.trajectory) == {"t", "backlog"}
    lab.switch.value = True
    assert drawn_now(lab) != before
    lab.switch.value = False
    assert lab.model.random_queue is False
    assert drawn_now(lab) == before


def test_switched_on_the_readout_adds_random_and_average_and_the_run_plays_in_10_s(lab):
    lab.switch.value = True
    text = status_text(lab)
    assert "random = 4 jobs" in text and "average = 4.00 jobs" in text and "backlog = 4.00 units" in text
    assert lab.transport.speed.value == "50×" and lab.model.horizon == 500  # 500 s in 10 s
    assert set(lab.transport.state.trajectory) == {"t", "backlog", "random", "average"}
    assert lab.figure.renderers[:2] == lab.chart.random_lines and lab.figure.x_range.end == 500
    send(lab, "pause", 250.0)
    m = lab.model
    text = status_text(lab)
    assert f"random = {m.random_jobs:.0f} jobs" in text and f"average = {m.random_average:.2f} jobs" in text
    assert lab.figure.y_range.end >= m.random_peak_at(500)


def test_the_readout_is_what_the_page_fills_from_the_path_it_was_sent(lab):
    lab.switch.value = True
    state = lab.transport.state
    trajectory = {k: np.asarray(v) for k, v in state.trajectory.items()}
    for t in (0.0, 3.3, 77.7, 499.0):
        send(lab, "pause", t)
        assert (
            status_text(lab).strip()
            == re.sub(
                r"<[^>]+>", " ", readout_html(fill_template(lab._template(), sample(trajectory, t)), live=False)
            ).strip()
        )
        assert sample(trajectory, t)["random"] == lab.model.random_jobs_at(t)


def test_the_seed_field_and_reset(lab):
    lab.switch.value = True
    send(lab, "pause", 300.0)
    first = status_text(lab)
    seed = lab.seed_field
    assert seed.input.label == "Seed" and seed.input.value == "2026"
    seed.input.value = "7"
    assert lab.model.seed == 7 and status_text(lab) != first
    seed.input.value = "7.5"
    assert lab.model.seed == 7 and "whole number" in seed.error
    send(lab, "reset")
    assert lab.model.random_queue is False and lab.switch.value is False and lab.model.seed == 2026
    lab.switch.value = True
    send(lab, "pause", 300.0)
    assert status_text(lab) == first  # the same seed after Reset: the same path


def test_the_mm1_panel_says_what_the_average_approaches_or_that_there_is_nothing_to_approach(lab):
    lab.switch.value = True
    assert "approach L = 1.00 jobs" in lab.mm1_panel.text
    lab.model.apply("arrival_rate", 3)
    assert "no steady state" in lab.mm1_panel.text and "grows without bound" in lab.mm1_panel.text


def test_the_plot_text_describes_the_random_path(lab):
    lab.switch.value = True
    send(lab, "pause", 100.0)
    (plot,) = lab.describe_plots()
    m = lab.model
    assert "random M/M/1 queue (seed 2026)" in plot.summary
    assert f"now {m.random_jobs:.0f} jobs" in plot.summary and f"now {m.random_average:.2f} jobs" in plot.summary
    assert plot.rows == [[f"{t:.2f}", f"{q:.2f}"] for t, q in ((0, 4), (4, 0), (100, 0))]  # the fluid path's


def test_an_exercise_on_the_average_hides_it_and_the_mm1_means_until_it_is_done(lab):
    lab.switch.value = True
    lab.param.update(conceal=True, hidden_quantity="random_average")
    assert "average =" not in status_text(lab) and "random = 4 jobs" in status_text(lab)
    assert "L = " not in lab.mm1_panel.text and "hidden until" in lab.mm1_panel.text
    assert not lab.chart.mm1_line.visible and not lab.chart.mm1_label.visible
    assert not lab.chart.random_lines[1].visible and "L = " not in lab.describe_plots()[0].summary
    lab.param.update(conceal=False, hidden_quantity="")
    assert "average = 4.00 jobs" in status_text(lab) and lab.chart.random_lines[1].visible


def test_while_an_exercise_asks_for_the_peak_the_axis_does_not_depend_on_the_seed(lab):
    lab.switch.value = True
    lab.param.update(conceal=True, hidden_quantity="random_peak")
    tops = set()
    for seed in ("1", "2", "3", "4"):
        lab.seed_field.input.value = seed
        tops.add(lab.figure.y_range.end)
    assert len(tops) == 1


@pytest.mark.parametrize(("lam", "mu"), [(0.0, 2.0), (0.001, 2.0), (1.0, 2.0), (0.9, 1.0), (2.0, 2.0), (3.0, 2.0)])
def test_the_level_the_axis_allows_for_while_concealed_is_near_what_a_run_reaches(lam, mu):
    """Above the fluid line and most runs' peaks, and not a hundred times taller than either."""
    from labs.queue.text import random_reach

    m = random_model(lam=lam, mu=mu)
    reach = random_reach(m)
    peaks = [random_model(lam=lam, mu=mu, seed=seed).random_peak_at(500.0) for seed in range(20)]
    assert reach >= 4 and sorted(peaks)[10] <= reach <= 10 * max(peaks) + 10, (reach, peaks)
