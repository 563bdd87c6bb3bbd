"""The bucket timeline lab's view: DDP's buckets on a Gantt of one step, what breaks the overlap, the cap sweep.

The controls come in two groups: the network and DDP's caps (with the DDP call they correspond to),
then what breaks the ideal overlap (contention, the launch gap, a missing event, the optimizer's
wait, a synchronization after every bucket, a rank that skips a gradient). Play reveals the Gantt
in the browser up to t with a moving "now" line (``labs/ui/assets/player.js``); nothing passes to the
server while it plays. A table lists the buckets for screen readers and for exact numbers.
"""

from __future__ import annotations

import html

import panel as pn
import param
from bokeh.models import Div

from labs.timeline import LAB, figures, text
from labs.timeline.model import TimelineModel
from labs.ui.lab_view import LabView
from labs.ui.number_field import NumberField
from labs.ui.palette import DARK_GREY
from labs.ui.plot_text import PlotText
from labs.ui.select_field import SelectField
from labs.ui.stage import ControlGroup
from labs.ui.switch_field import SwitchField
from labs.ui.two_way import TwoWay

UNITS = {
    "layers": "size MiB : backward ms, forward order",
    "bucket_cap": "MiB",
    "first_bucket_cap": "MiB",
    "ranks": "",
    "bandwidth": "GB/s",
    "latency": "µs",
    "straggler": "ms",
    "compute_slowdown": "×",
    "comm_slowdown": "×",
    "launch_gap": "ms",
    "machine_ranks": "",
    "intra_bandwidth": "GB/s",
}
MODEL_AND_CAPS = ("layers", "bucket_cap", "first_bucket_cap")
"""The typed controls of the first panel, after the Model and Iteration choices; the note on the caps follows."""
CAP_SWITCHES = ("last_bucket_cap",)
"""The switches of the first panel, after the caps: where the small bucket goes."""
NETWORK = ("ranks", "bandwidth", "machine_ranks", "intra_bandwidth", "latency", "straggler")
"""The typed controls of the network and ranks panel; the line on the ring's link follows."""
RING_LINE_KEEPS = frozenset({"bucket_count"})
"""The concealed quantities the ring's line cannot give away; while an exercise conceals any other
(a time, ``ring_bandwidth``, ``pending_max``, ...) the line is hidden."""
BREAKS = ("compute_slowdown", "comm_slowdown", "launch_gap")
"""The typed controls of what breaks the ideal overlap, before its choices and switches."""
RING_LINE_HIDDEN = "Which link the ring runs at shows once the exercise has run."
NOTE_STYLE = f"margin: 4px 10px; font-size: 0.875rem; color: {DARK_GREY}; flex: 1 1 100%"


