"""The queue lab's view: typed controls, Reset/Step/Play, the backlog plot and the M/M/1 panel."""

from __future__ import annotations

import param
from bokeh.models import Div, HoverTool, Label, Range1d, Span
from bokeh.plotting import figure

from labs.numbers import fixed, fixed_apart, nice_at_least
from labs.queue import LAB
from labs.queue.model import QueueModel
from labs.ui.lab_view import LabView
from labs.ui.number_field import NumberField
from labs.ui.palette import BLUE, MUTED_GREY, ORANGE, PURPLE, STOP_GREEN
from labs.ui.playback import escape, revealed
from labs.ui.plot_text import PlotText, path_words

UNITS = {"arrival_rate": "units/s", "service_rate": "units/s", "initial_backlog": "units", "arrivals_stop": "s"}

STOP_COLOUR = STOP_GREEN

AXIS_MANTISSAS = (1.0, 2.0, 2.5, 5.0)
"""The backlog axis ends at one of these times a power of ten."""

TITLE = "Fluid backlog q(t) = max(0, q0 + (λ − μ)·t)"
TITLE_WITH_STOP = "Fluid backlog: q0 + (λ − μ)·t until arrivals stop at T, then down at μ (never below 0)"


def nice_ceiling(value: float) -> float:
    """Round up to 1, 2, 2.5 or 5 times a power of ten, for an axis that does not jump on every edit.

    Parameters
    ----------
    value : float
        A number; 0 or less gives 1.

    Returns
    -------
    float
        The smallest of 1, 2, 2.5, 5 or 10 times a power of ten that is ≥ value.
    """
    if value <= 0:
        return 1.0
    return nice_at_least(value, AXIS_MANTISSAS)


