"""The roofline lab's view without a browser: inputs, readout contract, plot data, presets, Play."""

from __future__ import annotations

import re

import pytest

from labs.numbers import significant
from labs.roofline.devices import CUSTOM_DEVICE, DEVICES, TEACHING_DEVICE
from labs.roofline.figures import PACE_WORDS
from labs.roofline.text import COMPUTE_COLOUR, MEMORY_COLOUR, X_RANGE, axis_label, performance, performance_range
from labs.roofline.view import RooflineLab
from tests.headless import field, send, status_text

H100, H200, A100 = list(DEVICES)[1:4]


def type_in(lab: RooflineLab, control: str, value: str) -> None:
    field(lab, control).input.value = value


@pytest.fixture
def lab() -> RooflineLab:
    view = RooflineLab()
    view.__panel__()
    return view


def test_initial_readout_follows_the_contract(lab):
    text = status_text(lab)
    assert "attainable = 400 GFLOP/s" in text
    assert "memory-bound" in text and "compute-bound" not in text
    assert "ridge = 5 FLOP/byte" in text
    assert lab.transport.status.html_attributes["role"] == "status"  # the Div's element: it stays
    assert 'class="readout"' in lab.transport.status.text and "role=" not in lab.transport.status.text


def test_inputs_are_named_for_the_contract(lab):
    names = [f.input.label for f in lab.fields]
    assert names == ["Arithmetic intensity I (FLOP/byte)", "Memory bandwidth B (GB/s)", "Compute roof P (GFLOP/s)"]
    assert [f.input.value for f in lab.fields] == ["2", "200", "1000"]


def test_below_the_ridge_exercise_values(lab):
    type_in(lab, "intensity", "8")
    type_in(lab, "bandwidth", "100")
    text = status_text(lab)
    assert "attainable = 800 GFLOP/s" in text and "memory-bound" in text and "ridge = 10 FLOP/byte" in text
    assert "memory needs 10 ms, compute needs 8 ms" in lab.explain.text and "memory needs" not in text
    assert len(text.split()) < 30, "the live status stays short; the explanation sits outside it"
    assert "TFLOP/s" not in text
    assert lab.chart.kernel.data["x"] == [8] and lab.chart.kernel.data["y"] == [800]
    assert lab.chart.ridge_point.data == {"x": [10], "y": [1000]}
    assert lab.chart.roof.data["x"] == [X_RANGE[0], 10, X_RANGE[1]]
    assert lab.chart.roof.data["y"] == [pytest.approx(X_RANGE[0] * 100), 1000, 1000]
    assert lab.chart.memory_area.right == 10 and lab.chart.compute_area.left == 10
    assert lab.chart.ridge_line.location == 10 and lab.chart.ridge_line.visible
    assert lab.chart.ridge_label.text == "ridge = 10 FLOP/byte"
    assert "800 GFLOP/s" in lab.chart.kernel_label.text


def test_compute_roof_exercise_values(lab):
    type_in(lab, "intensity", "16")
    type_in(lab, "bandwidth", "100")
    text = status_text(lab)
    assert "attainable = 1000 GFLOP/s" in text and "compute-bound" in text and "memory-bound" not in text
    assert "ridge = 10 FLOP/byte" in text
    assert lab.chart.kernel.data["y"] == [1000]


def test_at_the_ridge_the_readout_says_so(lab):
    type_in(lab, "intensity", "10")
    type_in(lab, "bandwidth", "100")
    text = status_text(lab)
    assert "at the ridge: memory-bound and compute-bound at once" in text
    assert "attainable = 1000 GFLOP/s" in text


def test_a_refusal_keeps_the_typed_text_and_the_model_and_says_why(lab):
    type_in(lab, "intensity", "8")
    before = lab.transport.status.text
    f = field(lab, "intensity")
    for typed in ("nan", "inf", "0", "5000", "eight"):
        f.input.value = typed
        assert lab.model.intensity == 8
        assert f.input.value == typed
        assert "Arithmetic intensity I" in f.error and "kept 8" in f.error
        assert f.input.error == f.error  # shown in the field's own alert line
        assert lab.transport.status.text == before
    f.input.value = "4"
    assert f.error == ""
    assert "attainable = 800 GFLOP/s" in status_text(lab)  # 4 × 200


