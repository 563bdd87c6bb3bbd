"""The page "Your own trace": a student's PyTorch profiler traces read as the bucket timeline, beside the model.

One :class:`TraceView` per session. Files arrive through Panel's ``FileDropper`` (chunked, so a
100 MB trace never has to fit in one websocket message), are parsed from memory by
:mod:`app.trace` in the trace readers' own threads (:data:`app.web.background.TRACE_POOL`: two files at a
time per process, the others wait and the page says "Waiting"; the event loop and the class database's
threads keep serving other students meanwhile), and
live only in this session's objects: nothing is written to disk, and closing the tab frees them.
"""

from __future__ import annotations

import html
from functools import partial
from pathlib import Path

import panel as pn
import param
from bokeh.models import ColumnDataSource, FactorRange, LabelSet, Range1d
from bokeh.plotting import figure
from panel.viewable import Viewer

from app.trace import TraceError
from app.trace.page.beside import AnswerLine, ModelBeside
from app.trace.page.inputs import dropper, rank_picker, reading_text
from app.trace.page.sample import SAMPLE_FILES, sample_traces
from app.trace.page.shown import (
    GANTT_KEYS,
    LABEL_INK,
    alert_html,
    bucket_table,
    gantt_columns,
    headline_html,
    read_file,
    summary_html,
)
from app.trace.parse import RankTrace
from app.trace.ranks import RunTimeline, combine_ranks
from app.trace.reader import MAX_WORLD
from app.trace.summary import summarize
from app.trace.timeline import StepTimeline
from app.upstream.upload_limits import on_refused
from app.web.background import TRACE_POOL, TRACE_WORKERS, in_worker_thread
from labs.ui import stylesheet
from labs.ui.live_readout import LiveReadout
from labs.ui.palette import WHITE
from labs.ui.region import NamedRegion
from labs.ui.styles import CONTROL_CSS

DROPPED_FILE_CSS = stylesheet(Path(__file__).parent / "assets" / "dropped_file.css", compact=True)
"""FilePond draws each dropped file's size and status line at half opacity, white on grey, under WCAG's
4.5:1 (axe: color-contrast); at full opacity they read like the file's name. Once a file has arrived
its panel turns green, FilePond's own green, where white text is 3.6:1; the course's done green is 6.3:1."""
PROMPT = "Drop one trace file per rank to read its buckets, or load the sample trace."
SAMPLE_PROMPT = "Press Load the sample trace to read its buckets."
GANTT_KEY = (
    '<p style="margin:4px 0;font-size:0.9rem">Blue: backward compute. Orange: each all-reduce, numbered by its '
    "bucket where the number fits (▲ ready, ▼ issued). The dark band along an all-reduce: communication not "
    "hidden behind compute (exposed).</p>"
)
"""What the Gantt's colours and marks mean, above it."""