class QueueLab(LabView):
    """One student's queue lab: a :class:`QueueModel` drawn with Bokeh and served by Panel."""

    title = LAB.title  # one place: the registration in labs/queue/__init__.py

    model = param.ClassSelector(class_=QueueModel, doc="This session's queue model.")

    def __init__(self, **params):
        params.setdefault("model", QueueModel())
        super().__init__(**params)
        self.fields = [NumberField(model=self.model, control=name, unit=UNITS[name]) for name in self.model.controls]
        self.figure = self._make_figure()
        self.mm1_panel = Div(text="", sizing_mode="stretch_width", margin=(0, 10, 0, 10))
        self._assemble(self.fields, self.figure, self.mm1_panel, plots=[self.figure])

    def _template(self) -> str:
        readout = "t = {t} s · backlog = {backlog} units"
        stop = self.model.arrivals_stop
        if stop is not None:
            readout += f" · arrivals stop at {self.model.shown_value('arrivals_stop')} s"
        if self.conceal:
            return escape(readout)
        readout += f" · net rate λ − μ = {fixed(self.model.net_rate, sign=True)} units/s"
        if stop is not None:
            after = fixed(-self.model.service_rate, sign=True).replace("-", "−")  # never "−0.00"
            readout += f" until then, {after} units/s after"
        return escape(readout)

    def describe_plots(self) -> list[PlotText]:
        """The backlog plot as drawn now: the path up to t, the stop line and the M/M/1 mean."""
        model = self.model
        drawn = revealed(model.trajectory(), model.t)
        ts, backlog = list(drawn["t"]), list(drawn["backlog"])
        summary = path_words(ts, backlog, "units")
        stop = model.arrivals_stop
        if stop is not None and stop <= model.horizon:
            summary += f". A line marks arrivals stopping at t = {model.shown_value('arrivals_stop')} s"
        ref = model.mm1
        if ref is not None and self._mm1_on_chart(self._peak()):
            summary += f". A dashed line marks the M/M/1 mean L = {fixed(ref.L)}"
        elif ref is not None:
            summary += f". The M/M/1 mean L = {fixed(ref.L)} is above the chart"
        rows = [[fixed(t), fixed(q)] for t, q in zip(ts, backlog, strict=True)]
        return [PlotText("Backlog plot", summary + ".", ("t (s)", "backlog (units)"), rows)]

    def _make_figure(self):
        fig = figure(
            height=300,
            sizing_mode="stretch_width",
            x_range=Range1d(0, self.model.horizon),
            y_range=Range1d(0, 10),
            x_axis_label="time t (s)",
            y_axis_label="backlog (work units)",
            tools="",
            toolbar_location=None,
            title=TITLE,
        )
        line = fig.line("t", "backlog", source=self.transport.reveal, line_width=3, color=BLUE)
        fig.scatter("t", "backlog", source=self.transport.marker, size=12, color=ORANGE)
        fig.add_tools(HoverTool(renderers=[line], tooltips=[("t", "@t{0.00} s"), ("backlog", "@backlog{0.00}")]))
        self.mm1_line = Span(
            dimension="width",
            line_dash="dashed",
            line_color=PURPLE,
            line_width=2,
            location=0,
            visible=False,
        )
        self.mm1_label = Label(
            x=0.2,
            y=0,
            text="",
            text_color=PURPLE,
            text_font_size="12px",
            y_offset=4,
            visible=False,
        )
        self.stop_line = Span(
            dimension="height",
            line_dash="dotdash",
            line_color=STOP_COLOUR,
            line_width=2,
            location=0,
            visible=False,
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
            visible=False,
        )
        for annotation in (self.mm1_line, self.mm1_label, self.stop_line, self.stop_label):
            fig.add_layout(annotation)
        return fig

    def _mm1_html(self) -> str:
        ref = self.model.mm1
        assumptions = (
            "Poisson arrivals at rate λ, exponential service times at rate μ, one server, "
            "steady state. This is a different model from the fluid curve above: it describes "
            "long-run averages of a random queue, not this deterministic backlog."
        )
        if ref is None:
            body = (
                f"<p>ρ = λ/μ = {fixed(self.model.rho)} ≥ 1: <strong>no steady state</strong>. "
                "Work arrives at least as fast as it can be served, so the random queue grows "
                "without bound and has no long-run mean.</p>"
            )
        else:
            body = (
                f"<p>ρ = λ/μ = {fixed_apart(ref.rho, 1)}; mean number in system L = {fixed(ref.L)}; "
                f"waiting Lq = {fixed(ref.Lq)}; mean time in system W = {fixed(ref.W)} s; "
                f"waiting Wq = {fixed(ref.Wq)} s.</p>"
            )
        if self.model.arrivals_stop is not None:
            body += "<p>The M/M/1 reference assumes arrivals never stop: the stop time is not part of it.</p>"
        # Inline styles: Panel replaces the stylesheets of the Bokeh models it renders.
        return (
            f'<section aria-label="M/M/1 reference" style="border:1px dashed {PURPLE};border-radius:6px;'
            'padding:4px 12px;font-size:0.95rem;line-height:1.4">'
            f'<h3 style="margin:4px 0;font-size:1.05rem">M/M/1 reference</h3>{body}'
            f'<p style="font-size:0.85em;color:{MUTED_GREY};margin:4px 0">Assumptions: {assumptions}</p>'
            "</section>"
        )

    def _peak(self) -> float:
        """The highest backlog the axis must show.

        While an exercise hides its answer, the axis is scaled as if arrivals never stopped, so that
        its height does not hint at the backlog left when they stop.
        """
        model = self.model
        if self.conceal and model.arrivals_stop is not None:
            return max(model.initial_backlog, model.initial_backlog + model.net_rate * model.horizon)
        return max(float(model.trajectory()["backlog"].max()), model.initial_backlog)

    def _mm1_on_chart(self, peak: float) -> bool:
        """Whether the M/M/1 mean is drawn as a line: only while it does not dwarf the backlog.

        Near ρ = 1 the mean grows without bound (L = 7 × 10^15 at ρ = 1 − 10^-16); stretching the
        axis to it would flatten the backlog the lab is about, so it is then named, not drawn.
        """
        ref = self.model.mm1
        return ref is not None and ref.L <= max(4 * peak, 10)

    def _redraw(self) -> None:
        model = self.model
        peak = self._peak()
        ref = model.mm1
        mean_on_chart = self._mm1_on_chart(peak)
        if mean_on_chart:
            peak = max(peak, ref.L)
        top = nice_ceiling(peak * 1.1 if peak > 0 else 1)
        self.figure.x_range.update(start=0, end=model.horizon)
        self.figure.y_range.update(start=0, end=top)
        self.mm1_line.update(visible=mean_on_chart, location=ref.L if mean_on_chart else 0)
        self.mm1_label.update(
            visible=ref is not None,
            y=ref.L if mean_on_chart else top * 0.9,
            text=(f"M/M/1 mean L = {fixed(ref.L)}" + ("" if mean_on_chart else " (above the chart)")) if ref else "",
        )
        stop = model.arrivals_stop
        shown = stop is not None and stop <= model.horizon
        self.stop_line.update(visible=shown, location=stop if shown else 0)
        self.stop_label.update(
            visible=shown,
            x=stop if shown else 0,
            text=f"arrivals stop at {model.shown_value('arrivals_stop')} s" if shown else "",
            text_align="right" if shown and stop > 0.6 * model.horizon else "left",
            x_offset=-4 if shown and stop > 0.6 * model.horizon else 4,
        )
        self.figure.title.text = TITLE if stop is None else TITLE_WITH_STOP
        self.mm1_panel.text = self._mm1_html()
