"""The bucket timeline lab's view: DDP's buckets on a Gantt of one step, and step time against bucket cap.

The Gantt has a compute row (one bar per layer's backward, last layer first) and a communication
row (one bar per bucket's all-reduce, labelled with its MiB), the exposed tail shaded and the
optimizer's start marked. Play reveals the bars in the browser up to t with a moving "now" line
(``labs/ui/player.js``); nothing passes to the server while it plays. A second plot sweeps the
step time over bucket caps from 0.25 to 1024 MiB, with the current cap marked. A table lists the
buckets for screen readers and for exact numbers.
"""

from __future__ import annotations

import html

import panel as pn
import param
from bokeh.models import BoxAnnotation, ColumnDataSource, Div, FactorRange, Label, LabelSet, Range1d, Span
from bokeh.plotting import figure

from labs.numbers import fixed
from labs.timed import InvalidInput, format_number
from labs.timeline.model import TimelineModel
from labs.ui.lab_view import LabView
from labs.ui.number_field import NumberField
from labs.ui.playback import clipped, escape
from labs.ui.plot_text import PlotText

UNITS = {
    "layers": "size MiB : backward ms, forward order",
    "bucket_cap": "MiB",
    "first_bucket_cap": "MiB",
    "ranks": "",
    "bandwidth": "GB/s",
    "latency": "µs",
    "straggler": "ms",
}
COMPUTE, COMM = "backward", "all-reduce"
COMPUTE_COLOUR, COMM_COLOUR, EXPOSED_COLOUR = "#1f6fb2", "#d4541a", "#c0392b"


def ms(value: float) -> str:
    """A time in ms for people: two decimals below 100 ms, one above (:func:`labs.numbers.fixed`)."""
    return fixed(value, 2 if abs(value) < 100 else 1)