@pytest.mark.parametrize(
    ("control", "label", "typed"),
    [("intensity", "Arithmetic intensity I", t) for t in ("abc", "nan", "inf", "0", "5000", "")]
    + [("bandwidth", "Memory bandwidth B", "-100")],
)
def test_every_refused_value_keeps_the_model_the_field_and_the_readout(lab, control, label, typed):
    """The browser types one of these (tests/browser/test_roofline_browser.py); each is refused the same way."""
    type_in(lab, "intensity", "8")
    type_in(lab, "bandwidth", "100")
    kept = {"intensity": "8", "bandwidth": "100"}[control]
    before = lab.transport.status.text
    f = field(lab, control)
    f.input.value = typed
    assert f.input.value == typed and getattr(lab.model, control) == float(kept)
    assert label in f.error and f"kept {kept}" in f.error and f.input.error == f.error
    assert lab.transport.status.text == before
    f.input.value = "16" if control == "intensity" else "200"
    assert f.error == "" and "compute-bound" in status_text(lab)


def test_play_commands_never_change_the_controls(lab):
    type_in(lab, "intensity", "8")
    type_in(lab, "bandwidth", "100")
    send(lab, "step")
    assert lab.model.t == 1 and "device time = 1.00 of 10 ms" in status_text(lab)
    assert lab.transport.marker.data["bytes_pct"] == [pytest.approx(10)]
    send(lab, "pause", 4.0)
    assert "bytes moved 40% · FLOPs done 40%" in status_text(lab)
    send(lab, "end", 10.0)
    text = status_text(lab)
    assert "device time = 10.00 of 10 ms" in text and "bytes moved 100% · FLOPs done 100%" in text
    assert "attainable = 800 GFLOP/s" in text
    assert (lab.model.intensity, lab.model.bandwidth, lab.model.peak_compute) == (8, 100, 1000)
    assert [field(lab, c).input.value for c in lab.model.controls] == ["8", "100", "1000"]
    assert lab.transport.marker.data["flops_pct"] == [100]


def test_compute_bound_race_bytes_are_in_first(lab):
    type_in(lab, "intensity", "16")
    type_in(lab, "bandwidth", "100")
    send(lab, "pause", 5.0)
    assert "bytes moved 100% · FLOPs done 62%" in status_text(lab) or "FLOPs done 63%" in status_text(lab)
    # Memory is the faster side: its ceiling at I = 16 is marked with its time alone, above the roof.
    assert lab.chart.faster.data == {"x": [16], "y": [1600], "colour": [MEMORY_COLOUR]}
    assert lab.chart.faster_label.text == "memory alone: 5 ms" and lab.chart.faster_label.visible
    # At 5 ms the pace line, 8 GFLOP ÷ 5 ms, has just reached that ceiling: memory is done.
    assert lab.transport.marker.data["pace"] == [pytest.approx(1600)]


def test_memory_bound_marks_compute_alone_and_the_pace_line_falls_to_the_kernel(lab):
    type_in(lab, "intensity", "8")
    type_in(lab, "bandwidth", "100")  # memory 10 ms, compute alone 8 ms
    assert lab.chart.faster.data == {"x": [8], "y": [1000], "colour": [COMPUTE_COLOUR]}
    assert lab.chart.faster_label.text == "compute alone: 8 ms"
    paces = []
    for t in (0.0, 2.0, 8.0, 10.0):
        send(lab, "pause", t)
        paces.append(lab.transport.marker.data["pace"][0])
    assert paces[0] > performance_range(1000)[1]  # above the plot before Play
    assert paces[1:] == [pytest.approx(4000, rel=0.014), pytest.approx(1000), 800]  # roof at 8 ms, kernel at 10
    assert lab.chart.pace_line.visible and lab.chart.pace_line.data_source is lab.transport.marker


def test_at_the_ridge_no_side_is_faster(lab):
    type_in(lab, "intensity", "10")
    type_in(lab, "bandwidth", "100")
    assert lab.chart.faster.data["x"] == [] and not lab.chart.faster_label.visible
    assert "Ringed" not in lab.roofline.tags[0]


