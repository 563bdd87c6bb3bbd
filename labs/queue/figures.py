"""The queue lab's Bokeh figure: the fluid backlog played up to t, the stop line and the M/M/1 mean.

:class:`BacklogChart` builds its figure once (:attr:`BacklogChart.figure`) and redraws it from the
model; the view owns neither the glyphs nor their data.

**The axes hold still.** Both ranges are functions of the controls and the horizon alone: time runs
from 0 to the horizon, and the backlog from 0 to :func:`labs.queue.text.axis_top`, a round number
past the fluid line's peak as if arrivals never stopped, past the level the random queue's run
seldom passes (from the rates, never from the seed's run), and past the M/M/1 mean when the random
queue is off and the mean does not dwarf the backlog. Neither t, nor whether an exercise conceals
its answer (``conceal``, ``hidden_quantity``), nor the run's own path enters: the axes are the same
from Reset to the end of a run, and the concealed axis is the axis the reveal shows, so it tells
nothing that the controls on screen do not. They change only when a control is edited (or at
Reset). What does not fit under the axis's end is named, not stretched to: the M/M/1 mean's label
then says "above the chart".
"""

from __future__ import annotations

from bokeh.models import ColumnDataSource, GlyphRenderer, HoverTool, Label, Line, Range1d, Scatter, Span
from bokeh.plotting import figure

from labs.numbers import fixed
from labs.queue.model import QueueModel
from labs.queue.text import (
    AXIS_MANTISSAS,
    RANDOM_HIDES_MM1,
    TITLE,
    TITLE_RANDOM,
    TITLE_WITH_STOP,
    axis_top,
    mean_on_chart,
    nice_ceiling,
)
from labs.ui.palette import BLUE, HUNG_GREY, ORANGE, PURPLE, STOP_GREEN, WHITE
from labs.ui.playback import revealed

__all__ = ["AXIS_MANTISSAS", "STOP_COLOUR", "BacklogChart", "nice_ceiling"]

STOP_COLOUR = STOP_GREEN