class TimelineLab(LabView):
    """One student's bucket timeline lab: a :class:`TimelineModel` drawn as a Gantt of one step."""

    title = "Bucket timeline lab"
    has_bars = True

    model = param.ClassSelector(class_=TimelineModel, doc="This session's timeline model.")

    def __init__(self, **params):
        params.setdefault("model", TimelineModel())
        super().__init__(**params)
        self.fields = [
            NumberField(model=self.model, control=name, unit=UNITS.get(name, "")) for name in self.model.typed_controls
        ]
        self.fields[0].input.styles = {"flex": "1 1 100%"}  # the layers get a line of their own
        self.preset = self._chooser("preset", "Model")
        self.iteration = self._chooser("iteration", "Iteration")
        self.gantt = self._make_gantt()
        self.sweep_source = ColumnDataSource(data={"cap": [], "step": []})
        self.sweep_point = ColumnDataSource(data={"cap": [], "step": []})
        self.sweep = self._make_sweep()
        self.table = Div(text="", sizing_mode="stretch_width", margin=(0, 10, 0, 10))
        self.model.param.watch(self.refresh, ["t", "horizon", *self.model.controls])
        self.param.watch(self.refresh, "conceal")
        self.refresh()
        controls = [self.preset, self.iteration, *self.fields]
        self._assemble(controls, self.gantt, self.sweep, self.table, plots=[self.gantt, self.sweep])

    def _chooser(self, control: str, name: str) -> pn.widgets.Select:
        """A select for one choice control of the model, kept in step with it both ways."""
        select = pn.widgets.Select(
            label=name,
            options=list(self.model.param[control].objects),
            value=getattr(self.model, control),
            width=300,
        )

        def chosen(event: param.parameterized.Event) -> None:
            if event.new == getattr(self.model, control):
                return  # the model's own change, shown back in the select
            try:
                self.model.apply(control, event.new)
            except InvalidInput:  # e.g. "Custom", which only names edited layers
                select.value = getattr(self.model, control)

        select.param.watch(chosen, "value")
        return select

    def bar_columns(self) -> dict[str, list]:
        """The backward slots and the all-reduces as one set of Gantt bars (row, colour, label)."""
        rows = self.model.intervals()
        columns: dict[str, list] = {"start": [], "end": [], "row": [], "color": [], "label": []}
        for key, row, colour in (("compute", COMPUTE, COMPUTE_COLOUR), ("comm", COMM, COMM_COLOUR)):
            bars = rows[key]
            columns["start"] += [float(x) for x in bars["start"]]
            columns["end"] += [float(x) for x in bars["end"]]
            columns["label"] += [str(x) for x in bars["label"]]
            columns["row"] += [row] * len(bars["start"])
            columns["color"] += [colour] * len(bars["start"])
        return columns

    # ----- plots ----------------------------------------------------------------------------

    def describe_plots(self) -> list[PlotText]:
        """The Gantt as drawn up to t and the cap sweep; nothing an exercise hides."""
        return [self._describe_gantt(), self._describe_sweep()]

    def _describe_gantt(self) -> PlotText:
        m = self.model
        t = m.t
        full = self.bar_columns()
        drawn = clipped(full, t)
        started = [i for i, begin in enumerate(full["start"]) if begin < t]
        rows = [[full["row"][i], full["label"][i], ms(full["start"][i]), ms(drawn["end"][i])] for i in started]

        def finished(lane: str) -> int:
            return sum(1 for i in started if full["row"][i] == lane and full["end"][i] <= t)

        slots, reduces = finished(COMPUTE), finished(COMM)
        words = (
            f"drawn up to t = {ms(t)} ms: {slots} backward slot{'s' * (slots != 1)} and "
            f"{reduces} all-reduce{'s' * (reduces != 1)} finished"
        )
        under_way = [f"{full['row'][i]} {full['label'][i]}".strip() for i in started if full["end"][i] > t]
        if under_way:
            words += "; under way: " + ", ".join(under_way)
        if not self.conceal:
            words = (
                f"backward ends at {ms(m.backward_end)} ms; the last all-reduce ends at {ms(m.step_time)} ms, "
                f"where the optimizer step starts (exposed tail {ms(m.exposed)} ms). D" + words[1:]
            )
        columns = ("row", "bar", "start (ms)", "end drawn (ms)")
        return PlotText("Gantt of one step", words + ".", columns, rows)

    def _describe_sweep(self) -> PlotText:
        name = "Step time against bucket cap"
        if self.conceal:
            return PlotText(name, "hidden until the exercise has run.")
        m = self.model
        sweep = m.step_time_sweep()
        caps, steps = list(map(float, sweep.cap_mib)), list(map(float, sweep.step))
        best = min(range(len(steps)), key=steps.__getitem__)
        summary = (
            f"caps from {format_number(caps[0])} to {format_number(caps[-1])} MiB on a log scale; "
            f"the shortest step is {ms(steps[best])} ms at {format_number(caps[best])} MiB; "
            f"the current cap, {format_number(m.bucket_cap)} MiB, gives {ms(m.step_time)} ms; "
            f"a dashed line marks {ms(m.no_overlap_step)} ms without overlap."
        )
        rows = [[format_number(cap), ms(step)] for cap, step in zip(caps, steps, strict=True)]
        return PlotText(name, summary, ("bucket cap (MiB)", "step (ms)"), rows)

    def _make_gantt(self):
        fig = figure(
            height=230,
            sizing_mode="stretch_width",
            y_range=FactorRange(COMM, COMPUTE),
            x_range=Range1d(0, 1),
            x_axis_label="time in the step (ms)",
            tools="",
            toolbar_location=None,
            title="One training step on one rank: backward and the all-reduce stream",
        )
        bars = self.transport.bars
        fig.hbar(y="row", left="start", right="end", height=0.6, source=bars, fill_color="color", line_color="white")
        fig.add_layout(
            LabelSet(
                x="start",
                y="row",
                text="label",
                source=bars,
                x_offset=3,
                y_offset=-7,
                text_font_size="11px",
                text_color="white",
            )
        )
        self.exposed_box = BoxAnnotation(left=0, right=0, fill_color=EXPOSED_COLOUR, fill_alpha=0.15)
        self.optimizer = Span(location=0, dimension="height", line_dash="dashed", line_color="#333", line_width=2)
        self.optimizer_label = Label(
            x=0, y=0, y_units="screen", y_offset=4, x_offset=4, text="optimizer", text_font_size="11px"
        )
        self.exposed_label = Label(
            x=0,
            y=0,
            y_units="screen",
            y_offset=18,
            x_offset=4,
            text="",
            text_font_size="11px",
            text_color=EXPOSED_COLOUR,
        )
        for annotation in (
            self.exposed_box,
            self.optimizer,
            self.optimizer_label,
            self.exposed_label,
            self.transport.now,
        ):
            fig.add_layout(annotation)
        return fig

    def _make_sweep(self):
        fig = figure(
            height=200,
            sizing_mode="stretch_width",
            x_axis_type="log",
            x_axis_label="bucket cap (MiB)",
            y_axis_label="step (ms)",
            tools="",
            toolbar_location=None,
            title="Step time against bucket cap (the rest as set above)",
        )
        fig.line("cap", "step", source=self.sweep_source, line_width=2, color=COMM_COLOUR)
        fig.scatter("cap", "step", source=self.sweep_point, size=10, color="#333")
        self.no_overlap_line = Span(location=0, dimension="width", line_dash="dashed", line_color="#555")
        self.no_overlap_label = Label(x=0.3, y=0, text="no overlap", text_font_size="11px", y_offset=3,
                                      text_color="#555")
        fig.add_layout(self.no_overlap_line)
        fig.add_layout(self.no_overlap_label)
        return fig

    # ----- text -----------------------------------------------------------------------------

    def _template(self) -> str:
        m = self.model
        if self.conceal:  # an exercise asks for one of these: none shows until it has run
            return escape("t = {t} ms")
        return escape(
            f"t = {{t}} ms · buckets = {m.bucket_count} · step = {ms(m.step_time)} ms · exposed = {ms(m.exposed)} ms"
        )

    def _table_html(self) -> str:
        if self.conceal:
            return "<p style='color:#555'>The bucket table appears once the exercise has run.</p>"
        m = self.model
        table = m.bucket_table()
        rows = "".join(
            f"<tr><td>{bucket}</td><td>{html.escape(str(layers))}</td><td>{format_number(round(float(mib), 3))}</td>"
            f"<td>{ms(ready)}</td><td>{ms(start)}</td><td>{ms(end)}</td></tr>"
            for bucket, layers, mib, ready, start, end in zip(
                table["bucket"], table["layers"], table["mib"], table["ready"], table["start"], table["end"],
                strict=True,
            )
        )
        cell = "style='padding:2px 8px;text-align:right'"
        return (
            "<table style='border-collapse:collapse;font-size:0.9rem'>"
            f"<caption style='text-align:left;font-weight:600'>Buckets ({html.escape(m.iteration)}): "
            f"backward ends at {ms(m.backward_end)} ms, step {ms(m.step_time)} ms, exposed "
            f"{ms(m.exposed)} ms; without overlap {ms(m.no_overlap_step)} ms</caption>"
            f"<thead><tr><th {cell}>bucket</th><th {cell}>layers</th><th {cell}>MiB</th><th {cell}>ready (ms)</th>"
            f"<th {cell}>start (ms)</th><th {cell}>end (ms)</th></tr></thead>"
            f"<tbody>{rows.replace('<td>', f'<td {cell}>')}</tbody></table>"
        )

    # ----- redraw ---------------------------------------------------------------------------

    def _redraw(self) -> None:
        m = self.model
        end = max(m.step_time, m.no_overlap_step) * 1.05
        self.gantt.x_range.update(start=0, end=end)
        hidden = self.conceal
        self.exposed_box.update(left=m.backward_end, right=m.step_time, visible=not hidden and m.exposed > 0)
        self.optimizer.update(location=m.step_time, visible=not hidden)
        self.optimizer_label.update(x=m.step_time, visible=not hidden)
        self.exposed_label.update(
            x=m.backward_end, text=f"exposed {ms(m.exposed)} ms", visible=not hidden and m.exposed > 0
        )
        sweep = m.step_time_sweep()
        self.sweep_source.data = {"cap": list(map(float, sweep.cap_mib)), "step": list(map(float, sweep.step))}
        self.sweep_point.data = {"cap": [float(m.bucket_cap)], "step": [float(m.step_time)]}
        self.no_overlap_line.location = m.no_overlap_step
        self.no_overlap_label.y = m.no_overlap_step
        self.sweep.visible = not hidden
        self.table.text = self._table_html()
        if self.preset.value != m.preset:
            self.preset.value = m.preset
        if self.iteration.value != m.iteration:
            self.iteration.value = m.iteration
        self.transport.refresh()
