"""Plot text alternatives: the words for a drawn path, the tables, and nothing an exercise hides."""

from __future__ import annotations

import re

import pytest

from labs.queue.view import QueueLab
from labs.roofline.view import RooflineLab
from labs.timeline.view import TimelineLab
from labs.ui.plot_text import PlotText, path_words
from tests.headless import field, send


def type_in(lab, control: str, value: str) -> None:
    field(lab, control).input.value = value


def test_a_rising_path_in_words():
    words = path_words([0.0, 2.0], [4.0, 6.0], "units")
    assert words == "from 4.00 units at t = 0.00 s, rising 1.00 units per second; now 6.00 units at t = 2.00 s"


def test_stretches_with_one_slope_read_as_one_and_a_drain_then_flat():
    words = path_words([0.0, 1.0, 3.0, 4.0, 7.0], [3.0, 2.0, 0.0, 0.0, 0.0], "units")
    assert words == (
        "from 3.00 units at t = 0.00 s, falling 1.00 units per second to 0.00 units at t = 3.00 s, "
        "then flat; now 0.00 units at t = 7.00 s"
    )


def test_a_single_point_says_the_rest_is_still_to_draw():
    assert path_words([0.0], [4.0], "units") == "4.00 units at t = 0.00 s; Step or Play draws the rest"
    assert path_words([], [], "units") == "nothing drawn yet"


def test_negative_zero_never_shows():
    words = path_words([0.0, 1.0], [-0.0, -0.0], "units")
    assert "-0" not in words and "flat" in words


def test_table_html_escapes_and_reads_as_a_captioned_table():
    text = PlotText("Backlog plot", "x", ("t (s)", "<b>"), [["1.00", "<script>"]])
    table = text.table_html(0)
    assert "<script>" not in table and "&lt;script&gt;" in table and "&lt;b&gt;" in table
    assert "<caption>Backlog plot</caption>" in table and '<th scope="col">' in table
    assert "Show the backlog plot as a table" in table
    assert PlotText("Empty", "x").table_html(0) == ""


def test_queue_plot_follows_step_and_edits():
    lab = QueueLab()
    first = lab.figure.tags[0]
    assert first.startswith("Backlog plot: 4.00 units at t = 0.00 s")
    lab.model.step()
    assert lab.figure.tags[0] != first and "now" in lab.figure.tags[0]
    type_in(lab, "arrival_rate", "5")
    assert "M/M/1" not in lab.figure.tags[0] or "mean L" in lab.figure.tags[0]
    assert "Show the backlog plot as a table" in lab._plot_texts.tables.text


def test_a_concealed_roofline_names_neither_attainable_nor_ridge():
    lab = RooflineLab(presets=False)
    type_in(lab, "intensity", "8")
    type_in(lab, "bandwidth", "100")
    lab.conceal = True
    lab.model.t = lab.model.horizon  # played to the end: the pace line rests at the answer, unnamed
    described = lab.roofline.tags[0] + lab._plot_texts.tables.text
    assert "800" not in described, "attainable = 800 GFLOP/s is the exercise's answer"
    assert "pace" not in described
    assert "ridge" not in lab.roofline.tags[0] and not re.search(r"\b10\b", lab.roofline.tags[0])
    assert "bound" not in described
    lab.conceal = False
    assert "800 GFLOP/s" in lab.roofline.tags[0] and "ridge at I = 10" in lab.roofline.tags[0]
    assert "the pace line, 8 GFLOP ÷ time so far, is at 800 GFLOP/s; it has reached your kernel" in lab.roofline.tags[0]


@pytest.mark.parametrize("hidden", ["exposed", "buckets", "optimizer"])
def test_a_concealed_timeline_names_no_answer(hidden):
    lab = TimelineLab()
    lab.conceal = True
    described = " ".join(fig.tags[0] for fig in (lab.gantt, lab.sweep)) + lab._plot_texts.tables.text
    assert hidden not in described.replace("all-reduces finished", "")
    assert "4.40" not in described and "20.40" not in described
    lab.conceal = False
    assert "exposed tail" not in lab.gantt.tags[0], "at t = 0 the step has not ended yet"
    send(lab, "end", lab.model.horizon)
    assert "exposed tail 4.40 ms" in lab.gantt.tags[0]
