"""The bucket timeline lab's view without a browser: readout, bars at t, concealing, table, choosers."""

from __future__ import annotations

import math
import re

import pytest
from bokeh.models import Div, GlyphRenderer, HBar

from app.course.content import load_lessons
from labs.timeline.figures import SWEEP_HIDDEN_TITLE
from labs.timeline.model import EMBEDDING_FIRST, TimelineModel
from labs.timeline.view import TimelineLab
from labs.ui.playback import clipped
from tests.headless import field, send, status_text


@pytest.fixture
def lab():
    return TimelineLab()


def test_readout_and_field_names(lab):
    model = TimelineModel()
    text = status_text(lab)
    assert "t = 0.00 ms" in text
    assert f"buckets = {model.bucket_count}" in text
    assert "step = 0.00 ms" in text and "exposed = 0.00 ms" in text  # at t = 0: nothing of the step yet
    send(lab, "end", model.horizon)
    text = status_text(lab)
    assert f"step = {model.step_time:.2f} ms" in text and f"exposed = {model.exposed:.2f} ms" in text
    names = [f.input.label for f in lab.fields]
    wanted_names = ("Layers", "Bucket cap", "First bucket cap", "Ranks p", "Network bandwidth", "Latency α")
    for wanted in (*wanted_names, "Straggler delay"):
        assert any(name.startswith(wanted) for name in names), (wanted, names)
    assert lab.preset.label == "Model" and lab.iteration.label == "Iteration"


def test_bars_follow_t_and_match_the_model(lab):
    send(lab, "step")
    t = lab.model.t
    assert t > 0
    assert lab.transport.bars.data == clipped(lab.bar_columns(), t)
    assert lab.transport.now.location == t
    comm = [
        label
        for label, row in zip(lab.bar_columns()["label"], lab.bar_columns()["row"], strict=True)
        if row == "all-reduce"
    ]
    assert comm == [f"{m:g} MiB" for m in lab.model.bucket_mib]


def test_a_bar_not_started_draws_nothing_not_even_its_outline(lab):
    """A zero-width bar's white outline crossed the gridlines where each all-reduce would start:
    at t = 0 in a concealed exercise the Gantt told when the buckets go before the run."""
    (bars_glyph,) = [r.glyph for r in lab.gantt.select({"type": GlyphRenderer}) if isinstance(r.glyph, HBar)]
    assert bars_glyph.line_alpha == "edge"
    starts = lab.bar_columns()["start"]
    assert 0 < sum(start > 0 for start in starts) < len(starts)
    for move in ("reset", "step", "end"):
        send(lab, move, lab.model.horizon) if move == "end" else send(lab, move)
        t = lab.model.t
        assert lab.transport.bars.data["edge"] == [1.0 if start <= t else 0.0 for start in starts], move
    assert all(lab.transport.bars.data["edge"])  # the whole step drawn: every outline


def test_conceal_hides_every_figure_that_answers_an_exercise(lab):
    lab.conceal = True
    text = status_text(lab)
    assert "buckets" not in text and "step =" not in text and "exposed" not in text
    assert "exposed" not in lab.table.text and lab._sweep.line.data == {"cap": [], "step": []}
    assert lab.sweep.visible, "the sweep keeps its place: nothing below it moves at the reveal"
    send(lab, "end", lab.model.horizon)
    assert not lab.exposed_box.visible and not lab.optimizer.visible
    lab.conceal = False
    assert "exposed =" in status_text(lab) and lab.sweep.visible and lab.exposed_box.visible


@pytest.mark.parametrize("hidden_quantity", ["step_time", "no_overlap_step", "exposed"])
def test_concealed_the_page_holds_no_schedule_time_in_a_hidden_figure_either(lab, hidden_quantity):
    m = lab.model
    lab.param.update(conceal=True, hidden_quantity=hidden_quantity)
    assert (lab.exposed_box.left, lab.exposed_box.right) == (0, 0) and not lab.exposed_box.visible
    assert lab._gantt.exposed_label.text == "" and lab.optimizer.location == 0
    sweep = lab._sweep
    send(lab, "end", m.horizon)  # the run has ended, and the answer is still hidden
    assert (lab.exposed_box.left, lab.exposed_box.right) == (0, 0) and not lab.exposed_box.visible
    assert lab._gantt.exposed_label.text == "" and lab.optimizer.location == 0
    assert lab.sweep.visible and sweep.figure.title.text == SWEEP_HIDDEN_TITLE
    assert sweep.line.data == {"cap": [], "step": []} and sweep.point.data == {"cap": [], "step": []}
    assert sweep.no_overlap_line.location is None and not sweep.no_overlap_label.visible
    assert sweep.no_overlap_label.y == 0
    lab.param.update(conceal=False, hidden_quantity="")
    assert (lab.exposed_box.left, lab.exposed_box.right) == (m.backward_end, m.step_time)
    assert sweep.point.data == {"cap": [m.bucket_cap], "step": [m.step_time]}
    assert sweep.no_overlap_line.location == m.no_overlap_step and sweep.no_overlap_label.visible
    assert lab.sweep.visible and len(sweep.line.data["step"]) > 1