class TimelineLab(LabView):
    """One student's bucket timeline lab: a :class:`TimelineModel` drawn as a Gantt of one step."""

    title = LAB.title  # one place: the registration in labs/timeline/__init__.py
    has_bars = True

    model = param.ClassSelector(class_=TimelineModel, doc="This session's timeline model.")

    def __init__(self, **params):
        params.setdefault("model", TimelineModel())
        super().__init__(**params)
        m = self.model
        self.fields = [NumberField(model=m, control=name, unit=UNITS.get(name, "")) for name in m.typed_controls]
        field = {f.control: f for f in self.fields}
        field["layers"].input.styles = {"flex": "1 1 100%"}  # the layers get a line of their own
        self.links: dict[str, TwoWay] = {}  # each chooser and switch with the model, both ways
        self.choosers = {
            name: self._chooser(name, m.param[name].label)
            for name in ("preset", "iteration", *m.numbered_choices, "progress")
        }
        self.preset, self.iteration = self.choosers["preset"], self.choosers["iteration"]
        self.switches = {name: self._switch(name) for name in m.switch_controls}
        self.cap_note = pn.pane.HTML("", styles={"flex": "1 1 100%"}, margin=0)
        self.ring_note = pn.pane.HTML("", styles={"flex": "1 1 100%"}, margin=0)
        self._gantt = figures.Gantt(self.transport.bars, self.transport.now)
        self.gantt = self._gantt.figure
        self.exposed_box, self.optimizer = self._gantt.exposed_box, self._gantt.optimizer
        self.legend = Div(text=figures.LEGEND, sizing_mode="stretch_width", margin=(0, 10, 0, 10))
        self._sweep = figures.CapSweep()
        self.sweep = self._sweep.figure
        # Bokeh draws a Div's text in an inline-block as wide as its widest line: on a phone the
        # table scrolls sideways inside its own box instead of widening the page.
        self.table = Div(text="", sizing_mode="stretch_width", margin=(0, 10, 0, 10), styles={"overflow-x": "auto"})
        chooser = self.choosers
        groups = [
            ControlGroup(
                "Model and caps",
                (
                    ("preset", chooser["preset"]),
                    ("iteration", chooser["iteration"]),
                    *((name, field[name]) for name in MODEL_AND_CAPS),
                    *((name, self.switches[name]) for name in CAP_SWITCHES),
                    ("cap_note", self.cap_note),
                ),
            ),
            ControlGroup(
                "Network and ranks",
                (*((name, field[name]) for name in NETWORK), ("ring_note", self.ring_note)),
            ),
            ControlGroup(
                "What breaks the ideal overlap",
                (
                    *((name, field[name]) for name in BREAKS),
                    ("missing_event", chooser["missing_event"]),
                    ("skipped_layer", chooser["skipped_layer"]),
                    ("progress", chooser["progress"]),
                    *((name, box) for name, box in self.switches.items() if name not in CAP_SWITCHES),
                ),
                collapsible=True,
            ),
        ]
        self._assemble(
            [self.gantt], groups, more=[self.sweep, self.table], plots=[self.gantt, self.sweep], key=[self.legend]
        )

    def _shown(self, control: str) -> str:
        m = self.model
        return m.choice_text(control) if control in m.numbered_choices else getattr(m, control)

    def _options(self, control: str) -> list[str]:
        m = self.model
        if control not in m.numbered_choices:
            return list(m.param[control].objects)
        if self.conceal and self.hidden_quantity == "bucket_count" and m.numbered_choices[control] == "bucket":
            # Listing the buckets would count them: only "none" and what is chosen already.
            return list(dict.fromkeys(["none", self._shown(control)]))
        return m.choice_options(control)

    def _chooser(self, control: str, name: str) -> SelectField:
        """A select for one choice control of the model, kept in step with it both ways."""
        select = SelectField(label=name, options=self._options(control), value=self._shown(control))

        self.links[control] = TwoWay(
            select,
            shown=lambda: self._shown(control),
            apply=lambda choice: self.model.apply(control, choice),  # refuses "Custom": it only names edited layers
        )
        return select

    def _switch(self, control: str) -> SwitchField:
        """A checkbox for one on/off control of the model, kept in step with it both ways."""
        box = SwitchField(label=self.model.param[control].label, value=getattr(self.model, control))

        self.links[control] = TwoWay(
            box,
            shown=lambda: getattr(self.model, control),
            apply=lambda on: self.model.apply(control, on),
        )
        return box

    def ring_words(self) -> str:
        """The network panel's line: which link the ring runs at, and that a group completes as one.

        A fixed sentence instead while an exercise conceals a quantity the line could give away (see
        :data:`RING_LINE_KEEPS`).
        """
        if self.conceal and self.hidden_quantity not in RING_LINE_KEEPS:
            return RING_LINE_HIDDEN
        m = self.model
        words = m.ring_link
        if m.nccl_group:
            words += " One NCCL group: every all-reduce counts as complete when the last one ends."
        return words

    def bar_columns(self) -> dict[str, list]:
        """The Gantt's pieces: backward slots, all-reduces, overlays, ready and issue marks."""
        return figures.bar_columns(self.model)

    def describe_plots(self) -> list[PlotText]:
        """The Gantt as drawn up to t and the cap sweep; nothing an exercise hides."""
        return [
            text.gantt_text(self.model, self.conceal, self.bar_columns()),
            text.sweep_text(self.model, self.conceal),
        ]

    def _template(self) -> str:
        return text.readout_template(self.model, self.conceal)

    def readout_room(self) -> str:
        """A fixed text as long as the readout's common longest (:data:`labs.timeline.text.READOUT_ROOM`)."""
        return text.READOUT_ROOM

    def _redraw(self) -> None:
        m = self.model
        hidden = self.conceal
        self._gantt.redraw(m, hidden)
        self._sweep.redraw(m, hidden)
        self.table.text = text.table_html(m, hidden)
        self.cap_note.object = f"<p style='{NOTE_STYLE}'>{figures.cap_note(m)}</p>"
        self.ring_note.object = f"<p style='{NOTE_STYLE}'>{html.escape(self.ring_words())}</p>"
        for control, select in self.choosers.items():
            options = self._options(control)
            if select.options != options:
                select.options = options
            self.links[control].show()  # after its options: its value is one of them
        for control in self.switches:
            self.links[control].show()
