"""The roofline lab's two Bokeh figures: the log–log roofline with the kernel, and Play's race of bytes against FLOPs.

Each is a small class that builds its figure once (:attr:`figure`) and redraws it from the model;
the view owns neither the glyphs nor their data.
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
)
from bokeh.plotting import figure

from labs.numbers import significant
from labs.roofline.model import COMPUTE_BOUND, MEMORY_BOUND, PLAYBACK_RANGE, RooflineModel
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
}
"""Each piece of the roofline chart by its attribute, and the ``name`` it carries in the Bokeh document of the page."""

# The roof line's hover text, from the model's min(P, I·B), formatted as significant() does.
HOVER_CODE = browser_code("formats.js", "roofline_hover.js")


class RooflineChart:
    """The roofline: memory slope and compute roof, the ridge, the kernel's point, a hover on the roof.

    While an exercise conceals its answer the chart draws only the two ceilings, the slope I·B and
    the flat P, each a straight line across the whole plot: no bent roof, no ridge, no shaded
    regions or their names, no kernel and no hover. Every piece has a ``name`` (:data:`NAMES`), so
    a browser test finds it in the Bokeh document of the page (by name).
    """

    def __init__(self, peak_compute: float):
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


class RaceChart:
    """Play's race: bytes moved and FLOPs done against device time, with when each alone would finish."""

    def __init__(self, reveal: ColumnDataSource, marker: ColumnDataSource):
        fig = figure(
            height=240,
            sizing_mode="stretch_width",
            x_range=Range1d(0, 10),
            y_range=Range1d(0, 108),
            x_axis_label="device time",
            y_axis_label="done (%)",
            tools="",
            toolbar_location=None,
            title="Play: the workload on this device",
        )
        fig.yaxis.ticker = FixedTicker(ticks=[0, 25, 50, 75, 100])
        self.alone = ColumnDataSource(data={"time": [], "flops_pct": []})
        fig.line(
            "time",
            "flops_pct",
            source=self.alone,
            line_dash="dashed",
            color=COMPUTE_COLOUR,
            line_alpha=0.6,
            line_width=1.5,
        )
        fig.line("time", "bytes_pct", source=reveal, color=MEMORY_COLOUR, line_width=7, line_alpha=0.45)
        fig.line("time", "flops_pct", source=reveal, color=COMPUTE_COLOUR, line_width=2.5)
        fig.scatter("time", "bytes_pct", source=marker, size=13, color=MEMORY_COLOUR, alpha=0.6)
        fig.scatter("time", "flops_pct", source=marker, size=8, color=COMPUTE_COLOUR)
        self.memory_done = Span(dimension="height", line_dash="dotted", line_color=MEMORY_COLOUR, line_width=2)
        self.compute_done = Span(dimension="height", line_dash="dotted", line_color=COMPUTE_COLOUR, line_width=2)
        self.memory_done_label = Label(x=0, y=18, text="", text_color=MEMORY_COLOUR, text_font_size="11px")
        self.compute_done_label = Label(x=0, y=4, text="", text_color=COMPUTE_COLOUR, text_font_size="11px")
        for annotation in (
            self.memory_done,
            self.compute_done,
            self.memory_done_label,
            self.compute_done_label,
        ):
            fig.add_layout(annotation)
        self.figure = fig

    def redraw(self, m: RooflineModel, conceal: bool) -> None:
        """Draw the race's axis and the memory-alone and compute-alone marks; while ``conceal``, neither."""
        unit, seconds = m.time_unit
        end = PLAYBACK_RANGE[1] * m.time_scale / seconds
        self.figure.x_range.update(start=0, end=end)
        self.figure.xaxis.axis_label = f"device time ({unit})"
        # While concealed: no work figure and no time ticks (the axis ends at the finish time at
        # some settings; work over finish time is the answer).
        self.figure.xaxis.major_label_text_alpha = 0.0 if conceal else 1.0
        self.figure.title.text = (
            "Play: the workload on this device" if conceal else f"Play: {significant(m.work)} GFLOP on this device"
        )
        memory, compute = m.memory_time / seconds, m.compute_time / seconds
        alone = {"time": [0.0, compute, max(end, compute)], "flops_pct": [0, 100, 100]}
        self.alone.data = {key: [] for key in alone} if conceal else alone
        # Concealed, the marks hold no time at all (the later one is the finish), not only hidden ones.
        self.memory_done.update(location=None if conceal else memory, visible=not conceal)
        self.compute_done.update(location=None if conceal else compute, visible=not conceal)
        for label, at, side in (
            (self.memory_done_label, memory, "memory"),
            (self.compute_done_label, compute, "compute"),
        ):
            early = at < 0.45 * end
            label.update(
                x=0.0 if conceal else at,
                text="" if conceal else f"{side} alone: {significant(at)} {unit}",
                text_align="left" if early or conceal else "right",
                x_offset=5 if early or conceal else -5,
                visible=not conceal,
            )