def test_the_plot_says_in_words_what_play_draws(lab):
    send(lab, "reset")
    type_in(lab, "intensity", "8")
    type_in(lab, "bandwidth", "100")
    words = lab.roofline.tags[0]
    assert "Ringed above it: the compute ceiling at your I, 1000 GFLOP/s; compute alone would be done in 8 ms" in words
    assert "pace" not in words  # t = 0: nothing played yet
    send(lab, "pause", 4.0)
    assert "Play, at 4.00 of 10 ms: the pace line, 8 GFLOP ÷ time so far, is at 2000 GFLOP/s" in lab.roofline.tags[0]


def test_reset_command_restores_defaults(lab):
    type_in(lab, "intensity", "16")
    send(lab, "pause", 3)
    send(lab, "reset")
    assert (lab.model.t, lab.model.intensity, lab.model.bandwidth) == (0, 2, 200)
    assert field(lab, "intensity").input.value == "2"
    assert "attainable = 400 GFLOP/s" in status_text(lab)


def test_axes_hold_still_while_i_and_b_move(lab):
    ranges = (
        lab.roofline.x_range.start,
        lab.roofline.x_range.end,
        lab.roofline.y_range.start,
        lab.roofline.y_range.end,
    )
    assert ranges == (1 / 16, 4096, 0.01, 10_000)
    for intensity, bandwidth in [("8", "100"), ("0.0625", "1"), ("4096", "100000"), ("16", "75")]:
        type_in(lab, "intensity", intensity)
        type_in(lab, "bandwidth", bandwidth)
        now = (
            lab.roofline.x_range.start,
            lab.roofline.x_range.end,
            lab.roofline.y_range.start,
            lab.roofline.y_range.end,
        )
        assert now == ranges


def axes(lab: RooflineLab) -> tuple:
    """Both axes of the roofline as drawn: ranges, ticks and tick labels."""
    fig = lab.roofline
    return (
        fig.x_range.start,
        fig.x_range.end,
        fig.y_range.start,
        fig.y_range.end,
        tuple(lab.chart.y_ticker.ticks),
        tuple(sorted(fig.yaxis[0].major_label_overrides.items())),
    )


@pytest.mark.parametrize("presets", [True, False])
def test_axes_are_fixed_from_reset_to_the_end_concealed_or_not(presets):
    """Issue 43: no axis changes during a run, at its end, or when an exercise conceals and reveals."""
    lab = RooflineLab(presets=presets)
    lab.__panel__()
    send(lab, "reset")
    type_in(lab, "intensity", "8")
    type_in(lab, "bandwidth", "100")
    fixed = axes(lab)
    for conceal in (True, False, True, False):
        lab.conceal = conceal
        for action, t in (("reset", None), ("step", None), ("pause", 4.0), ("end", lab.model.horizon)):
            send(lab, action, t)
            assert axes(lab) == fixed, (conceal, action)


def test_every_kernel_point_on_the_teaching_device_is_on_the_chart(lab):
    low, high = lab.roofline.y_range.start, lab.roofline.y_range.end
    for intensity in ("0.0625", "4096"):
        for bandwidth in ("1", "100000"):
            type_in(lab, "intensity", intensity)
            type_in(lab, "bandwidth", bandwidth)
            assert low <= lab.chart.kernel.data["y"][0] <= high


def test_a_ridge_off_the_chart_is_labelled_so(lab):
    type_in(lab, "bandwidth", "100000")  # ridge 0.01 FLOP/byte, left of 1/16
    assert not lab.chart.ridge_line.visible
    assert lab.chart.ridge_point.data == {"x": [], "y": []}
    assert "off the chart" in lab.chart.ridge_label.text
    assert "compute-bound" in status_text(lab) and "ridge = 0.01 FLOP/byte" in status_text(lab)
    assert lab.chart.roof.data["y"] == [1000, 1000]