class BacklogChart:
    """The backlog q(t) revealed up to t, its marker, the M/M/1 mean and where arrivals stop.

    Parameters
    ----------
    reveal, marker : bokeh.models.ColumnDataSource
        The transport's path so far and point at t (``t`` and ``backlog`` columns).
    horizon : float
        The first time axis's end.
    """

    def __init__(self, reveal: ColumnDataSource, marker: ColumnDataSource, horizon: float):
        fig = figure(
            height=300,
            sizing_mode="stretch_width",
            x_range=Range1d(0, horizon),
            y_range=Range1d(0, 10),
            x_axis_label="time t (s)",
            y_axis_label="backlog (work units)",
            tools="",
            toolbar_location=None,
            title=TITLE,
        )
        # Renderers built directly, not with fig.line() and fig.scatter(): those also build a faded and a
        # muted copy of each glyph (four more models per page) for selections and legends this chart
        # does not have; BokehJS draws its own where one is ever needed.
        line = GlyphRenderer(data_source=reveal, glyph=Line(x="t", y="backlog", line_width=3, line_color=BLUE))
        dot = GlyphRenderer(
            data_source=marker, glyph=Scatter(x="t", y="backlog", size=12, line_color=ORANGE, fill_color=ORANGE)
        )
        fig.renderers = [line, dot]
        fig.add_tools(HoverTool(renderers=[line], tooltips=[("t", "@t{0.00} s"), ("backlog", "@backlog{0.00}")]))
        self.reveal = reveal
        self.random_lines: list | None = None  # built the first time the random queue is switched on
        self.mm1_line = Span(
            dimension="width", line_dash="dashed", line_color=PURPLE, line_width=2, location=0, visible=False
        )
        # At the right edge, on a white box: the running average (purple) and the steps (grey) run
        # along the mean line, and would cover a label drawn bare on it.
        self.mm1_label = Label(
            x=0,
            y=0,
            text="",
            text_color=PURPLE,
            text_font_size="12px",
            text_align="right",
            x_offset=-4,
            y_offset=4,
            background_fill_color=WHITE,
            background_fill_alpha=0.9,
            padding=2,
            visible=False,
        )
        self.stop_line = Span(
            dimension="height", line_dash="dotdash", line_color=STOP_COLOUR, line_width=2, location=0, visible=False
        )
        self.stop_label = Label(
            x=0,
            y=0,
            y_units="screen",
            text="",
            text_color=STOP_COLOUR,
            text_font_size="12px",
            x_offset=4,
            y_offset=4,
            background_fill_color=WHITE,  # legible over the M/M/1 mean's dashed line and the random run
            background_fill_alpha=0.9,
            padding=2,
            visible=False,
        )
        for annotation in (self.mm1_line, self.mm1_label, self.stop_line, self.stop_label):
            fig.add_layout(annotation)
        self.figure = fig

    def _show_random(self, model: QueueModel, hide_average: bool) -> None:
        """Draw the random queue's lines, or take them off the figure (off: the figure as it always was).

        The lines are built the first time they are wanted (a session that never switches the random
        queue on builds no more models), and the revealed path gets their columns before they join
        the figure, in the same message, so the page never draws them from a source without them.
        """
        fig = self.figure
        if not model.random_queue:
            if self.random_lines is not None:
                fig.renderers = [r for r in fig.renderers if r not in self.random_lines]
            return
        if self.random_lines is None:  # not with fig.line(), which would join the figure at once
            self.random_lines = [
                GlyphRenderer(data_source=self.reveal, glyph=Line(x="t", y=column, line_color=colour, line_width=width))
                for column, colour, width in (("random", HUNG_GREY, 1.5), ("average", PURPLE, 2.5))
            ]
        self.random_lines[1].visible = not hide_average
        if any(r not in fig.renderers for r in self.random_lines):
            self.reveal.data = revealed(model.trajectory(), model.t)
            first = [r for r in fig.renderers if r not in self.random_lines]
            fig.renderers = [*self.random_lines, *first]  # under the fluid line and its marker

    def redraw(self, model: QueueModel, conceal: bool, hidden: str = "") -> None:
        """Scale the axes and place the mean, the stop line and the random queue for the model as it is now.

        Parameters
        ----------
        model : QueueModel
            The session's model.
        conceal : bool
            Whether an exercise hides its answer (the axis then does not hint at it).
        hidden : str
            While concealed, the quantity the exercise asks for (the M/M/1 mean answers some).
        """
        hide = conceal and hidden in RANDOM_HIDES_MM1
        self._show_random(model, hide)
        top = axis_top(model)  # the same concealed or not: see the module's docstring
        ref = None if hide else model.mm1
        drawn = ref is not None and mean_on_chart(model, top)
        self.figure.x_range.update(start=0, end=model.horizon)
        self.figure.y_range.update(start=0, end=top)
        self.mm1_line.update(visible=drawn, location=ref.L if drawn else 0)
        self.mm1_label.update(
            visible=ref is not None,
            x=model.horizon,
            y=ref.L if drawn else top,
            y_offset=4 if drawn else -18,
            text=(f"M/M/1 mean L = {fixed(ref.L)}" + ("" if drawn else " (above the chart)")) if ref else "",
        )
        stop = model.arrivals_stop
        shown = stop is not None and stop <= model.horizon
        late = shown and stop > 0.6 * model.horizon
        self.stop_line.update(visible=shown, location=stop if shown else 0)
        self.stop_label.update(
            visible=shown,
            x=stop if shown else 0,
            text=f"arrivals stop at {model.shown_value('arrivals_stop')} s" if shown else "",
            text_align="right" if late else "left",
            x_offset=-4 if late else 4,
        )
        self.figure.title.text = TITLE_RANDOM if model.random_queue else TITLE if stop is None else TITLE_WITH_STOP
