"""The queue lab's view: typed controls, Reset/Step/Play, the backlog plot and the M/M/1 panel."""

from __future__ import annotations

import math

import panel as pn
import param
from bokeh.models import Div, HoverTool, Label, Range1d, Span
from bokeh.plotting import figure
from panel.viewable import Viewer

from labs.queue.model import QueueModel
from labs.ui.number_field import NumberField
from labs.ui.playback import Transport, escape
from labs.ui.region import NamedRegion

UNITS = {"arrival_rate": "units/s", "service_rate": "units/s", "initial_backlog": "units"}


def nice_ceiling(value: float) -> float:
    """Round up to 1, 2 or 5 times a power of ten, for an axis that does not jump on every edit.

    Parameters
    ----------
    value : float
        A positive number.

    Returns
    -------
    float
        The smallest of 1, 2, 2.5, 5 or 10 times a power of ten that is ≥ value.
    """
    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    for factor in (1, 2, 2.5, 5, 10):
        if factor * power >= value:
            return factor * power
    return 10 * power


class QueueLab(Viewer):
    """One student's queue lab: a :class:`QueueModel` drawn with Bokeh and served by Panel."""

    model = param.ClassSelector(class_=QueueModel, doc="This session's queue model.")
    conceal = param.Boolean(
        default=False,
        doc="Hide the values that answer a guided exercise until the student has run it.",
    )

    def __init__(self, **params):
        params.setdefault("model", QueueModel())
        super().__init__(**params)
        self.transport = Transport(model=self.model, template=self._template, redraw=self.refresh)
        self.fields = [NumberField(model=self.model, control=name, unit=UNITS[name]) for name in self.model.controls]
        self.model.param.watch(self.refresh, ["t", "horizon", *self.model.controls])
        self.param.watch(self.refresh, "conceal")
        self.figure = self._make_figure()
        self.mm1_panel = Div(text="", sizing_mode="stretch_width", margin=(0, 10, 0, 10))
        self.refresh()
        self._layout = NamedRegion(
            label="Queue lab",
            heading="Queue lab",
            controls=self.fields,
            object=self.transport.view(self.figure, self.mm1_panel),
            sizing_mode="stretch_width",
        )

    def _template(self) -> str:
        readout = "t = {t} s · backlog = {backlog} units"
        if self.conceal:
            return escape(readout)
        return escape(f"{readout} · net rate λ − μ = {self.model.net_rate:+.2f} units/s")

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
            title="Fluid backlog q(t) = max(0, q0 + (λ − μ)·t)",
        )
        line = fig.line("t", "backlog", source=self.transport.reveal, line_width=3, color="#1f6fb2")
        fig.scatter("t", "backlog", source=self.transport.marker, size=12, color="#d4541a")
        fig.add_tools(HoverTool(renderers=[line], tooltips=[("t", "@t{0.00} s"), ("backlog", "@backlog{0.00}")]))
        self.mm1_line = Span(
            dimension="width",
            line_dash="dashed",
            line_color="#6a3d9a",
            line_width=2,
            location=0,
            visible=False,
        )
        self.mm1_label = Label(
            x=0.2,
            y=0,
            text="",
            text_color="#6a3d9a",
            text_font_size="12px",
            y_offset=4,
            visible=False,
        )
        fig.add_layout(self.mm1_line)
        fig.add_layout(self.mm1_label)
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
                f"<p>ρ = λ/μ = {self.model.rho:.2f} ≥ 1: <strong>no steady state</strong>. "
                "Work arrives at least as fast as it can be served, so the random queue grows "
                "without bound and has no long-run mean.</p>"
            )
        else:
            body = (
                f"<p>ρ = λ/μ = {ref.rho:.2f}; mean number in system L = {ref.L:.2f}; "
                f"waiting Lq = {ref.Lq:.2f}; mean time in system W = {ref.W:.2f} s; "
                f"waiting Wq = {ref.Wq:.2f} s.</p>"
            )
        # Inline styles: Panel replaces the stylesheets of the Bokeh models it renders.
        return (
            '<section aria-label="M/M/1 reference" style="border:1px dashed #6a3d9a;border-radius:6px;'
            'padding:4px 12px;font-size:0.95rem;line-height:1.4">'
            f'<h3 style="margin:4px 0;font-size:1.05rem">M/M/1 reference</h3>{body}'
            f'<p style="font-size:0.85em;color:#444;margin:4px 0">Assumptions: {assumptions}</p>'
            "</section>"
        )

    def refresh(self, *_events: param.parameterized.Event) -> None:
        """Redraw everything from the model: trajectory, marker, readout, axes, M/M/1 panel."""
        with pn.io.hold(self.transport.state.document):
            self._redraw()

    def _redraw(self) -> None:
        model = self.model
        peak = max(float(model.trajectory()["backlog"].max()), model.initial_backlog)
        ref = model.mm1
        if ref is not None:
            peak = max(peak, ref.L)
        self.figure.x_range.update(start=0, end=model.horizon)
        self.figure.y_range.update(start=0, end=nice_ceiling(peak * 1.1 if peak > 0 else 1))
        self.mm1_line.update(visible=ref is not None, location=ref.L if ref else 0)
        self.mm1_label.update(
            visible=ref is not None,
            y=ref.L if ref else 0,
            text=f"M/M/1 mean L = {ref.L:.2f}" if ref else "",
        )
        self.mm1_panel.text = self._mm1_html()
        self.transport.refresh()

    def __panel__(self) -> pn.viewable.Viewable:
        return self._layout