def test_presets_set_p_and_b_and_scale_the_units(lab):
    type_in(lab, "intensity", "8")
    lab.device.value = H100
    assert (lab.model.peak_compute, lab.model.bandwidth) == (989_000, 3350)
    assert lab.model.intensity == 8  # a device does not change the kernel
    assert field(lab, "peak_compute").input.value == "989000"
    assert field(lab, "bandwidth").input.value == "3350"
    text = status_text(lab)
    assert "attainable = 26800 GFLOP/s (26.8 TFLOP/s)" in text
    assert "ridge = 295.2 FLOP/byte" in text and "memory-bound" in text
    assert "µs" in text  # the same 8 GFLOP take microseconds here
    assert (lab.roofline.y_range.start, lab.roofline.y_range.end) == (10, 10**7)  # rescaled with P
    lab.device.value = H200
    assert (lab.model.peak_compute, lab.model.bandwidth) == (989_000, 4800)
    assert lab.device.value == H200
    type_in(lab, "intensity", "1000")
    assert "attainable = 989000 GFLOP/s (989 TFLOP/s)" in status_text(lab)
    assert "compute-bound" in status_text(lab)
    lab.device.value = A100
    assert (lab.model.peak_compute, lab.model.bandwidth) == (312_000, 2039)
    lab.device.value = TEACHING_DEVICE
    assert (lab.model.peak_compute, lab.model.bandwidth) == (1000, 200)


def test_editing_b_keeps_the_device_typing_p_makes_it_custom_and_reset_restores(lab):
    lab.device.value = H100
    type_in(lab, "bandwidth", "3000")
    assert lab.device.value == H100
    type_in(lab, "peak_compute", "500000")
    assert lab.device.value == CUSTOM_DEVICE
    assert lab.model.bandwidth == 3000  # choosing nothing changes nothing
    lab.device.value = CUSTOM_DEVICE
    assert (lab.model.peak_compute, lab.model.bandwidth) == (500_000, 3000)
    send(lab, "reset")
    assert lab.device.value == TEACHING_DEVICE
    assert (lab.model.peak_compute, lab.model.bandwidth) == (1000, 200)


def test_the_sources_of_the_device_figures_are_shown(lab):
    from bokeh.models import Div

    body = lab.__panel__().more  # the Bokeh pane under the control panels, with the notes
    text = " ".join(div.text for div in body.object.select({"type": Div}))
    for name in ("H100 Tensor Core GPU datasheet", "H200 Tensor Core GPU datasheet", "A100 Tensor Core GPU datasheet"):
        assert name in text
    assert "3.35 TB/s" in text and "4.8 TB/s" in text


def test_lesson_variant_fixes_p_and_has_no_device_chooser():
    lesson = RooflineLab(presets=False)
    assert [f.control for f in lesson.fields] == ["intensity", "bandwidth"]
    from bokeh.models import Div

    region = lesson.__panel__()
    assert lesson.device not in region.controls and lesson.fixed_roof in region.controls
    text = " ".join(div.text for div in region.more.object.select({"type": Div}))
    assert "Compute roof P = 1000 GFLOP/s (fixed in this lesson)" in lesson.fixed_roof.object
    assert "datasheet" not in text
    lesson.model.apply("intensity", 16)
    lesson.model.apply("bandwidth", 100)
    assert "attainable = 1000 GFLOP/s" in status_text(lesson)
    assert lesson.__panel__().label == "Roofline lab"


def test_two_views_share_nothing():
    one, two = RooflineLab(), RooflineLab()
    type_in(one, "intensity", "9")
    one.device.value = H100
    assert two.model.intensity == 2 and two.model.peak_compute == 1000
    assert one.transport.state is not two.transport.state
    assert one.chart.roof is not two.chart.roof


def test_hover_reads_the_current_roof(lab):
    type_in(lab, "bandwidth", "100")
    assert lab.chart.roof.data["P"] == [1000] * 3 and lab.chart.roof.data["B"] == [100] * 3


@pytest.mark.parametrize(
    ("value", "text"), [(800, "800"), (295.2238, "295.2"), (0.0625, "0.0625"), (989_000, "989000"), (1e-5, "0.00001")]
)
def test_significant(value, text):
    assert significant(value) == text