def test_table_lists_every_bucket(lab):
    rows = re.findall(r"<tr>", lab.table.text)
    assert len(rows) == lab.model.bucket_count + 1
    assert isinstance(lab.table, Div)


def test_choosers_and_refusals_keep_the_state(lab):
    lab.preset.value = EMBEDDING_FIRST
    assert lab.model.preset == EMBEDDING_FIRST and lab.model.layers.startswith("128:")
    before = (lab.model.layers, status_text(lab))
    layers = field(lab, "layers")
    layers.input.value = "8:2, oops"
    assert (lab.model.layers, status_text(lab)) == before
    assert layers.input.value == "8:2, oops"  # what was typed stays, for correction
    assert "Layers" in layers.error and layers.error.endswith(f"kept {lab.model.layers}.")
    lab.preset.value = "Custom"  # only names edited layers: refused, the select goes back
    assert lab.preset.value == EMBEDDING_FIRST == lab.model.preset
    lab.preset.value = "8 equal layers"  # a server value replaces the refused text and its refusal
    assert layers.input.value == lab.model.layers and layers.error == ""
    layers.input.value = "8:2, oops"
    layers.input.value = "8:2, 8:2"
    assert lab.model.preset == "Custom" == lab.preset.value
    assert lab.model.bucket_count == 2


def labels_in(lab, row):
    columns = lab.bar_columns()
    return [
        label
        for label, r, kind in zip(columns["label"], columns["row"], columns["kind"], strict=True)
        if r == row and kind == "bar"
    ]


def test_what_went_wrong_is_named_on_the_gantt_in_the_readout_and_in_the_table(lab):
    lab.choosers["missing_event"].value = "bucket 3"
    assert lab.model.missing_event == 3
    assert "24 MiB: read layer 1 early" in labels_in(lab, "all-reduce")
    assert "INVALID" not in status_text(lab), "what went wrong shows once the run has reached it"
    send(lab, "end", lab.model.horizon)
    assert "INVALID: read early: layer 1" in status_text(lab) and "read early: layer 1" in lab.table.text
    lab.choosers["missing_event"].value = "none"
    lab.switches["optimizer_waits"].value = False
    assert not lab.model.optimizer_waits and "still running for the optimizer" in " ".join(labels_in(lab, "all-reduce"))
    send(lab, "end", lab.model.horizon)
    assert "INVALID: the optimizer read gradients still being reduced" in status_text(lab)
    lab.model.reset()
    assert lab.switches["optimizer_waits"].value is True and lab.choosers["missing_event"].value == "none"
    lab.choosers["skipped_layer"].value = "layer 6"
    assert "32 MiB: never ends (a rank skips layer 6)" in labels_in(lab, "all-reduce")
    send(lab, "end", lab.model.horizon)
    assert "hang: completed = 1 of 3" in status_text(lab) and "step =" not in status_text(lab)
    assert "never completes" in lab.table.text and "queued behind bucket 2" in lab.table.text
    assert "every cap hangs" in lab.sweep.title.text or "hangs at every cap" in lab.sweep.title.text


def test_ready_and_issue_marks_and_contention_overlays(lab):
    field(lab, "launch_gap").input.value = "0.5"
    columns = lab.bar_columns()
    marks = [
        (s, label)
        for s, label, kind in zip(columns["start"], columns["label"], columns["kind"], strict=True)
        if kind == "tick"
    ]
    assert sorted(marks) == sorted([(2.0, "▲"), (10.0, "▲"), (16.0, "▲"), (2.5, "▼"), (10.5, "▼"), (16.5, "▼")])
    field(lab, "compute_slowdown").input.value = "1.5"
    columns = lab.bar_columns()
    overlays = [
        (s, e)
        for s, e, kind, row in zip(columns["start"], columns["end"], columns["kind"], columns["row"], strict=True)
        if kind == "overlay" and row == "backward"
    ]
    assert len(overlays) == 2 and all(e > s for s, e in overlays)
    assert "lost to contention" in lab.table.text and "hatched" in lab.gantt.tags[0]


