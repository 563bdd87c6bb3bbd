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
from labs.queue.text import RANDOM_HIDES_MM1, UNITS, backlog_text, mm1_html, readout_room, readout_template
from labs.ui.lab_view import LabView
from labs.ui.number_field import NumberField
from labs.ui.plot_text import PlotText
from labs.ui.stage import ControlGroup
from labs.ui.switch_field import SwitchField
from labs.ui.transport import SPEEDS

RANDOM_SPEED = "50×"
"""The speed offered while the random queue is on: its 500 s run plays in 10 s."""


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
        self.switch = SwitchField(label=self.model.param["random_queue"].label, value=self.model.random_queue)
        self.switch.param.watch(self._switched, "value")
        self.switches = {"random_queue": self.switch}  # every on/off control by name, as in the timeline lab
        self.seed_field = NumberField(model=self.model, control="seed", unit=UNITS["seed"])
        rates = ControlGroup("Arrivals and service", tuple((f.control, f) for f in self.fields))
        random = ControlGroup("Random queue", (("random_queue", self.switch), ("seed", self.seed_field)))
        self._assemble([self.figure], [rates, random], more=[self.mm1_panel], plots=[self.figure])

    def _switched(self, event: param.parameterized.Event) -> None:
        if event.new != self.model.random_queue:
            self.model.apply("random_queue", event.new)

    @property
    def _hides_mm1(self) -> bool:
        return self.conceal and self.hidden_quantity in RANDOM_HIDES_MM1

    def _template(self) -> str:
        return readout_template(self.model, self.conceal, self.hidden_quantity)

    def readout_room(self) -> str:
        """The unconcealed readout's words, every figure masked (:func:`labs.queue.text.readout_room`)."""
        return readout_room(self.model)

    def describe_plots(self) -> list[PlotText]:
        """The backlog plot as drawn now: the path up to t, the stop line, the M/M/1 mean, the random queue."""
        return [backlog_text(self.model, self.conceal, self.hidden_quantity)]

    def _redraw(self) -> None:
        m = self.model
        self.chart.redraw(m, self.conceal, self.hidden_quantity)
        self.mm1_panel.text = mm1_html(m, hide=self._hides_mm1)
        if self.switch.value != m.random_queue:
            self.switch.value = m.random_queue
        speeds = [*SPEEDS, RANDOM_SPEED] if m.random_queue else list(SPEEDS)
        select = self.transport.speed
        if select.options != speeds:
            select.options = speeds
            if m.random_queue:
                select.value = RANDOM_SPEED  # 500 s in 10 s: at 2× the run would take over four minutes
            elif select.value not in speeds:
                select.value = self.speed
