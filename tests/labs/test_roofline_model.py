"""The roofline model: the seed exercises, invariants (hypothesis), the race Play runs, refusals."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from labs.roofline import model as roofline_module
from labs.roofline.model import (
    AT_RIDGE,
    COMPUTE_BOUND,
    MEMORY_BOUND,
    PACE_CAP,
    RooflineModel,
    playback_scale,
)
from labs.timed import InvalidInput

intensities = st.floats(min_value=1 / 16, max_value=4096.0, allow_nan=False)
bandwidths = st.floats(min_value=1.0, max_value=100_000.0, allow_nan=False)
roofs = st.floats(min_value=1.0, max_value=1e7, allow_nan=False)


def as_number(raw: str) -> float:
    """What a typed text means as a number (typographic minus, one decimal comma), or NaN."""
    text = raw.strip().replace("\u2212", "-")
    if text.count(",") == 1 and "." not in text:
        text = text.replace(",", ".")
    try:
        return float(text)
    except ValueError:
        return math.nan


def model(intensity: float = 8.0, bandwidth: float = 100.0, peak: float = 1000.0) -> RooflineModel:
    m = RooflineModel()
    m.param.update(intensity=intensity, bandwidth=bandwidth, peak_compute=peak)
    return m


# ----- the seed exercises and the lesson's worked example -------------------------------------


def test_below_the_ridge_seed_exercise():
    m = model(8, 100)
    assert m.attainable == 800
    assert m.regime == MEMORY_BOUND
    assert m.ridge == 10


def test_compute_roof_seed_exercise():
    m = model(16, 100)
    assert m.attainable == 1000
    assert m.regime == COMPUTE_BOUND
    assert m.ridge == 10


def test_exactly_at_the_ridge_says_so_with_both_words():
    m = model(10, 100)
    assert m.attainable == 1000
    assert m.regime == AT_RIDGE
    assert "memory-bound" in m.regime and "compute-bound" in m.regime and "ridge" in m.regime


def test_the_lessons_race_of_8_gflop():
    m = model(8, 100)
    assert m.work == 8 and m.traffic == 1
    assert m.memory_time == pytest.approx(0.010)
    assert m.compute_time == pytest.approx(0.008)
    assert m.finish_time == pytest.approx(0.010)
    assert m.achieved_rate == pytest.approx(800)
    m = model(16, 100)
    assert m.traffic == 0.5
    assert m.memory_time == pytest.approx(0.005)
    assert m.finish_time == pytest.approx(0.008)
    assert m.achieved_rate == pytest.approx(1000)


def test_teaching_device_plays_one_millisecond_per_second():
    m = model(8, 100)
    assert m.time_scale == pytest.approx(1e-3)
    assert m.time_unit == ("ms", 1e-3)
    assert m.horizon == pytest.approx(10)
    assert model(16, 100).horizon == pytest.approx(8)


def test_defaults_are_not_the_exercise_values():
    m = RooflineModel()
    assert (m.intensity, m.bandwidth, m.peak_compute) == (2, 200, 1000)
    assert m.attainable == 400 and m.regime == MEMORY_BOUND
    assert 4 < m.horizon <= 10


def test_every_parameter_is_bounded_and_documented():
    m = RooflineModel()
    for name in (*m.controls, "t", "step_size", "horizon", "work"):
        parameter = m.param[name]
        assert parameter.doc, name
        assert parameter.bounds is not None, name
    for name in m.controls:
        low, high = m.param[name].bounds
        assert low is not None and high is not None, name
    assert m.param.intensity.bounds == (1 / 16, 4096)
    labels = [m.param[name].label for name in m.controls]
    assert labels == ["Arithmetic intensity I", "Memory bandwidth B", "Compute roof P"]


def test_the_model_module_imports_only_param_numpy_timed_and_numbers():
    tree = ast.parse(Path(roofline_module.__file__).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module)
    assert imported <= {"__future__", "math", "numpy", "param", "labs.timed", "labs.numbers"}, imported


# ----- invariants -------------------------------------------------------------------------------


@given(intensities, bandwidths, roofs)
def test_attainable_is_under_both_ceilings_and_on_one_of_them(i, b, p):
    m = model(i, b, p)
    assert m.attainable <= p
    assert m.attainable <= i * b
    assert m.attainable in (p, i * b)


@given(intensities, intensities, bandwidths, roofs)
def test_monotone_in_intensity(i1, i2, b, p):
    low, high = sorted((i1, i2))
    assert model(low, b, p).attainable <= model(high, b, p).attainable


@given(intensities, bandwidths, bandwidths, roofs)
def test_monotone_in_bandwidth(i, b1, b2, p):
    low, high = sorted((b1, b2))
    assert model(i, low, p).attainable <= model(i, high, p).attainable


@given(bandwidths, roofs, st.floats(min_value=1e-9, max_value=1e-3))
def test_continuous_at_the_ridge(b, p, h):
    m = RooflineModel()
    m.param.update(bandwidth=b, peak_compute=p)
    ridge = m.ridge
    assume(1 / 16 * 1.01 <= ridge <= 4096 / 1.01)
    values = []
    for i in (ridge * (1 - h), ridge, ridge * (1 + h)):
        m.intensity = i
        values.append(m.attainable)
    assert values[1] == pytest.approx(p, rel=1e-12)
    assert abs(values[0] - values[1]) <= 2 * h * p
    assert abs(values[2] - values[1]) <= 1e-12 * p


@given(intensities, bandwidths, roofs)
def test_regime_matches_the_side_of_the_ridge(i, b, p):
    m = model(i, b, p)
    if i * b < p * (1 - 1e-6):
        assert m.regime == MEMORY_BOUND and i < m.ridge
    elif i * b > p * (1 + 1e-6):
        assert m.regime == COMPUTE_BOUND and i > m.ridge
    assert m.regime in (MEMORY_BOUND, COMPUTE_BOUND, AT_RIDGE)


@given(intensities, bandwidths, roofs)
def test_finish_is_the_slower_side_and_the_achieved_rate_is_attainable(i, b, p):
    m = model(i, b, p)
    assert m.memory_time == pytest.approx(m.traffic / b)
    assert m.compute_time == pytest.approx(m.work / p)
    assert m.finish_time == max(m.memory_time, m.compute_time)
    assert m.achieved_rate == pytest.approx(m.attainable, rel=1e-9)


@given(intensities, bandwidths, roofs)
def test_every_run_plays_for_4_to_10_seconds_on_a_1_2_5_scale(i, b, p):
    m = model(i, b, p)
    assert 4 < m.horizon <= 10 + 1e-9
    assert m.horizon == pytest.approx(m.finish_time / m.time_scale)
    mantissa = m.time_scale / 10 ** math.floor(math.log10(m.time_scale) + 1e-12)
    assert min(abs(mantissa - k) for k in (1, 2, 5)) < 1e-9
    unit, seconds = m.time_unit
    assert 10 * m.time_scale / seconds >= 1 - 1e-9


@pytest.mark.parametrize("finish", [1e-7, 8e-3, 0.01, 0.0100001, 0.02, 0.0201, 2.98e-4, 128.0])
def test_playback_scale_edges(finish):
    scale = playback_scale(finish)
    assert 4 < finish / scale <= 10 + 1e-9


@given(intensities, bandwidths, roofs)
def test_trajectory_is_exact_under_interpolation_and_honest(i, b, p):
    m = model(i, b, p)
    traj = m.trajectory()
    assert traj["t"][0] == 0 and traj["t"][-1] == pytest.approx(m.horizon)
    assert np.all(np.diff(traj["t"]) > 0)
    assert traj["bytes_pct"][0] == traj["flops_pct"][0] == 0
    assert traj["bytes_pct"][-1] == traj["flops_pct"][-1] == 100  # at the finish, both done
    grid = np.linspace(0, m.horizon, 41)
    device = grid * m.time_scale
    truth = m.progress_at(device)
    for column in ("bytes_pct", "flops_pct"):
        assert np.allclose(np.interp(grid, traj["t"], traj[column]), truth[column], atol=1e-6)
    assert np.allclose(np.interp(grid, traj["t"], traj["time"]), device / m.time_unit[1], rtol=1e-9)
    # FLOPs never run ahead of the bytes they need, nor faster than P
    assert np.all(truth["flops_pct"] <= truth["bytes_pct"] + 1e-9)
    flops = truth["flops_pct"] / 100 * m.work
    assert np.all(flops <= p * device * (1 + 1e-9) + 1e-12)
    # before the finish the kernel is not done; bytes arrive at B until they are all in
    assert np.all(truth["flops_pct"][device < m.finish_time * (1 - 1e-9)] < 100)
    early = device < m.memory_time
    assert np.allclose(truth["bytes_pct"][early] / 100 * m.traffic, b * device[early], rtol=1e-9)


@given(intensities, bandwidths, roofs)
def test_the_pace_falls_past_each_ceiling_when_that_side_alone_is_done(i, b, p):
    m = model(i, b, p)
    traj = m.trajectory()
    assert traj["pace"][0] == PACE_CAP * p and traj["pace"][-1] == m.attainable  # at rest on the kernel
    assert np.all(np.diff(traj["pace"]) <= 0)
    # Between breakpoints Play interpolates; it stays within 1.4 % of work / elapsed.
    grid = np.linspace(0, m.horizon, 401)[1:]
    truth = np.minimum(PACE_CAP * p, m.work / (grid * m.time_scale))
    assert np.all(np.abs(np.interp(grid, traj["t"], traj["pace"]) / truth - 1) < 0.014)
    # A ceiling is at or above the pace exactly once its side alone would be done.
    for ceiling, alone in ((i * b, m.memory_time), (p, m.compute_time)):
        assert m.pace_at(alone) == pytest.approx(min(ceiling, PACE_CAP * p), rel=1e-9) or alone >= m.finish_time
        if ceiling < PACE_CAP * p and alone * (1 - 1e-6) < m.finish_time:  # (held at the cap: far above the plot)
            assert m.pace_at(alone * (1 - 1e-6)) > ceiling


def test_the_pace_on_the_lessons_example():
    m = model(8, 100)  # memory 10 ms, compute alone 8 ms
    assert m.pace_at(np.array([0.002, 0.008, 0.010])) == pytest.approx([4000, 1000, 800])


def test_memory_bound_arithmetic_waits_for_bytes_and_compute_bound_bytes_finish_early():
    m = model(8, 100)
    half = m.progress_at(0.004)  # 4 ms of 10
    assert half["bytes_pct"] == pytest.approx(40) and half["flops_pct"] == pytest.approx(40)
    assert m.progress_at(m.compute_time)["flops_pct"] == pytest.approx(80)  # not 100 at 8 ms
    m = model(16, 100)
    at_5ms = m.progress_at(0.005)
    assert at_5ms["bytes_pct"] == pytest.approx(100) and at_5ms["flops_pct"] == pytest.approx(62.5)


# ----- refusals, Step, Reset, playback ----------------------------------------------------------


@settings(max_examples=60)
@given(
    st.sampled_from(["intensity", "bandwidth", "peak_compute"]),
    st.one_of(
        st.text(max_size=8),
        st.sampled_from(["nan", "NaN", "inf", "-inf", "0", "-1", "1e9", "5000", "0.01", "1e12", "1,2,3"]),
    ),
)
def test_refused_values_change_nothing(control, raw):
    m = model(8, 100)
    m.t = 3
    before = m.param.values()
    low, high = m.param[control].bounds
    if math.isfinite(value := as_number(raw)) and low <= value <= high:
        return  # a valid number: nothing to refuse
    with pytest.raises(InvalidInput) as refusal:
        m.apply(control, raw)
    message = str(refusal.value)
    assert m.param[control].label in message
    assert f"kept {before[control]:g}" in message
    assert m.param.values() == before


@pytest.mark.parametrize("raw", [math.nan, math.inf, -math.inf, None, object()])
def test_non_text_garbage_is_refused(raw):
    m = model(8, 100)
    before = m.param.values()
    with pytest.raises(InvalidInput):
        m.apply("bandwidth", raw)
    assert m.param.values() == before


def test_bounds_are_accepted_and_typed_forms_work():
    m = RooflineModel()
    assert m.apply("intensity", "0.0625") == 1 / 16
    assert m.apply("intensity", "4096") == 4096
    assert m.apply("bandwidth", " 3350 ") == 3350
    assert m.apply("peak_compute", "989000") == 989_000
    assert m.apply("intensity", "2,5") == 2.5


def test_unknown_control_is_refused():
    with pytest.raises(InvalidInput):
        RooflineModel().apply("horizon", 3)
    with pytest.raises(InvalidInput):
        RooflineModel().apply("work", 3)


def test_step_reaches_the_finish_and_playback_changes_no_control():
    m = model(8, 100)
    controls = {name: getattr(m, name) for name in m.controls}
    steps = 0
    while not m.at_end:
        m.step()
        steps += 1
        assert steps < 100
    assert m.t == m.horizon and steps == 10
    assert m.device_time == pytest.approx(m.finish_time)
    m.step()
    assert m.t == m.horizon
    m.take_time(4.5)
    assert m.t == 4.5
    assert {name: getattr(m, name) for name in m.controls} == controls


def test_reset_restores_every_default_and_t_zero():
    m = model(16, 75, 989_000)
    m.t = 3
    m.step_size = 2
    m.reset()
    defaults = RooflineModel()
    for name in (*m.controls, "step_size", "horizon"):
        assert getattr(m, name) == getattr(defaults, name), name
    assert m.t == 0


def test_reset_from_the_defaults_keeps_the_horizon_derived():
    m = RooflineModel()
    m.horizon = 1.0  # somebody sets it by hand
    m.reset()
    assert m.horizon == pytest.approx(m.finish_time / m.time_scale)


def test_an_edit_keeps_t_and_clamps_it_to_the_new_finish():
    m = model(8, 100)  # finishes at t = 10
    m.t = 6
    m.apply("intensity", 16)  # finishes at t = 8
    assert m.t == 6 and m.horizon == pytest.approx(8)
    m.t = 8
    m.apply("bandwidth", 200)  # memory 2.5 ms, compute 8 ms: still t = 8 at the end
    assert m.t == pytest.approx(8)
    m.apply("peak_compute", 4000)  # compute 2 ms, memory 2.5 ms -> scale 0.5 ms, horizon 5
    assert m.horizon == pytest.approx(5) and m.t == pytest.approx(5)


@pytest.mark.parametrize(("reported", "expected"), [(3.25, 3.25), (-1, 0), (99, 10), ("x", 1), (math.nan, 1)])
def test_take_time_clamps_and_ignores_garbage(reported, expected):
    m = model(8, 100)
    m.t = 1
    m.take_time(reported)
    assert m.t == pytest.approx(expected)


def test_two_models_share_nothing():
    one, two = RooflineModel(), RooflineModel()
    one.apply("intensity", 8)
    assert two.intensity == 2