class TraceView(ModelBeside, Viewer):
    """One student's trace page: drop rank files, pick a step, read the buckets, put the model beside it."""

    traces = param.List(default=[], doc="This session's parsed traces, one per rank file.")
    step = param.Integer(default=None, allow_None=True, doc="The step shown (its number in the trace).")
    message = param.String(default="", doc="Why the last files could not be read, for the alert line.")
    own_files = param.Boolean(
        default=True,
        constant=True,
        doc=(
            "Whether the student may drop their own files and open the model beside them (the trace page), "
            "or only load the sample (beside a lesson, where the page's own lab is the model)."
        ),
    )

    def __init__(self, **params):
        super().__init__(**params)
        self.prompt = PROMPT if self.own_files else SAMPLE_PROMPT
        self.sample = pn.widgets.Button(label="Load the sample trace", color="primary", stylesheets=[CONTROL_CSS])
        self.sample.on_click(lambda _event: self.load_sample())
        self.drop = dropper([DROPPED_FILE_CSS])
        self.drop.param.watch(self._dropped, "value")
        on_refused(self.drop, self._upload_refused)
        self.steps = pn.widgets.Select(label="Step", options={}, disabled=True, width=260)
        self.steps.param.watch(self._step_chosen, "value")
        self.status = LiveReadout(self.prompt)
        self.alert = pn.pane.HTML("", margin=(0, 10))
        self.source = ColumnDataSource(data={key: [] for key in GANTT_KEYS})
        self.gantt = self._make_gantt()
        self.table = pn.pane.HTML("", sizing_mode="stretch_width", styles={"overflow-x": "auto"})
        self.summary = pn.pane.HTML("", sizing_mode="stretch_width", styles={"overflow-x": "auto"})
        self._summarized: list[RankTrace] = []  # the traces the summary was made for
        self.open_lab = pn.widgets.Button(
            label="Open in the bucket timeline lab",
            disabled=True,
            color="primary",
            stylesheets=[CONTROL_CSS],
            visible=self.own_files,
        )
        self.open_lab.on_click(self._open_lab)
        self.comparison = AnswerLine(margin=(5, 10), sizing_mode="stretch_width")
        self.lab_slot = pn.Column(sizing_mode="stretch_width")
        self.lab = None
        self._run: RunTimeline | None = None
        self._timeline: StepTimeline | None = None
        self._parsed: dict[str, RankTrace] = {}  # by file name, as in the dropper's list
        self._problems: dict[str, str] = {}  # by file name: why it could not be read
        self._reading: set[str] = set()
        self._sent: dict[str, object] = {}  # by file name: the bytes being read, as the dropper holds them
        self._queued: set[str] = set()  # of those, the files waiting for a free reader (TRACE_POOL is full)
        self._refused: dict[str, str] = {}  # by file name: why its upload was refused
        self._shown = ""  # the readout's figures as last shown
        self._listed: list[str] = []  # the files read, in the dropper's order
        self._given: dict[str, int] = {}  # by file name: the rank its reader chose, for a file without one
        self._unnamed: list[str] = []  # the files a rank picker is shown for
        self._choices = 0  # how many ranks each picker offers
        self.rank_pickers = pn.Column(sizing_mode="stretch_width")
        # Asked only while no file says how many ranks the run had: never guessed from the file count.
        self.world = pn.widgets.IntInput(
            label="World size (ranks in the run)", value=None, start=2, end=MAX_WORLD, width=260, visible=False
        )
        self.world.param.watch(lambda _event: self._assemble(), "value")
        self.key = pn.pane.HTML(GANTT_KEY, visible=False, sizing_mode="stretch_width", margin=(0, 10))
        self.shown = pn.Column(self.key, self.gantt, self.table, self.summary, sizing_mode="stretch_width")
        self.layout = self._lay_out()

    def _lay_out(self) -> NamedRegion:
        """The page's region: what the student gives (files, the sample, ranks, the step), then what is read."""
        drop_group = NamedRegion(label="Trace file", role="group", object=self.drop, sizing_mode="stretch_width")
        return NamedRegion(
            label="Trace",
            heading="Your trace",
            controls=[drop_group, self.sample, self.world, self.rank_pickers, self.steps],
            object=pn.Column(
                self.alert,
                self.status.pane,
                self.shown,
                self.open_lab,
                self.comparison,
                self.lab_slot,
                sizing_mode="stretch_width",
            ),
            sizing_mode="stretch_width",
        )

    def _make_gantt(self) -> pn.pane.Bokeh:
        fig = figure(
            height=160,
            sizing_mode="stretch_width",
            y_range=FactorRange(),
            x_range=Range1d(0, 1),
            tools="",
            toolbar_location=None,
            x_axis_label="ms from the start of backward",
            title="The measured step",  # its key is a paragraph above it, which wraps on a phone
        )
        fig.hbar(
            y="y",
            left="start",
            right="end",
            height="height",
            source=self.source,
            fill_color="color",
            line_color=WHITE,
        )
        fig.add_layout(
            LabelSet(
                x="start",
                y="y",
                text="label",
                source=self.source,
                x_offset=2,
                y_offset="dy",
                text_font_size="10px",
                text_color=LABEL_INK,
            )
        )
        fig.visible = False
        self.figure = fig
        return pn.pane.Bokeh(fig, sizing_mode="stretch_width")

    # ----- reading files ---------------------------------------------------------------------------

    def _dropped(self, _event: param.parameterized.Event | None = None) -> None:
        """Read each newly arrived file once; show what the dropper's list holds when nothing is left to read.

        FileDropper reports each file as its last chunk lands, so two files dropped together arrive as
        two events, and a file removed from the list as a third. The page always shows the files in
        the list: new bytes are parsed in the trace pool and blanked once read, so a session keeps its
        parsed events but not the raw file, and a file waiting to be read counts against the bytes its
        dropper may hold (:data:`~app.trace.page.inputs.MAX_HELD`, kept on the server). Everything that
        changes the page runs under the document's lock (here, and in :meth:`_read_done`), so its
        messages leave in order.
        """
        files = self.drop.value
        new = {name: data for name, data in files.items() if data and name not in self._reading}
        for name, data in new.items():
            self._sent[name] = data  # blanked once read (the name stays, as in the dropper's list)
            self._reading.add(name)
            self._parsed.pop(name, None)
            self._problems.pop(name, None)
            self._refused.pop(name, None)
        self._say_reading()
        for name, data in new.items():  # all marked first: without a server the reads finish right here
            raw = data if isinstance(data, bytes) else bytes(data, "utf-8")
            if TRACE_POOL.full():
                self._queued.add(name)  # until its reader starts (_read_started)
            in_worker_thread(
                partial(read_file, raw, name),
                partial(self._read_done, name),
                pool=TRACE_POOL,
                started=partial(self._read_started, name),
            )
        if new or self._reading:
            self._say_reading()
            return  # the last file to finish shows them all
        listed = list(files)
        for name in set(self._parsed) - set(listed):
            del self._parsed[name]
        for name in set(self._problems) - set(listed):
            del self._problems[name]
        for name in set(listed) - set(self._parsed) - set(self._problems):
            self._problems[name] = f"{name}: the file is empty; nothing else changed."
        said = [self._problems[name] for name in listed if name in self._problems]
        self.message = " ".join(said + list(self._refused.values()))
        self._listed = [name for name in listed if name in self._parsed]
        self._assemble()

    def _say_reading(self) -> None:
        """While files are read: how many, or that they wait for one of the server's trace readers."""
        if self._reading:
            self.status.show(reading_text(len(self._reading), len(self._queued), TRACE_WORKERS), busy=True)

    def _read_started(self, name: str) -> None:
        """A file left the trace readers' queue: its reading begins."""
        self._queued.discard(name)
        self._say_reading()

    def _upload_refused(self, name: str, said: str) -> None:
        """The server refused a file's upload (:mod:`app.upstream.upload_limits`): the alert says so at once."""
        self._refused[name] = f"{said}; nothing else changed."
        self.alert.object = alert_html(" ".join(filter(None, [self.message, self._refused[name]])))

    def load_sample(self) -> None:
        """Show the course's sample trace (:mod:`app.trace.page.sample`) in place of any files.

        The sample is parsed once per process.
        A file dropped afterwards replaces it: the page shows what the dropper's list holds.
        """
        self._parsed = dict(sample_traces())
        self._problems, self._given = {}, {}
        self._listed = list(SAMPLE_FILES)
        self.message = ""
        self._assemble()

    def clear(self) -> None:
        """Show nothing read: the invitation, no step, no picture, no tables."""
        self._parsed, self._problems, self._given, self._listed = {}, {}, {}, []
        self._summarized, self._shown, self.message, self._refused = [], "", "", {}
        with pn.io.hold():
            self.traces = []
            self.step = None
            self.steps.param.update(options={}, value=None, disabled=True)
            self.figure.visible = self.key.visible = False
            self.table.object = self.summary.object = self.alert.object = ""
            self.open_lab.disabled = True
            self.status.show(self.prompt)

    def _read_done(self, name: str, outcome: RankTrace | str) -> None:
        """One file parsed (or refused): keep it, then read what arrived meanwhile or show the list."""
        self._reading.discard(name)
        self._queued.discard(name)
        if self.drop.value.get(name) is self._sent.pop(name, None):  # not a newer copy dropped meanwhile
            self.drop.value[name] = b""
        if isinstance(outcome, RankTrace):
            self._parsed[name] = outcome
        else:
            self._problems[name] = outcome
        self._dropped()

    # ----- ranks the files do not name ------------------------------------------------------------

    def _assemble(self) -> None:
        """The traces in the list's order, each with the rank its reader gave where the file has none.

        The world size comes from the files; where none says it, from "World size", and until that is
        given it is unknown (the fit says so), never the number of files dropped.
        """
        for name in set(self._given) - set(self._listed):
            del self._given[name]
        parsed = [self._parsed[name] for name in self._listed]
        said = max((t.world_size or 0 for t in parsed), default=0)
        self.world.visible = bool(parsed) and not said
        world = said or self.world.value or None
        unnamed = [name for name in self._listed if self._parsed[name].needs_rank] if len(parsed) > 1 else []
        choices = world or len(parsed)
        if unnamed != self._unnamed or choices != self._choices:
            self._unnamed, self._choices = unnamed, choices
            self.rank_pickers.objects = [self._rank_picker(name, choices) for name in unnamed]
        try:
            self.traces = [self._with_world(name, world) for name in self._listed]
        except TraceError as refusal:
            self.alert.object = alert_html(" ".join(filter(None, [self.message, str(refusal)])))
            return
        self._show()

    def _with_world(self, name: str, world: int | None) -> RankTrace:
        """One file's trace with the rank its reader chose and the world size given on the page, if any."""
        trace = self._parsed[name]
        if name in self._given and name in self._unnamed:
            trace = trace.with_rank(self._given[name], world)
        if world is not None and trace.world_size is None:
            trace = trace.with_world_size(world)
        return trace

    def _rank_picker(self, name: str, world: int) -> pn.widgets.Select | pn.widgets.IntInput:
        picker = rank_picker(name, world, self._given.get(name))
        picker.param.watch(lambda event, name=name: self._rank_given(name, event.new), "value")
        return picker

    def _rank_given(self, name: str, rank: int | None) -> None:
        if rank is None or rank < 0:
            self._given.pop(name, None)
        else:
            self._given[name] = rank
        self._assemble()

    def _step_chosen(self, event: param.parameterized.Event) -> None:
        if event.new is not None and event.new != self.step:
            self.step = event.new
            self._show()

    def _read(self) -> tuple[RunTimeline | None, StepTimeline]:
        if len(self.traces) == 1:
            return None, self.traces[0].timeline(self.step)
        run = combine_ranks(list(self.traces), self.step)
        last = run.last_ready_rank[-1]
        return run, next(t for t in run.timelines if t.rank == last)

    def _show(self) -> None:
        self.alert.object = alert_html(self.message)
        if not self.traces:  # nothing read yet, nor now: back to the invitation (the alert says why)
            self._shown = ""
            self.status.show(self.prompt)
            return
        numbers = self._step_numbers(self.traces)
        if self.step not in numbers:
            self.step = numbers[-1]
        self.steps.param.update(options={f"step {n}": n for n in numbers}, value=self.step, disabled=False)
        try:
            run, tl = self._read()
        except TraceError as refusal:
            said = str(refusal)
            shown = self._shown or self.prompt  # the last figures read stay
            if refusal.source in self._unnamed:
                said = (
                    f"{refusal.source}: the file has no rank information (no distributedInfo): "
                    f"choose its rank in “Rank of {refusal.source}”."
                )
                # Whichever file landed first, the figures shown must not be one file's of several.
                shown = html.escape(
                    f"Choose the rank of {refusal.source} to read these {len(self.traces)} files together."
                )
            self.alert.object = alert_html(" ".join(filter(None, [self.message, said])))
            self.status.show(shown)
            return
        shown = list(run.timelines) if run is not None else [tl]
        data = gantt_columns(shown)
        rows = sorted(set(data["row"]), reverse=True)
        self.figure.y_range.factors = rows
        self.figure.height = 60 + 45 * len(rows)
        self.figure.x_range.update(start=min(data["start"], default=0), end=max(data["end"], default=1) * 1.03)
        self.source.data = data
        self.figure.visible = self.key.visible = True
        self._shown = headline_html(shown)
        self.status.show(self._shown)
        self.table.object = bucket_table(run, tl)
        now = list(self.traces)
        if len(now) != len(self._summarized) or any(a is not b for a, b in zip(now, self._summarized, strict=False)):
            self._summarized = now  # every step, read once per set of files (not per step chosen)
            self.summary.object = summary_html(summarize(now))
        # the lab needs every bucket's size and time: a trace without them is shown, not modelled
        self.open_lab.disabled = not (tl.measured and all(b.nbytes is not None for b in tl.buckets))
        self._run, self._timeline = run, tl
        if self.lab is not None and not self.open_lab.disabled:
            with pn.io.hold():
                self._fill_lab()

    @staticmethod
    def _step_numbers(traces: list[RankTrace]) -> list[int]:
        common = set(traces[0].step_numbers())
        for trace in traces[1:]:
            common &= set(trace.step_numbers())
        return sorted(common) or traces[0].step_numbers()

    def __panel__(self) -> NamedRegion:
        return self.layout
