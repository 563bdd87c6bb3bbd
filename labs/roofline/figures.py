"""The roofline lab's figure: the log–log roofline with the kernel, where Play plays.

:class:`RooflineChart` builds its figure once (:attr:`RooflineChart.figure`) and redraws it from
the model; the view owns neither the glyphs nor their data.

**What Play moves, and why this.** Play runs a fixed 8 GFLOP on the device; the lesson's point is
that the slower of memory (bytes at B) and compute (FLOPs at P) sets the finish, so attainable =
work / max(memory time, compute time). The kernel's point cannot honestly move: in this fluid model
its rate so far (FLOPs done ÷ time) is the same at every instant, ``attainable``; a point that
climbed towards it would show a speed-up that does not happen. What does change is the time, and on
these axes time has an honest height: the **pace** ``8 GFLOP ÷ time so far`` (the model's
``pace_at``), the rate that would have done the whole workload by now. Play draws it as a
horizontal line falling down the roofline (named under the title), from the transport's marker (one row at t,
which ``player.js`` rewrites each frame in the browser: no new browser code, no message per frame).
A ceiling is above the line exactly when that side alone is done, so at the kernel's I the line
passes the faster side's ceiling first (a marked point, "compute alone: 8 ms" or "memory alone:
…") and reaches the kernel's own point exactly at the finish, where it rests at ``attainable``. On a
log axis its height above each ceiling is minus the log of that side's fraction done, and at every
I the roof above the line shows which kernels would be done by now. Concealed (an exercise before
its run) the line and the faster side's point are hidden: where the line stops is the answer.

The axes never move during a run: I spans every value the control accepts, and the performance
axis depends on P alone (:func:`labs.roofline.text.performance_range`), concealed or not.
"""

from __future__ import annotations

import math

from bokeh.models import (
    BoxAnnotation,
    ColumnDataSource,
    CustomJSHover,
    FixedTicker,
    HoverTool,
    Label,
    NoOverlap,
    Range1d,
    Span,
    Title,
)
from bokeh.plotting import figure

from labs.numbers import significant
from labs.roofline.model import COMPUTE_BOUND, MEMORY_BOUND, RooflineModel
from labs.roofline.text import COMPUTE_COLOUR, MEMORY_COLOUR, X_RANGE, axis_label, performance_range
from labs.ui import browser_code
from labs.ui.palette import KERNEL_GREEN, KERNEL_LABEL_GREEN, NAVY, PURPLE, WHITE

RIDGE_COLOUR = PURPLE

X_TICKS = {2.0**k: (f"1/{2**-k}" if k < 0 else str(2**k)) for k in range(-4, 13, 2)}

CEILING_STYLE = {"line_dash": "dashed", "line_alpha": 0.45, "line_width": 1.5}
"""The two ceilings beside the roof: faint dashed guides under it."""
CONCEALED_CEILING_STYLE = {"line_dash": "solid", "line_alpha": 0.9, "line_width": 3}
"""The two ceilings while an exercise conceals its answer: the picture itself, two straight lines."""

NAMES = {
    "memory_ceiling": "memory ceiling",
    "compute_ceiling": "compute ceiling",
    "roof_line": "roof",
    "ridge_line": "ridge line",
    "ridge_point": "ridge point",
    "ridge_label": "ridge label",
    "memory_area": "memory-bound region",
    "compute_area": "compute-bound region",
    "memory_name": "memory-bound name",
    "compute_name": "compute-bound name",
    "kernel": "kernel",
    "kernel_label": "kernel label",
    "pace_line": "pace line",
    "pace_label": "pace label",
    "faster_point": "faster side point",
    "faster_label": "faster side label",
}
"""Each piece of the roofline chart by its attribute, and the ``name`` it carries in the Bokeh document of the page."""

PACE_WORDS = "dashed green line: 8 GFLOP ÷ time so far"
"""What Play's pace line is, under the plot's title (the workload is the model's fixed 8 GFLOP)."""

# The roof line's hover text, from the model's min(P, I·B), formatted as significant() does.
HOVER_CODE = browser_code("formats.js", "roofline_hover.js")