def test_the_choices_of_a_bucket_follow_the_layout(lab):
    assert lab.choosers["missing_event"].options == ["none", "bucket 1", "bucket 2", "bucket 3"]
    field(lab, "bucket_cap").input.value = "8"
    assert lab.choosers["missing_event"].options == ["none", *(f"bucket {k}" for k in range(1, 9))]
    assert len(lab.choosers["skipped_layer"].options) == 9
    assert "DDP(model): bucket_cap_mb unset" not in lab.cap_note.object and "No DDP call" in lab.cap_note.object


def test_conceal_hides_invalid_and_hang_too(lab):
    lab.model.apply("missing_event", 3)
    lab.conceal = True
    assert "INVALID" not in status_text(lab) and "read early" not in lab.table.text
    lab.model.apply("skipped_layer", 6)
    assert "hang" not in status_text(lab) and "completed" not in status_text(lab)


def test_the_time_axis_does_not_give_the_step_away_and_is_the_same_concealed_or_not(lab):
    lab.model.apply("compute_slowdown", 3)
    lab.model.apply("comm_slowdown", 3)
    assert lab.gantt.x_range.end == 100
    lab.conceal = True
    assert lab.gantt.x_range.end >= lab.model.step_time * 1.1
    assert lab.gantt.x_range.end == 100  # 3 × the no-overlap step (83.2 ms), 10 % more, rounded up
    step = lab.model.step_time
    lab.model.apply("compute_slowdown", 2)  # another answer, the same axis
    assert lab.model.step_time != pytest.approx(step, abs=1) and lab.gantt.x_range.end == 100


def test_the_bucket_choice_offers_only_the_buckets_there_are(lab):
    assert lab.choosers["missing_event"].options == ["none", "bucket 1", "bucket 2", "bucket 3"]
    lab.conceal = True  # an exercise that is not about the number of buckets: the same choices
    assert lab.choosers["missing_event"].options == ["none", "bucket 1", "bucket 2", "bucket 3"]
    lab.model.apply("bucket_cap", 8)  # more buckets: more choices
    assert len(lab.choosers["missing_event"].options) == lab.model.bucket_count + 1 == 9


def test_while_the_number_of_buckets_is_the_answer_the_bucket_choice_does_not_count_them(lab):
    lab.model.apply("missing_event", 2)
    lab.param.update(conceal=True, hidden_quantity="bucket_count")
    assert lab.choosers["missing_event"].options == ["none", "bucket 2"]
    lab.param.update(conceal=False, hidden_quantity="")
    assert len(lab.choosers["missing_event"].options) == lab.model.bucket_count + 1


TIMELINE_EXERCISES = [e for lesson in load_lessons() for e in lesson.exercises if e.lab == "timeline"]
SCHEDULE_TIMES = ("step_time", "no_overlap_step", "exposed", "backward_end")
"""The times, in ms, that timeline exercises ask for or that answer them (the step, its parts, its bound)."""
MARGINS = (1.0, 1.05, 1.1, 1.2, 1.25, 1.5)
"""Margins an axis might add past what it bounds: an end that is one of them past a time gives that time away.

Not 2: a round end (50 ms) is bound to sit near twice some time of some exercise (24.94 ms), and an
axis twice as long as what it shows is no margin anybody would read an answer from."""


def concealed_as_the_exercise_leaves_it(exercise) -> TimelineLab:
    """A fresh lab after the exercise's steps up to its prediction, concealed as the exercise conceals it."""
    lab = TimelineLab()
    for step in exercise.steps:
        if step.kind == "predict":
            break
        if step.kind == "reset":
            lab.model.reset()
        elif step.kind == "set":
            lab.model.apply(step.control, step.value)
    lab.param.update(conceal=True, hidden_quantity=exercise.quantity)
    return lab


def significant_figures(value: float) -> int:
    """How many significant figures ``value`` needs (``40`` and ``1.5`` need 1 and 2; ``29.13`` needs 4)."""
    digits = f"{value:.6e}".split("e")[0].replace(".", "").rstrip("0")
    return max(1, len(digits))