def test_performance_units_and_axes():
    assert performance(800) == "800 GFLOP/s"
    assert performance(26_800) == "26800 GFLOP/s (26.8 TFLOP/s)"
    assert performance_range(1000) == (0.01, 10_000)
    assert performance_range(989_000) == (10, 10**7)
    assert [axis_label(v) for v in (0.001, 0.01, 1, 1000, 10_000, 10**7)] == [
        "10⁻³",
        "0.01",
        "1",
        "1000",
        "10\u2009000",
        "10\u2009000\u2009000",
    ]


def test_conceal_hides_what_answers_the_exercise():
    lab = RooflineLab(presets=False)
    lab.model.param.update(intensity=8, bandwidth=100)
    lab.conceal = True
    text = status_text(lab)
    assert "attainable = ? GFLOP/s" in text and "800" not in text
    # Nothing else gives 800 away: not the ridge (P/B), not the finish time (8 GFLOP / 10 ms) ...
    assert "ridge = ? FLOP/byte" in text and "10" not in text
    assert "of 10 ms" not in text and "device time = 0.00 ms" in text
    assert not lab.chart.ridge_label.visible and lab.chart.ridge_label.text == ""
    # ... nor hovering the roof, which prints attainable at every I.
    assert lab.chart.roof_hover.renderers == []
    assert lab.chart.kernel.data["y"] == [] and not lab.chart.kernel_label.visible
    # ... nor where Play's pace line comes to rest, nor which side is faster.
    assert not lab.chart.pace_line.visible and lab.chart.faster.data["x"] == []
    assert not lab.chart.faster_label.visible and lab.chart.faster_label.text == ""
    lab.conceal = False
    text = status_text(lab)
    assert "attainable = 800 GFLOP/s" in text and lab.chart.kernel.data["y"] == [800]
    assert "ridge = 10 FLOP/byte" in text and "of 10 ms" in text
    assert lab.chart.ridge_label.text == "ridge = 10 FLOP/byte"
    assert lab.chart.pace_line.visible and lab.chart.faster_label.text == "compute alone: 8 ms"
    assert lab.chart.roof_hover.renderers == [lab.chart.roof_line]


def test_conceal_leaves_the_controls_own_values():
    lab = RooflineLab(presets=False)
    lab.model.param.update(intensity=8, bandwidth=75)
    lab.conceal = True
    text = status_text(lab)
    assert "600" not in text and "13.33" not in text
    assert [f.input.value for f in lab.fields] == ["8", "75"]


def vertices(chart) -> list[tuple[float, float]]:
    """Every point of every line the roofline chart draws now: the roof and both ceilings."""
    roof = chart.roof.data
    ceilings = chart.ceilings.data
    return [
        *zip(roof["x"], roof["y"], strict=True),
        *zip(ceilings["x"], ceilings["slope"], strict=True),
        *zip(ceilings["x"], ceilings["roof"], strict=True),
    ]


def number_in(number: str, text: str) -> bool:
    """Whether ``number`` stands as a figure of its own in ``text`` (``5`` is not in ``12.5``)."""
    return re.search(rf"(?<![\d.]){re.escape(number)}(?![\d.])", text) is not None


def drawn_at_the_ridge(chart, ridge: float) -> list[str]:
    """What the roofline chart draws that marks the ridge or a regime, by name (empty: nothing)."""
    marks = []
    if any(x == pytest.approx(ridge) for x, _ in vertices(chart)):
        marks.append("a vertex at the ridge")
    if chart.roof.data["x"] or chart.roof_line.visible:
        marks.append("the bent roof")
    if chart.ridge_line.visible or chart.ridge_line.location is not None:
        marks.append("the ridge line")
    if chart.ridge_point.data["x"]:
        marks.append("the ridge point")
    if chart.ridge_label.visible or chart.ridge_label.text:
        marks.append("the ridge label")
    for area in (chart.memory_area, chart.compute_area):
        if area.visible:
            marks.append(area.name)
    for name in (chart.memory_name, chart.compute_name):
        if name.visible:
            marks.append(name.name)
    if chart.kernel.data["x"] or chart.kernel_label.visible or chart.kernel_label.text:
        marks.append("the kernel")
    if chart.roof_hover.renderers:
        marks.append("the roof's hover")
    return marks


