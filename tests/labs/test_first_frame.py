"""A lab's first frame (labs/ui/first_frame.py): ticks, places and the box, drawn from real figures."""

from __future__ import annotations

import math
import re

import pytest
from bokeh.models import ColumnDataSource, Range1d
from bokeh.plotting import figure
from hypothesis import given
from hypothesis import strategies as st

from app.site.first_frames import lab_first_frame
from labs.registry import registrations
from labs.ui.first_frame import Scale, linear_ticks, plot_frame_html, plots_in, tick_text


def test_linear_ticks_take_bokehs_step_nearest_a_sixth_of_the_range():
    assert linear_ticks(0, 10) == [0, 2, 4, 6, 8, 10]
    assert linear_ticks(0, 5) == [0, 1, 2, 3, 4, 5]
    assert linear_ticks(0, 40) == [0, 5, 10, 15, 20, 25, 30, 35, 40]  # as the live timeline shows them


@given(
    start=st.floats(-1e6, 1e6, allow_nan=False),
    span=st.floats(1e-3, 1e7, allow_nan=False),
)
def test_linear_ticks_are_evenly_spaced_inside_the_range_and_few(start, span):
    end = start + span
    ticks = linear_ticks(start, end)
    assert 3 <= len(ticks) <= 13
    assert all(start - span * 1e-6 <= tick <= end + span * 1e-6 for tick in ticks)
    steps = [b - a for a, b in zip(ticks, ticks[1:], strict=False)]
    assert all(math.isclose(step, steps[0], rel_tol=1e-6) for step in steps)


def test_a_power_of_ten_on_a_log_axis_reads_as_ten_with_a_superscript():
    assert tick_text(1000.0, log=True) == "10³"
    assert tick_text(0.01, log=True) == "10⁻²"
    assert tick_text(16.0, log=True) == "16"
    assert tick_text(2.5, log=False) == "2.5"
    assert tick_text(40.0, log=False) == "40"


def test_a_factor_sits_where_bokeh_puts_it_with_the_ranges_padding():
    plot = figure(y_range=["all-reduce", "host", "backward"], x_range=Range1d(0, 40))
    plot.y_range.range_padding, plot.y_range.range_padding_units = 0.9, "absolute"
    scale = Scale(plot.y_range, plot.left[0])
    assert scale.fraction("backward") == pytest.approx(3.4 / 4.8)  # 0.708 of the way up, as measured live
    assert scale.fraction("nowhere") is None


def test_a_plot_it_cannot_place_gets_no_frame_rather_than_an_error():
    assert plot_frame_html(figure()) == ""  # data ranges, fitted to data in the browser
    assert Scale(Range1d(1, 100), None).fraction(float("nan")) is None


def test_the_frame_has_the_plots_height_its_title_ticks_and_line():
    plot = figure(height=300, x_range=Range1d(0, 10), y_range=Range1d(0, 5), title="Backlog")
    plot.xaxis.axis_label = "time t (s)"
    plot.line("t", "q", source=ColumnDataSource({"t": [0, 5, 10], "q": [4, 1, 0]}), line_color="#1f6fb2")
    frame = plot_frame_html(plot)
    assert 'style="height:300px"' in frame
    assert 'role="img" aria-label="Backlog (being drawn)"' in frame
    assert [text for text in re.findall(r'class="tick x"[^>]*>([^<]*)<', frame)] == ["0", "2", "4", "6", "8", "10"]
    assert "time t (s)" in frame
    assert "polyline" in frame and "%231f6fb2" in frame  # the line, in the SVG image's URL


@pytest.mark.parametrize("lab", [lab.slug for lab in registrations()])
def test_every_labs_picture_has_a_first_frame_of_each_of_its_plots(lab):
    registration = next(item for item in registrations() if item.slug == lab)
    stage = registration.page_view().__panel__()
    plots = list(plots_in(stage.picture.object))
    frame = lab_first_frame(lab)
    assert plots and frame.count('class="lab-frame"') == len(plots)
    for plot in plots:
        assert f'style="height:{plot.height}px"' in frame
        assert plot.title.text in frame