class RooflineChart:
    """The roofline: memory slope and compute roof, the ridge, the kernel's point, a hover on the roof.

    Play draws the pace line (see the module's docstring) from ``marker``, the transport's row at t,
    with the faster side's ceiling at the kernel's I marked and labelled with its time alone.

    While an exercise conceals its answer the chart draws only the two ceilings, the slope I·B and
    the flat P, each a straight line across the whole plot: no bent roof, no ridge, no shaded
    regions or their names, no kernel, no pace line, no faster side and no hover. Every piece has
    a ``name`` (:data:`NAMES`), so a browser test finds it in the Bokeh document of the page (by name).

    Parameters
    ----------
    peak_compute : float
        P at the start, in GFLOP/s (the performance axis follows it).
    marker : ColumnDataSource
        The transport's marker: the trajectory's columns at t, ``pace`` among them.
    """

    def __init__(self, peak_compute: float, marker: ColumnDataSource):
        low, high = performance_range(peak_compute)
        fig = figure(
            height=380,
            sizing_mode="stretch_width",
            x_axis_type="log",
            y_axis_type="log",
            x_range=Range1d(*X_RANGE),
            y_range=Range1d(low, high),
            x_axis_label="arithmetic intensity I (FLOP/byte)",
            y_axis_label="performance (GFLOP/s)",
            tools="",
            toolbar_location=None,
            title="Roofline: attainable = min(P, I·B)",
        )
        fig.xaxis.ticker = FixedTicker(ticks=list(X_TICKS))
        fig.xaxis.major_label_overrides = dict(X_TICKS)
        fig.xaxis.major_label_policy = NoOverlap(min_distance=10)
        self.y_ticker = FixedTicker(ticks=[])
        fig.yaxis.ticker = self.y_ticker
        self.memory_area = BoxAnnotation(
            name=NAMES["memory_area"], fill_color=MEMORY_COLOUR, fill_alpha=0.07, line_alpha=0
        )
        self.compute_area = BoxAnnotation(
            name=NAMES["compute_area"], fill_color=COMPUTE_COLOUR, fill_alpha=0.07, line_alpha=0
        )
        fig.add_layout(self.memory_area)
        fig.add_layout(self.compute_area)
        self.memory_name = Label(
            name=NAMES["memory_name"],
            text=MEMORY_BOUND,
            text_color=MEMORY_COLOUR,
            text_align="left",
            text_font_style="bold",
            text_font_size="13px",
        )
        self.compute_name = Label(
            name=NAMES["compute_name"],
            text=COMPUTE_BOUND,
            text_color=COMPUTE_COLOUR,
            text_align="right",
            text_font_style="bold",
            text_font_size="13px",
        )
        fig.add_layout(self.memory_name)
        fig.add_layout(self.compute_name)
        self.ceilings = ColumnDataSource(data={"x": [], "slope": [], "roof": []})
        self.memory_ceiling = fig.line(
            "x", "slope", source=self.ceilings, name=NAMES["memory_ceiling"], color=MEMORY_COLOUR, **CEILING_STYLE
        )
        self.compute_ceiling = fig.line(
            "x", "roof", source=self.ceilings, name=NAMES["compute_ceiling"], color=COMPUTE_COLOUR, **CEILING_STYLE
        )
        self.roof = ColumnDataSource(data={"x": [], "y": [], "P": [], "B": []})
        self.roof_line = roof_line = fig.line(
            "x", "y", source=self.roof, name=NAMES["roof_line"], line_width=4, color=NAVY
        )
        self.ridge_line = Span(
            name=NAMES["ridge_line"],
            dimension="height",
            line_dash="dotted",
            line_color=RIDGE_COLOUR,
            line_width=2,
            location=1.0,
        )
        fig.add_layout(self.ridge_line)
        self.ridge_point = ColumnDataSource(data={"x": [], "y": []})
        fig.scatter(
            "x",
            "y",
            source=self.ridge_point,
            name=NAMES["ridge_point"],
            marker="diamond",
            size=14,
            color=RIDGE_COLOUR,
        )
        self.ridge_label = Label(
            name=NAMES["ridge_label"], x=1.0, y=1.0, text="", text_color=RIDGE_COLOUR, text_font_size="12px"
        )
        fig.add_layout(self.ridge_label)
        self._add_race(fig, marker)  # under the kernel's point, which the pace line reaches at the finish
        self.kernel = ColumnDataSource(data={"x": [], "y": [], "regime": []})
        point = fig.scatter(
            "x",
            "y",
            source=self.kernel,
            name=NAMES["kernel"],
            size=15,
            color=KERNEL_GREEN,
            line_color=WHITE,
            line_width=2,
        )
        self.kernel_label = Label(
            name=NAMES["kernel_label"],
            x=1.0,
            y=1.0,
            text="",
            text_color=KERNEL_LABEL_GREEN,
            text_font_size="12px",
            text_font_style="bold",
        )
        fig.add_layout(self.kernel_label)
        hover_roof = CustomJSHover(args={"info": self.roof}, code=HOVER_CODE)
        self.roof_hover = HoverTool(
            renderers=[roof_line],
            mode="vline",
            line_policy="none",
            tooltips=[("roofline", "$x{custom}")],
            formatters={"$x": hover_roof},
        )
        fig.add_tools(
            self.roof_hover,
            HoverTool(
                renderers=[point],
                tooltips=[
                    ("your kernel", "I = @x{0.[000]} FLOP/byte"),
                    ("attainable", "@y{0.[00]} GFLOP/s"),
                    ("regime", "@regime"),
                ],
            ),
        )
        self.figure = fig

    def _add_race(self, fig: figure, marker: ColumnDataSource) -> None:
        """Play's pieces: the pace line and its label (moved by the browser), the faster side's point."""
        self.pace_line = fig.hspan(
            y="pace", source=marker, name=NAMES["pace_line"], line_color=KERNEL_GREEN, line_width=2, line_dash="dashed"
        )
        # What the line is, under the title: words riding on it would cover the kernel's label or
        # the slope at the finish on a phone's narrow plot. Shown concealed too, so nothing moves.
        self.pace_label = Title(
            name=NAMES["pace_label"],
            text=PACE_WORDS,
            text_color=KERNEL_LABEL_GREEN,
            text_font_size="12px",
            text_font_style="normal",
        )
        fig.add_layout(self.pace_label, "above")
        self.faster = ColumnDataSource(data={"x": [], "y": [], "colour": []})
        fig.scatter(
            "x",
            "y",
            source=self.faster,
            name=NAMES["faster_point"],
            size=11,
            fill_color=WHITE,
            line_color="colour",
            line_width=3,
        )
        self.faster_label = Label(
            name=NAMES["faster_label"], x=1.0, y=1.0, text="", text_font_size="12px", text_font_style="bold"
        )
        fig.add_layout(self.faster_label)

    def redraw(self, m: RooflineModel, conceal: bool) -> None:
        """Draw the chart for ``m``; while ``conceal``, only the two ceilings (nothing marks where they cross).

        Parameters
        ----------
        m : RooflineModel
            The model, as it is now.
        conceal : bool
            Whether a guided exercise hides its answer: the attainable rate, the regime, the ridge.
        """
        low, high = self._draw_axes(m.peak_compute)
        self._draw_ceilings(m, conceal)
        self._draw_roof(m, conceal)
        self._draw_regions(m, conceal, high)
        self._draw_ridge(m, conceal, low)
        self._draw_kernel(m, conceal, low)
        self._draw_race(m, conceal)

    def _draw_axes(self, peak_compute: float) -> tuple[float, float]:
        """Set the performance axis and its decade ticks from P alone; return its ``(bottom, top)``."""
        low, high = performance_range(peak_compute)
        self.figure.y_range.update(start=low, end=high)
        decades = [10.0**k for k in range(round(math.log10(low)), round(math.log10(high)) + 1)]
        self.y_ticker.ticks = decades
        self.figure.yaxis[0].major_label_overrides = {v: axis_label(v) for v in decades}
        return low, high

    def _draw_ceilings(self, m: RooflineModel, conceal: bool) -> None:
        """The slope I·B and the flat P across the whole plot: faint guides, or (concealed) the picture itself."""
        x0, x1 = X_RANGE
        B, P = m.bandwidth, m.peak_compute
        self.ceilings.data = {"x": [x0, x1], "slope": [x0 * B, x1 * B], "roof": [P, P]}
        style = CONCEALED_CEILING_STYLE if conceal else CEILING_STYLE
        for ceiling in (self.memory_ceiling, self.compute_ceiling):
            ceiling.glyph.update(**style)

    def _draw_roof(self, m: RooflineModel, conceal: bool) -> None:
        """The roof min(P, I·B), bent at the ridge, and its hover; while concealed, neither."""
        x0, x1 = X_RANGE
        P, B, ridge = m.peak_compute, m.bandwidth, m.ridge
        xs = [] if conceal else [x0, ridge, x1] if x0 < ridge < x1 else [x0, x1]
        self.roof.data = {"x": xs, "y": [min(P, x * B) for x in xs], "P": [P] * len(xs), "B": [B] * len(xs)}
        self.roof_line.visible = not conceal
        # The roof's hover prints attainable at every I: off while an exercise hides the answer.
        self.roof_hover.renderers = [] if conceal else [self.roof_line]

    def _draw_regions(self, m: RooflineModel, conceal: bool, high: float) -> None:
        """Shade memory-bound left of the ridge and compute-bound right of it, with their names."""
        x0, x1 = X_RANGE
        ridge, shown = m.ridge, not conceal
        # Concealed, the boxes span the plot (their default edges), invisible: nothing in the page is at the ridge.
        self.memory_area.update(left=None, right=ridge if shown else None, visible=shown)
        self.compute_area.update(left=ridge if shown else None, right=None, visible=shown)
        label_y = high / 10**0.3
        # Each region's name sits at its outer edge, shown while the region spans 3 octaves or more.
        self.memory_name.update(x=x0, y=label_y, x_offset=6, visible=shown and ridge >= x0 * 8)
        self.compute_name.update(x=x1, y=label_y, x_offset=-6, visible=shown and ridge <= x1 / 8)

    def _draw_ridge(self, m: RooflineModel, conceal: bool, low: float) -> None:
        """The ridge's dotted line, its point on the roof and its value; while concealed, none of them."""
        x0, x1 = X_RANGE
        ridge, P = m.ridge, m.peak_compute
        on_chart = not conceal and x0 <= ridge <= x1
        self.ridge_line.update(location=None if conceal else ridge, visible=on_chart)
        self.ridge_point.data = {"x": [ridge] if on_chart else [], "y": [P] if on_chart else []}
        if conceal:
            self.ridge_label.update(x=x0, y=low, text="", visible=False)
            return
        ridge_text = f"ridge = {significant(ridge)} FLOP/byte"
        ridge_left = ridge > 128  # keep the label inside the plot on a narrow screen
        self.ridge_label.update(
            x=min(max(ridge, x0), x1),
            y=low,
            text=ridge_text if on_chart else f"{ridge_text}\n(off the chart)",
            text_align="right" if ridge_left else "left",
            text_baseline="bottom",
            x_offset=-6 if ridge_left else 6,
            y_offset=6,
            visible=True,
        )

    def _draw_kernel(self, m: RooflineModel, conceal: bool, low: float) -> None:
        """The kernel's point on the roof with its attainable rate; while concealed, neither."""
        shown = not conceal
        self.kernel.data = {"x": [m.intensity] * shown, "y": [m.attainable] * shown, "regime": [m.regime] * shown}
        if conceal:
            self.kernel_label.update(x=X_RANGE[0], y=low, text="", visible=False)
            return
        # Below-right of the point while there is room on its right (also on a phone); further
        # right, left of it: above the slope for a memory-bound kernel, under the roof otherwise.
        right_side = m.intensity <= (16 if m.regime == MEMORY_BOUND else 64)
        above = not right_side and m.regime == MEMORY_BOUND
        self.kernel_label.update(
            x=m.intensity,
            y=m.attainable,
            text=f"your kernel\n{significant(m.attainable)} GFLOP/s",
            text_align="left" if right_side else "right",
            text_baseline="bottom" if above else "top",
            x_offset=10 if right_side else -10,
            y_offset=10 if above else -10,
            visible=True,
        )

    def _draw_race(self, m: RooflineModel, conceal: bool) -> None:
        """The pace line and, at the kernel's I, the faster side's ceiling with its time alone; concealed, neither."""
        shown = not conceal
        self.pace_line.visible = shown
        memory_faster = m.memory_time < m.compute_time
        if conceal or m.at_ridge:  # on the ridge both sides finish together, at the kernel's point
            self.faster.data = {"x": [], "y": [], "colour": []}
            self.faster_label.update(x=X_RANGE[0], y=m.peak_compute, text="", visible=False)
            return
        unit, seconds = m.time_unit
        side, ceiling, alone, colour = (
            ("memory", m.intensity * m.bandwidth, m.memory_time, MEMORY_COLOUR)
            if memory_faster
            else ("compute", m.peak_compute, m.compute_time, COMPUTE_COLOUR)
        )
        self.faster.data = {"x": [m.intensity], "y": [ceiling], "colour": [colour]}
        # Over its point, centred, except near an edge of the plot (also on a phone's narrow plot).
        align = "left" if m.intensity < 1 else "right" if m.intensity > 256 else "center"
        self.faster_label.update(
            x=m.intensity,
            y=ceiling,
            text=f"{side} alone: {significant(alone / seconds)} {unit}",
            text_color=colour,
            text_align=align,
            text_baseline="bottom",
            x_offset={"left": -6, "right": 6, "center": 0}[align],
            y_offset=9,
            visible=True,
        )
