"""The roofline lab's view: typed controls, device presets, Reset/Step/Play, the roofline plot.

Below the log–log roofline, a small timeline shows the race of bytes against FLOPs that Play runs
on the modelled device.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import panel as pn
import param
from bokeh.models import (
    BoxAnnotation,
    ColumnDataSource,
    CustomJSHover,
    Div,
    FixedTicker,
    HoverTool,
    Label,
    NoOverlap,
    Range1d,
    Span,
)
from bokeh.plotting import figure

from labs.numbers import fixed, significant
from labs.roofline.model import AT_RIDGE, MEMORY_BOUND, PLAYBACK_RANGE, RooflineModel
from labs.ui import browser_code
from labs.ui.lab_view import LabView
from labs.ui.number_field import NumberField
from labs.ui.palette import BLUE, KERNEL_GREEN, KERNEL_LABEL_GREEN, MUTED_GREY, NAVY, ORANGE, PURPLE, WHITE
from labs.ui.playback import escape, revealed
from labs.ui.plot_text import PlotText

UNITS = {"intensity": "FLOP/byte", "bandwidth": "GB/s", "peak_compute": "GFLOP/s"}

MEMORY_COLOUR = BLUE
COMPUTE_COLOUR = ORANGE
RIDGE_COLOUR = PURPLE

X_RANGE = (1 / 16, 4096.0)
"""The intensity axis: every value the control accepts, fixed so the chart never jumps."""

X_TICKS = {2.0**k: (f"1/{2**-k}" if k < 0 else str(2**k)) for k in range(-4, 13, 2)}

TERA_FROM = 10_000.0
"""From this many GFLOP/s on, the readout adds the figure in TFLOP/s in brackets."""


@dataclass(frozen=True)
class Device:
    """A device preset: its compute roof, memory bandwidth, and where those figures come from."""

    label: str
    peak_compute: float
    bandwidth: float
    source: str


DEVICES = {
    device.label: device
    for device in (
        Device(
            "Teaching device (1000 GFLOP/s)",
            RooflineModel.param.peak_compute.default,
            RooflineModel.param.bandwidth.default,
            "A made-up device for the lessons: P = 1000 GFLOP/s; choosing it sets B = 200 GB/s.",
        ),
        Device(
            "NVIDIA H100 SXM (989 TFLOP/s, 3.35 TB/s)",
            989_000.0,
            3350.0,
            "NVIDIA H100 Tensor Core GPU datasheet, SXM column: BF16 Tensor Core 1,979 TFLOPS "
            "with sparsity, so about 989 TFLOP/s dense; GPU memory bandwidth 3.35 TB/s (HBM3).",
        ),
        Device(
            "NVIDIA H200 SXM (989 TFLOP/s, 4.8 TB/s)",
            989_000.0,
            4800.0,
            "NVIDIA H200 Tensor Core GPU datasheet, SXM column: the same BF16 Tensor Core figure "
            "as the H100 (1,979 TFLOPS with sparsity, about 989 dense); 4.8 TB/s (HBM3e).",
        ),
        Device(
            "NVIDIA A100 SXM 80GB (312 TFLOP/s, 2.04 TB/s)",
            312_000.0,
            2039.0,
            "NVIDIA A100 Tensor Core GPU datasheet, 80GB SXM column: BF16 Tensor Core 312 TFLOPS "
            "dense (624 with sparsity); GPU memory bandwidth 2,039 GB/s (HBM2e).",
        ),
    )
}
TEACHING_DEVICE = next(iter(DEVICES))
CUSTOM_DEVICE = "Custom (typed compute roof)"


def performance(value: float) -> str:
    """A rate in GFLOP/s for the readout, with TFLOP/s in brackets when that reads better.

    Parameters
    ----------
    value : float
        GFLOP/s.

    Returns
    -------
    str
        ``"800 GFLOP/s"`` or ``"26800 GFLOP/s (26.8 TFLOP/s)"``.
    """
    text = f"{significant(value)} GFLOP/s"
    if value >= TERA_FROM:
        text += f" ({significant(value / 1000)} TFLOP/s)"
    return text


def axis_label(value: float) -> str:
    """Label a power-of-ten tick on the performance axis.

    Parameters
    ----------
    value : float
        A power of ten, in GFLOP/s.

    Returns
    -------
    str
        ``"0.01"`` … ``"1000"``, then ``"10 000"`` with thin spaces, and ``"10⁻³"`` below 0.01.
    """
    exponent = round(math.log10(value))
    if exponent < -2:
        return "10" + str(exponent).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    if exponent < 4:
        return significant(value)
    return f"{10**exponent:,}".replace(",", "\u2009")


def performance_range(peak_compute: float) -> tuple[float, float]:
    """The performance axis for a compute roof: six decades, the roof at least 10× below the top.

    Parameters
    ----------
    peak_compute : float
        P in GFLOP/s.

    Returns
    -------
    tuple of float
        ``(bottom, top)`` in GFLOP/s, powers of ten; it depends on P only, so moving I or B
        never moves it.
    """
    top = 10.0 ** math.ceil(math.log10(peak_compute * 10))
    return top / 1e6, top


# The roof line's hover text, from the model's min(P, I·B), formatted as significant() does.
HOVER_CODE = browser_code("formats.js", "roofline_hover.js")


class RooflineLab(LabView):
    """One student's roofline lab: a :class:`RooflineModel` drawn with Bokeh, served by Panel.

    With ``presets=True`` (the standalone lab) a "Device" chooser sets P and B from real
    accelerators and P can be typed; with ``presets=False`` (a lesson) P stays at its default,
    1000 GFLOP/s, and is shown as a fixed value.
    """

    title = "Roofline lab"

    model = param.ClassSelector(class_=RooflineModel, doc="This session's roofline model.")
    presets = param.Boolean(
        default=True,
        constant=True,
        doc="Offer the Device chooser and a typed compute roof P; False fixes P as in the lessons.",
    )

    def __init__(self, **params):
        params.setdefault("model", RooflineModel())
        super().__init__(**params)
        names = self.model.controls if self.presets else ("intensity", "bandwidth")
        self.fields = [NumberField(model=self.model, control=n, unit=UNITS[n]) for n in names]
        self._syncing_device = False
        self.fixed_roof = pn.pane.HTML(
            f"<p style='margin:8px 0'>Compute roof P = {significant(self.model.peak_compute)} GFLOP/s "
            "(fixed in this lesson)</p>",
            min_width=150,
            margin=(0, 10),
            styles={"flex": "1 1 170px"},
        )
        self.device = pn.widgets.Select(
            label="Device",
            options=[*DEVICES, CUSTOM_DEVICE],
            value=TEACHING_DEVICE,
            sizing_mode="stretch_width",
            max_width=420,
            styles={"flex": "1 1 100%"},  # a line of its own above the fields
        )
        if self.presets:
            self.device.param.watch(self._device_chosen, "value")
            self.model.param.watch(self._roof_changed, "peak_compute")
        self.explain = Div(text="", sizing_mode="stretch_width", margin=(0, 10, 0, 10))
        self.roofline = self._make_roofline()
        self.race = self._make_race()
        self._drawn: tuple = ()
        self.model.param.watch(self._model_changed, ["t", "horizon", *self.model.controls])
        self.param.watch(self.refresh, "conceal")
        self.refresh()
        self._assemble(
            self._controls(), self.explain, self.roofline, self.race, self._notes(), plots=[self.roofline, self.race]
        )

    # ----- layout -------------------------------------------------------------------------

    def _controls(self) -> list[pn.viewable.Viewable]:
        controls: list[pn.viewable.Viewable] = [self.device] if self.presets else []
        controls += self.fields
        if not self.presets:
            controls.append(self.fixed_roof)
        return controls

    def _notes(self) -> Div:
        """The race plot's key, the lab's scope and (with presets) the device figures' sources."""
        notes = self._race_caption() + self._scope_html() + (self._sources_html() if self.presets else "")
        return Div(text=notes, sizing_mode="stretch_width", margin=(0, 10, 0, 10))

    @staticmethod
    def _scope_html() -> str:
        return (
            f"<p style='font-size:0.9rem;color:{MUTED_GREY}'>B is the bandwidth between the device and its "
            "own memory, not network bandwidth. Play runs a fixed 8 GFLOP of work and changes "
            "neither I nor B. The lab shows one resource ceiling on one device: it has no "
            "collectives, no second kernel competing for memory, no ranks and no network.</p>"
        )

    @staticmethod
    def _sources_html() -> str:
        items = "".join(
            f"<li><strong>{html.escape(d.label)}</strong>: {html.escape(d.source)}</li>" for d in DEVICES.values()
        )
        return (
            f'<section aria-label="Device figures" style="font-size:0.9rem;color:{MUTED_GREY}">'
            "<h3 style='font-size:1rem;margin:4px 0'>Where the device figures come from</h3>"
            f"<ul style='margin:0;padding-left:1.2em'>{items}</ul>"
            "<p style='margin:4px 0'>Peak figures from the vendor's datasheets; real kernels "
            "reach less than either roof.</p></section>"
        )

    # ----- presets ------------------------------------------------------------------------

    def _device_chosen(self, event: param.parameterized.Event) -> None:
        device = DEVICES.get(event.new)
        if self._syncing_device or device is None:
            return
        self.model.param.update(peak_compute=device.peak_compute, bandwidth=device.bandwidth)

    def _roof_changed(self, event: param.parameterized.Event) -> None:
        shown = DEVICES.get(self.device.value)
        if shown is not None and shown.peak_compute == event.new:
            return
        match = next((d for d in DEVICES.values() if d.peak_compute == event.new), None)
        self._syncing_device = True
        try:
            self.device.value = match.label if match else CUSTOM_DEVICE
        finally:
            self._syncing_device = False

    # ----- readout ------------------------------------------------------------------------

    def _template(self) -> str:
        m = self.model
        unit, seconds = m.time_unit
        ridge = escape(f"ridge = {'?' if self.conceal else significant(m.ridge)} FLOP/byte")
        if self.conceal:
            head = "<strong>attainable = ? GFLOP/s</strong> · regime shown once you have run the exercise"
        else:
            head = f"<strong>{escape('attainable = ' + performance(m.attainable))}</strong> · {escape(m.regime)}"
        # While concealed the finish time stays out: 8 GFLOP over it is the attainable rate.
        of_finish = "" if self.conceal else f" of {significant(m.finish_time / seconds)}"
        race = escape(
            f"device time = {{time:2}}{of_finish} {unit} · bytes moved {{bytes_pct:0}}% · FLOPs done {{flops_pct:0}}%"
        )
        return f"{head} · {ridge}<br>{race}"

    def _explain_html(self) -> str:
        """Why the kernel attains what it does: outside the live status, so it is not re-read on every change."""
        if self.conceal:
            return ""
        m = self.model
        unit, seconds = m.time_unit
        side = {AT_RIDGE: "on", MEMORY_BOUND: "left of"}.get(m.regime, "right of")
        memory, compute = significant(m.memory_time / seconds), significant(m.compute_time / seconds)
        slower = "memory sets" if m.memory_time > m.compute_time else "compute sets"
        if m.at_ridge:
            slower = "both sides set"
        why = (
            f"I = {significant(m.intensity)} FLOP/byte is {side} the ridge. {significant(m.work)} GFLOP moving "
            f"{significant(m.traffic)} GB: memory needs {memory} {unit}, compute needs {compute} {unit}; "
            f"{slower} the finish, and {significant(m.work)} GFLOP in {significant(m.finish_time / seconds)} {unit} "
            f"is {performance(m.achieved_rate)}."
        )
        return f"<p style='margin:2px 0;font-size:0.95rem'>{escape(why)}</p>"

    def describe_plots(self) -> list[PlotText]:
        """The roofline and the race as drawn now; while concealed, without ridge, attainable or finish."""
        return [self._describe_roofline(), self._describe_race()]

    def _describe_roofline(self) -> PlotText:
        m = self.model
        x0, x1 = X_RANGE
        intensity = significant(m.intensity)
        rows = [["roof at the left edge", significant(x0), significant(min(m.peak_compute, x0 * m.bandwidth))]]
        if self.conceal:
            summary = (
                f"log–log axes, I from {significant(x0)} to {significant(x1)} FLOP/byte. The roof rises with slope "
                f"B = {significant(m.bandwidth)} GB/s to a flat compute roof P = {significant(m.peak_compute)} "
                f"GFLOP/s. Your kernel, at I = {intensity} FLOP/byte, is marked once you have run the exercise."
            )
        else:
            summary = (
                f"log–log axes, I from {significant(x0)} to {significant(x1)} FLOP/byte. The roof rises with slope "
                f"B = {significant(m.bandwidth)} GB/s to the ridge at I = {significant(m.ridge)} FLOP/byte, then "
                f"stays flat at P = {significant(m.peak_compute)} GFLOP/s. Your kernel: I = {intensity} FLOP/byte, "
                f"{performance(m.attainable)}, {m.regime}."
            )
            rows.append(["ridge", significant(m.ridge), significant(m.peak_compute)])
        rows.append(["roof at the right edge", significant(x1), significant(min(m.peak_compute, x1 * m.bandwidth))])
        if not self.conceal:
            rows.append(["your kernel", intensity, significant(m.attainable)])
        return PlotText("Roofline plot", summary, ("point", "I (FLOP/byte)", "performance (GFLOP/s)"), rows)

    def _describe_race(self) -> PlotText:
        m = self.model
        unit, seconds = m.time_unit
        drawn = revealed(m.trajectory(), m.t)
        now = {key: column[-1] for key, column in drawn.items()}
        summary = (
            f"bytes moved and FLOPs done, in percent, against device time; drawn up to {fixed(now['time'])} {unit}: "
            f"bytes moved {fixed(now['bytes_pct'], 0)}%, FLOPs done {fixed(now['flops_pct'], 0)}%."
        )
        if not self.conceal:
            summary += (
                f" Lines mark memory alone finishing at {significant(m.memory_time / seconds)} {unit} and compute "
                f"alone at {significant(m.compute_time / seconds)} {unit}."
            )
        rows = [
            [fixed(time), fixed(moved, 0), fixed(done, 0)]
            for time, moved, done in zip(drawn["time"], drawn["bytes_pct"], drawn["flops_pct"], strict=True)
        ]
        columns = (f"device time ({unit})", "bytes moved (%)", "FLOPs done (%)")
        return PlotText("Race plot", summary, columns, rows)

    # ----- figures ------------------------------------------------------------------------

    def _make_roofline(self):
        low, high = performance_range(self.model.peak_compute)
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
        self.memory_area = BoxAnnotation(fill_color=MEMORY_COLOUR, fill_alpha=0.07, line_alpha=0)
        self.compute_area = BoxAnnotation(fill_color=COMPUTE_COLOUR, fill_alpha=0.07, line_alpha=0)
        fig.add_layout(self.memory_area)
        fig.add_layout(self.compute_area)
        self.memory_name = Label(
            text="memory-bound",
            text_color=MEMORY_COLOUR,
            text_align="left",
            text_font_style="bold",
            text_font_size="13px",
        )
        self.compute_name = Label(
            text="compute-bound",
            text_color=COMPUTE_COLOUR,
            text_align="right",
            text_font_style="bold",
            text_font_size="13px",
        )
        fig.add_layout(self.memory_name)
        fig.add_layout(self.compute_name)
        self.ceilings = ColumnDataSource(data={"x": [], "slope": [], "roof": []})
        fig.line(
            "x",
            "slope",
            source=self.ceilings,
            line_dash="dashed",
            color=MEMORY_COLOUR,
            line_alpha=0.45,
            line_width=1.5,
        )
        fig.line(
            "x",
            "roof",
            source=self.ceilings,
            line_dash="dashed",
            color=COMPUTE_COLOUR,
            line_alpha=0.45,
            line_width=1.5,
        )
        self.roof = ColumnDataSource(data={"x": [], "y": [], "P": [], "B": []})
        self.roof_line = roof_line = fig.line("x", "y", source=self.roof, line_width=4, color=NAVY)
        self.ridge_line = Span(
            dimension="height",
            line_dash="dotted",
            line_color=RIDGE_COLOUR,
            line_width=2,
            location=1.0,
        )
        fig.add_layout(self.ridge_line)
        self.ridge_point = ColumnDataSource(data={"x": [], "y": []})
        fig.scatter("x", "y", source=self.ridge_point, marker="diamond", size=14, color=RIDGE_COLOUR)
        self.ridge_label = Label(x=1.0, y=1.0, text="", text_color=RIDGE_COLOUR, text_font_size="12px")
        fig.add_layout(self.ridge_label)
        self.kernel = ColumnDataSource(data={"x": [], "y": [], "regime": []})
        point = fig.scatter("x", "y", source=self.kernel, size=15, color=KERNEL_GREEN, line_color=WHITE, line_width=2)
        self.kernel_label = Label(
            x=1.0, y=1.0, text="", text_color=KERNEL_LABEL_GREEN, text_font_size="12px", text_font_style="bold"
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
        return fig

    def _make_race(self):
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
        reveal, marker = self.transport.reveal, self.transport.marker
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
        return fig

    @staticmethod
    def _race_caption() -> str:
        def swatch(colour: str, style: str) -> str:
            return (
                "<span aria-hidden='true' style='display:inline-block;width:22px;"
                f"border-top:{style} {colour};vertical-align:middle;margin:0 4px'></span>"
            )

        return (
            f"<p style='font-size:0.85rem;color:{MUTED_GREY};margin:0'>"
            f"{swatch(MEMORY_COLOUR + '80', '6px solid')}bytes moved, at B "
            f"{swatch(COMPUTE_COLOUR, '3px solid')}FLOPs done, never ahead of their bytes "
            f"{swatch(COMPUTE_COLOUR, '2px dashed')}FLOPs at P, as if every byte were already "
            "there. Dotted lines: when memory alone and compute alone would be done; the later "
            "one is the finish.</p>"
        )

    # ----- redraw -------------------------------------------------------------------------

    def _state(self) -> tuple:
        return tuple(getattr(self.model, name) for name in ("t", "horizon", *self.model.controls))

    def _model_changed(self, *_events: param.parameterized.Event) -> None:
        # An edit that moves the horizon reaches here twice (the model's own watcher sets the
        # horizon first); draw once per state.
        if self._state() != self._drawn:
            self.refresh()

    def _redraw(self) -> None:
        self._drawn = self._state()
        self._redraw_roofline()
        self._redraw_race()
        self.explain.text = self._explain_html()
        self.transport.refresh()

    def _redraw_roofline(self) -> None:
        m = self.model
        P, B, ridge = m.peak_compute, m.bandwidth, m.ridge
        x0, x1 = X_RANGE
        low, high = performance_range(P)
        self.roofline.y_range.update(start=low, end=high)
        decades = [10.0**k for k in range(round(math.log10(low)), round(math.log10(high)) + 1)]
        self.y_ticker.ticks = decades
        self.roofline.yaxis[0].major_label_overrides = {v: axis_label(v) for v in decades}
        xs = [x0, ridge, x1] if x0 < ridge < x1 else [x0, x1]
        self.roof.data = {
            "x": xs,
            "y": [min(P, x * B) for x in xs],
            "P": [P] * len(xs),
            "B": [B] * len(xs),
        }
        self.ceilings.data = {"x": [x0, x1], "slope": [x0 * B, x1 * B], "roof": [P, P]}
        on_chart = x0 <= ridge <= x1
        self.memory_area.update(left=None, right=ridge)
        self.compute_area.update(left=ridge, right=None)
        label_y = high / 10**0.3
        # Each region's name sits at its outer edge, shown while the region spans 3 octaves or more.
        self.memory_name.update(x=x0, y=label_y, x_offset=6, visible=ridge >= x0 * 8)
        self.compute_name.update(x=x1, y=label_y, x_offset=-6, visible=ridge <= x1 / 8)
        self.ridge_line.update(location=ridge, visible=on_chart)
        self.ridge_point.data = {"x": [ridge] if on_chart else [], "y": [P] if on_chart else []}
        ridge_text = "ridge = ? FLOP/byte" if self.conceal else f"ridge = {significant(ridge)} FLOP/byte"
        # The roof's hover prints attainable at every I: off while an exercise hides the answer.
        self.roof_hover.renderers = [] if self.conceal else [self.roof_line]
        ridge_left = ridge > 128  # keep the label inside the plot on a narrow screen
        self.ridge_label.update(
            x=min(max(ridge, x0), x1),
            y=low,
            text=ridge_text if on_chart else f"{ridge_text}\n(off the chart)",
            text_align="right" if ridge_left else "left",
            text_baseline="bottom",
            x_offset=-6 if ridge_left else 6,
            y_offset=6,
        )
        shown = not self.conceal
        self.kernel.data = {"x": [m.intensity] * shown, "y": [m.attainable] * shown, "regime": [m.regime] * shown}
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
            visible=shown,
        )

    def _redraw_race(self) -> None:
        m = self.model
        unit, seconds = m.time_unit
        end = PLAYBACK_RANGE[1] * m.time_scale / seconds
        self.race.x_range.update(start=0, end=end)
        self.race.xaxis.axis_label = f"device time ({unit})"
        # While concealed: no work figure and no time ticks (the axis ends at the finish time at
        # some settings; work over finish time is the answer).
        self.race.xaxis.major_label_text_alpha = 0.0 if self.conceal else 1.0
        self.race.title.text = (
            "Play: the workload on this device" if self.conceal else f"Play: {significant(m.work)} GFLOP on this device"
        )
        memory, compute = m.memory_time / seconds, m.compute_time / seconds
        alone = {"time": [0.0, compute, max(end, compute)], "flops_pct": [0, 100, 100]}
        self.alone.data = {key: [] for key in alone} if self.conceal else alone
        self.memory_done.update(location=memory, visible=not self.conceal)
        self.compute_done.update(location=compute, visible=not self.conceal)
        for label, at, side in (
            (self.memory_done_label, memory, "memory"),
            (self.compute_done_label, compute, "compute"),
        ):
            early = at < 0.45 * end
            label.update(
                x=at,
                text=f"{side} alone: {significant(at)} {unit}",
                text_align="left" if early else "right",
                x_offset=5 if early else -5,
                visible=not self.conceal,
            )