@pytest.mark.parametrize("exercise", TIMELINE_EXERCISES, ids=[e.id for e in TIMELINE_EXERCISES])
def test_the_concealed_time_axis_ends_on_a_round_number_that_is_no_answer(exercise):
    lab = concealed_as_the_exercise_leaves_it(exercise)
    m, end = lab.model, lab.gantt.x_range.end
    assert end >= m.display_end, "the run, still concealed, draws everything inside the axis"
    assert significant_figures(end) <= 2, f"{end} ms reads as a figure of the model, not as a round bound"
    tolerance = max(exercise.tolerance, 0.05)
    times = {name: float(getattr(m, name)) for name in SCHEDULE_TIMES}
    if exercise.unit == "ms":
        times[exercise.quantity] = float(m.reading(exercise.quantity, exercise.at))
    for name, value in times.items():
        if not math.isfinite(value):
            continue  # a step that hangs has no step time to give away
        for margin in MARGINS:
            assert abs(end / margin - value) > tolerance, f"axis end {end} ms = {margin} × {name} ({value:.2f} ms)"


def test_the_last_bucket_cap_checkbox_sits_with_the_caps_and_drives_the_model(lab):
    box = lab.switches["last_bucket_cap"]
    assert box.label == "DDP_SET_LAST_BUCKET_CAP=1 (small bucket last)" and box.value is False
    stage = lab._layout
    first_panel = stage.keys[: stage.groups[0]["count"]]
    assert stage.groups[0]["title"] == "Model and caps" and "last_bucket_cap" in first_panel
    assert stage.keys.count("last_bucket_cap") == 1
    assert stage.control("last_bucket_cap") is box
    before = status_text(lab)
    box.value = True  # a click
    assert lab.model.last_bucket_cap and lab.model.exposed == pytest.approx(5.34, abs=0.005)
    send(lab, "end", t=lab.model.horizon)  # the readout plays the step's figures back: read them at its end
    assert f"exposed = {lab.model.exposed:.2f} ms" in status_text(lab) and status_text(lab) != before
    assert "last bucket" in lab.cap_note.object
    lab.model.reset()
    assert box.value is False and status_text(lab) == before


def test_the_bucket_table_names_the_variable_when_it_is_set(lab):
    assert "DDP_SET_LAST_BUCKET_CAP" not in lab.table.text
    lab.switches["last_bucket_cap"].value = True
    assert "Buckets (After the bucket rebuild (iteration 2 on), DDP_SET_LAST_BUCKET_CAP=1)" in lab.table.text
    cells = re.findall(r"<tr><td[^>]*>(\d+)</td><td[^>]*>([^<]*)</td><td[^>]*>([^<]*)</td>", lab.table.text)
    assert cells == [("1", "8, 7, 6", "24"), ("2", "5, 4, 3, 2", "32"), ("3", "1", "8")]  # the small bucket last


def test_an_end_the_page_reached_before_an_edit_moved_the_horizon_ends_where_the_model_ends(lab):
    """The desktop fuzz (seed 4471): a run ended on the page at the horizon it last heard of, just
    before the answer to an edit made while it played (a ninth rank) moved the end a little later.
    The server took that stale end as a time: the lab stopped 2 µs short of the end, its readout
    under way and the hang never said. A run reported ended ends where the model ends it."""
    for control, text in (("layers", "2:0.5, 100:2, 8:0"), ("bucket_cap", "88.62"), ("compute_slowdown", "3")):
        field(lab, control).input.value = text
    for control, text in (("bandwidth", "55.9"), ("launch_gap", "1")):
        field(lab, control).input.value = text
    lab.choosers["skipped_layer"].value = "layer 2"
    old_end = lab.model.horizon  # 5.2188 ms with 8 ranks
    field(lab, "ranks").input.value = "9"  # the edit, answered before the page's end arrives
    assert lab.model.horizon > old_end  # 5.2223 ms
    send(lab, "end", old_end)
    assert lab.model.t == lab.model.horizon
    assert "hang: completed" in status_text(lab)


@pytest.mark.parametrize(("compute_slowdown", "comm_slowdown", "align"), [(1.5, 4, "left"), (1, 1, "center")])
def test_the_exposed_label_starts_at_its_band_where_centring_it_would_cut_it(
    lab, compute_slowdown, comm_slowdown, align
):
    """Heavy contention ends the step at 29 ms on an axis to about 150 ms: centred on the band, the label ran
    off the left of a phone's plot ("xposed 8.03 ms"). Near the left of the axis it starts at the band."""
    m = lab.model
    m.param.update(compute_slowdown=compute_slowdown, comm_slowdown=comm_slowdown)
    send(lab, "end", m.horizon)
    label = lab._gantt.exposed_label
    assert label.visible and label.text == f"exposed {m.exposed:.2f} ms"
    assert label.text_align == align
    assert label.x == (m.backward_end if align == "left" else (m.backward_end + m.step_time) / 2)
