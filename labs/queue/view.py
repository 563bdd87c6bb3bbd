"""The queue lab's view: typed controls, Reset/Step/Play, the backlog plot and the M/M/1 panel.

The pieces live beside it: the words (:mod:`labs.queue.text`) and the figure
(:mod:`labs.queue.figures`); this module puts them together for one session.
"""

from __future__ import annotations

import param
from bokeh.models import Div

from labs.queue import LAB
from labs.queue.figures import BacklogChart
from labs.queue.model import QueueModel
from labs.queue.text import UNITS, backlog_text, mm1_html, readout_template
from labs.ui.lab_view import LabView
from labs.ui.number_field import NumberField
from labs.ui.plot_text import PlotText
from labs.ui.stage import ControlGroup


class QueueLab(LabView):
    """One student's queue lab: a :class:`QueueModel` drawn with Bokeh and served by Panel."""

    title = LAB.title  # one place: the registration in labs/queue/__init__.py
    speed = "2×"  # 10 s of queue in 5 s: design.md keeps 1× at one model second per second

    model = param.ClassSelector(class_=QueueModel, doc="This session's queue model.")

    def __init__(self, **params):
        params.setdefault("model", QueueModel())
        super().__init__(**params)
        self.fields = [
            NumberField(model=self.model, control=name, unit=UNITS[name]) for name in self.model.typed_controls
        ]
        self.chart = BacklogChart(self.transport.reveal, self.transport.marker, self.model.horizon)
        self.figure = self.chart.figure
        self.mm1_panel = Div(text="", sizing_mode="stretch_width", margin=(0, 10, 0, 10))
        rates = ControlGroup("Arrivals and service", tuple((f.control, f) for f in self.fields))
        self._assemble([self.figure], [rates], more=[self.mm1_panel], plots=[self.figure])

    def _template(self) -> str:
        return readout_template(self.model, self.conceal)

    def describe_plots(self) -> list[PlotText]:
        """The backlog plot as drawn now: the path up to t, the stop line and the M/M/1 mean."""
        return [backlog_text(self.model, self.conceal)]

    def _redraw(self) -> None:
        self.chart.redraw(self.model, self.conceal)
        self.mm1_panel.text = mm1_html(self.model)