@pytest.mark.parametrize(
    ("intensity", "bandwidth"),
    [(8, 100), (16, 100), (8, 75), (16, 75), (2, 200)],
    ids=["memory-bound", "compute-roof", "shared-bandwidth", "shared-roof", "defaults"],
)
def test_concealed_the_roofline_draws_the_two_ceilings_and_nothing_where_they_cross(intensity, bandwidth):
    lab = RooflineLab(presets=False)
    lab.model.param.update(intensity=intensity, bandwidth=bandwidth)
    ridge = lab.model.ridge
    assert X_RANGE[0] < ridge < X_RANGE[1]
    lab.conceal = True
    chart = lab.chart
    assert drawn_at_the_ridge(chart, ridge) == []
    # The two ceilings: two straight lines, each from the left edge to the right one.
    x0, x1 = X_RANGE
    assert chart.ceilings.data == {"x": [x0, x1], "slope": [x0 * bandwidth, x1 * bandwidth], "roof": [1000, 1000]}
    for ceiling in (chart.memory_ceiling, chart.compute_ceiling):
        assert ceiling.visible and ceiling.glyph.line_dash == [] and ceiling.glyph.line_alpha > 0.8
    assert [r.name for r in (chart.memory_ceiling, chart.compute_ceiling)] == ["memory ceiling", "compute ceiling"]
    # The axes are P's alone: the same as on a device whose ridge is elsewhere.
    other = RooflineLab(presets=False)
    other.model.param.update(intensity=1, bandwidth=1)
    assert (lab.roofline.y_range.start, lab.roofline.y_range.end) == (
        other.roofline.y_range.start,
        other.roofline.y_range.end,
    )
    assert lab.roofline.yaxis[0].major_label_overrides == other.roofline.yaxis[0].major_label_overrides
    assert (lab.roofline.x_range.start, lab.roofline.x_range.end) == X_RANGE
    # The words say what is drawn: no ridge, no regime, no bend.
    words = lab.describe_plots()[0]
    described = " ".join([words.summary, *(" ".join(row) for row in words.rows)])
    assert "ridge" not in described and "bound" not in described
    assert not number_in(significant(ridge), described), described
    if lab.model.attainable != lab.model.peak_compute:  # P is a control, drawn as the flat ceiling
        assert not number_in(significant(lab.model.attainable), described), described
    assert lab.explain.text == ""  # the explanation names the regime

    lab.conceal = False
    assert set(drawn_at_the_ridge(chart, ridge)) >= {
        "a vertex at the ridge",
        "the bent roof",
        "the ridge line",
        "the ridge point",
        "the ridge label",
        "the kernel",
        "the roof's hover",
    }
    assert chart.roof.data["x"] == [x0, ridge, x1]
    assert chart.memory_area.visible and chart.compute_area.visible
    assert chart.memory_area.right == ridge and chart.compute_area.left == ridge
    assert chart.memory_name.visible and chart.compute_name.visible
    assert chart.ridge_label.text == f"ridge = {significant(ridge)} FLOP/byte"
    for ceiling in (chart.memory_ceiling, chart.compute_ceiling):
        assert ceiling.glyph.line_dash == [6] and ceiling.glyph.line_alpha < 0.5  # faint guides under the roof
    assert "ridge at I = " in lab.describe_plots()[0].summary


def test_concealed_the_figure_holds_no_finish_time():
    lab = RooflineLab(presets=False)
    lab.model.param.update(intensity=8, bandwidth=100)  # memory alone 10 ms: the finish
    lab.conceal = True
    lab.model.t = lab.model.horizon
    chart = lab.chart
    assert not chart.pace_line.visible and chart.faster.data == {"x": [], "y": [], "colour": []}
    assert not chart.faster_label.visible and chart.faster_label.text == "" and chart.faster_label.x == X_RANGE[0]
    assert chart.pace_label.text == PACE_WORDS  # the words under the title stay: nothing moves
    lab.conceal = False
    assert chart.pace_line.visible and chart.faster_label.text == "compute alone: 8 ms"
