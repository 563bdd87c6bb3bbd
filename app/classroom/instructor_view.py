"""The instructor's view of the class (``/instructor``): who locked what, before anyone sees the answer.

One :class:`InstructorView` per session. Nothing about the class is built or sent until the token
typed into "Instructor token" matches ``INSTRUCTOR_TOKEN`` (compared in constant time; failed tries
limited per client address and for the whole process, with HTTP's, :mod:`app.classroom.signin`).
Then the region "Class results" shows, for the chosen exercise, how many have locked a prediction
and the histogram of predictions (a bar per choice for a choice exercise),
refreshed every second from the database (so every app process's students count); beside it, the
class by misconception: how many are right, how many show each of the exercise's named mistakes
(by its label) and how many gave another answer. That split names the answer, so before the reveal
it shows only when the instructor asks for it ("Show the split now"). "Reveal" shows the answer (and
lets students see the class result), "New round" opens the vote after discussion, with the rounds
side by side, and "Export CSV" downloads every vote with anonymous ids and its class (a choice
exercise's votes as the choice's position, 0 for the first).
"""

from __future__ import annotations

import asyncio
import html
import io
from dataclasses import dataclass

import numpy as np
import panel as pn
import param
from bokeh.models import BasicTicker, ColumnDataSource, FixedTicker, Range1d, Span
from bokeh.plotting import figure
from panel.viewable import Viewer

from app.classroom import is_instructor
from app.classroom.histogram import Chart, chart_of, chart_table
from app.classroom.judging import csv_class, round_split
from app.classroom.signin import WEAK_TOKEN_TEXT, client_address, too_many_text, try_token
from app.classroom.store import ClassStore, RoundVotes, StoreUnavailable
from app.course.content import Exercise
from app.course.library import lessons
from app.web.background import in_worker_thread
from labs.timed import format_number
from labs.ui.live_readout import LiveReadout
from labs.ui.palette import BLUE, ERROR_RED, PALE_BLUE, WHITE
from labs.ui.region import NamedRegion

REFRESH_MS = 1000
"""How often the instructor's view reads the class again."""

SHOWN_ROUNDS = 2
"""The rounds drawn side by side: the one before discussion and the one after."""

ROUND_COLOURS = (PALE_BLUE, BLUE)


@dataclass(frozen=True)
class ClassExercise:
    """An exercise as the instructor chooses it: its key in the database and its name."""

    key: str
    label: str
    exercise: Exercise


def class_exercises(scope: str = "") -> list[ClassExercise]:
    """Every exercise of every lesson, in course order; keys under ``scope`` (an LMS course's class, app.lti)."""
    return [
        ClassExercise(f"{scope}{lesson.slug}/{e.id}", f"{lesson.title}: {e.title}", e)
        for lesson in lessons()
        for e in lesson.exercises
    ]


def summary_text(chosen: ClassExercise, shown: list[RoundVotes]) -> str:
    """The status line: ``locked = N · round R · answer hidden`` (or the answer, once revealed)."""
    current = shown[-1]
    exercise = chosen.exercise
    answer_text = (
        f"“{exercise.choice_text(exercise.answer)}”"
        if exercise.choices
        else exercise.with_unit(format_number(exercise.answer))
    )
    answer = f"answer {answer_text} (revealed)" if current.round.revealed else "answer hidden"
    before = "".join(f" · round {r.round.number}: {len(r.predictions)} locked" for r in shown[:-1])
    return f"locked = {len(current.predictions)} · round {current.round.number} · {answer}{before}"


SHOW_SPLIT, HIDE_SPLIT = "Show the split now", "Hide the split"
"""The button that shows the split by misconception before the reveal, and hides it again."""

SPLIT_HIDDEN = (
    "<p>Which misconception each prediction shows is hidden until you reveal the round: it tells the "
    "right answer apart. Press “Show the split now” to see it on your own screen first.</p>"
)


def split_html(chosen: ClassExercise, shown: list[RoundVotes]) -> str:
    """The class by misconception, a list per round shown: ``4 of 12 (33%): the arrival rate alone``.

    Right first, then every named mistake in the exercise's order (0 included: nobody holding a
    misconception is worth knowing), then other answers.
    """
    parts = []
    for votes in shown:
        if not votes.predictions:
            parts.append(f"<p>Round {votes.round.number}: nobody has locked a prediction yet.</p>")
            continue
        items = "".join(f"<li>{html.escape(share.text())}</li>" for share in round_split(chosen.exercise, votes))
        heading = f"Round {votes.round.number}: {len(votes.predictions)} locked, by misconception"
        parts.append(f'<div class="class-split"><h3>{heading}</h3><ul>{items}</ul></div>')
    return "".join(parts)


class InstructorView(Viewer):
    """One instructor session: the sign-in, then the class's results live."""

    signed_in = param.Boolean(default=False, doc="True once the token matched; nothing of the class before.")

    def __init__(self, store: ClassStore, user: str | None = None, scope: str = "", launched: bool = False, **params):
        super().__init__(**params)
        self.store = store
        # LTI hook (app.lti.pages): ``scope`` is an LMS course's class; ``launched``, a verified instructor launch
        self.scope = scope
        self.choices = class_exercises(scope)
        self.token = pn.widgets.PasswordInput(label="Instructor token", width=280)
        self.sign_in = pn.widgets.Button(label="Sign in", color="primary", align="end")
        self.sign_in.on_click(lambda _event: self._try(self.token.value_input or self.token.value))
        self.token.param.watch(lambda event: self._try(event.new), "value")  # Enter in the field
        self.alert = pn.pane.HTML("", margin=(0, 10))
        self.gate = NamedRegion(
            label="Instructor sign-in",
            heading="Instructor sign-in",
            controls=[self.token, self.sign_in],
            object=self.alert,
            sizing_mode="stretch_width",
        )
        self.layout = pn.Column(self.gate, sizing_mode="stretch_width")
        self._shown: list[RoundVotes] = []
        self._poller = None
        self._refused = ""  # the last text refused
        if is_instructor(user) or launched:  # a listed user of Panel's login, or a verified LMS instructor launch
            self.signed_in = True
            self._build_results()

    # ----- the secret -----------------------------------------------------------------------------

    def _try(self, typed: str) -> None:
        # Sign in, Enter and leaving the field all send the same text: one try, however it came.
        if self.signed_in or not typed or typed == self._refused:
            return
        attempt = try_token(typed, client_address(pn.state.curdoc), "/instructor")
        if attempt.wait_s:
            self.alert.object = f'<p role="alert">{too_many_text(attempt.wait_s)}</p>'
            return
        if attempt.weak_token:
            self.alert.object = f'<p role="alert">{html.escape(WEAK_TOKEN_TEXT)}</p>'
            return
        if not attempt.signed_in:
            self._refused = typed
            self.alert.object = (
                f'<p role="alert" style="color:{ERROR_RED};font-weight:600">That is not the instructor token. '
                "It is the INSTRUCTOR_TOKEN the course was started with (printed once when it was made up).</p>"
            )
            return
        self.signed_in = True
        doc = pn.state.curdoc
        if doc is None or doc.session_context is None:
            self._build_results()
            return
        # Built in a callback of its own, under the document's lock like every later draw, so the
        # region reaches the page before the draws that change it. Built here, in the sign-in's own
        # event, its patch could wait in Panel's queue of writes while the first draw (a worker
        # thread's result) went out first, and the page dropped that draw ("reference ... isn't
        # known"), leaving "Reading the class…" until the class changed.
        pn.state.execute(self._build_results, schedule=True)

    # ----- the class --------------------------------------------------------------------------------

    def _build_results(self) -> None:
        self.exercise = pn.widgets.Select(
            label="Exercise",
            options={c.label: c.key for c in self.choices},
            value=self.choices[0].key,
            min_width=420,
            sizing_mode="stretch_width",  # the lesson's and exercise's titles whole, not cut at 420 px
        )
        self.exercise.param.watch(lambda _event: self._chose(), "value")
        self.reveal = pn.widgets.Button(label="Reveal", color="primary", align="end")
        self.reveal.on_click(lambda _event: self._act(self.store.reveal))
        self.new_round = pn.widgets.Button(label="New round", align="end")
        self.new_round.on_click(lambda _event: self._act(self.store.new_round))
        self.export = pn.widgets.FileDownload(
            callback=self._csv, filename="class-predictions.csv", label="Export CSV", align="end", width=140
        )
        self.status = LiveReadout("Reading the class…", busy=True)
        self.show_split = pn.widgets.Toggle(label=SHOW_SPLIT, value=False, width=200)  # a button names its state
        self.show_split.param.watch(lambda _event: self._draw_split(), "value")
        self.split = pn.pane.HTML("", width=380, margin=(0, 10))
        self.problem = pn.pane.HTML("", margin=(0, 10))
        self.source = ColumnDataSource(data={"x": [], "top": [], "width": [], "color": [], "round": []})
        self.chart = self._make_chart()
        self.table = pn.pane.HTML("", sizing_mode="stretch_width")
        results = NamedRegion(
            label="Class results",
            heading="Class results",
            controls=[self.exercise, self.reveal, self.new_round, self.export],
            object=pn.Column(
                self.problem,
                self.status.pane,
                pn.Row(self.chart, pn.Column(self.show_split, self.split), sizing_mode="stretch_width"),
                self.table,
                sizing_mode="stretch_width",
            ),
            sizing_mode="stretch_width",
        )
        self.layout.objects = [results]
        self.refresh()
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            self._poller = pn.state.add_periodic_callback(self.refresh, period=REFRESH_MS)

    def _make_chart(self) -> pn.pane.Bokeh:
        fig = figure(
            height=260,
            sizing_mode="stretch_width",
            tools="",
            toolbar_location=None,
            x_range=Range1d(0, 1),
            y_range=Range1d(0, 1),
            y_axis_label="students",
            title="Predictions: each round's count per range (the table below has the numbers)",
        )
        fig.vbar(x="x", top="top", width="width", fill_color="color", line_color=WHITE, source=self.source)
        fig.yaxis.ticker = BasicTicker(min_interval=1)  # students are counted whole
        self.range_ticker, self.choice_ticker = BasicTicker(), FixedTicker(ticks=[])
        self.answer_line = Span(location=0, dimension="height", line_color=ERROR_RED, line_width=3, visible=False)
        fig.add_layout(self.answer_line)
        self.figure = fig
        return pn.pane.Bokeh(fig, sizing_mode="stretch_width")

    @property
    def chosen(self) -> ClassExercise:
        """The exercise the select shows."""
        return next(c for c in self.choices if c.key == self.exercise.value)

    def _chose(self) -> None:
        """Another exercise: its split hidden again until asked for or revealed, then read it."""
        self._shown = []  # the rounds read were the other exercise's
        self.split.object = ""
        self.show_split.value = False
        self.status.show("Reading the class…", busy=True)
        self._clear_chart("Reading the class…")  # never the other exercise's chart under this one's name
        self.refresh()

    def refresh(self) -> None:
        """Read the chosen exercise's rounds again (in a worker thread) and redraw."""
        key = self.exercise.value
        in_worker_thread(lambda: self._read(key), lambda found: self._draw(key, found))

    def _read(self, key: str) -> list[RoundVotes] | str:
        try:
            return self.store.rounds_of(key, last=SHOWN_ROUNDS)
        except StoreUnavailable as problem:
            return str(problem)

    def _act(self, action) -> None:
        key = self.exercise.value

        def work() -> list[RoundVotes] | str:
            try:
                action(key)
            except Exception as problem:  # noqa: BLE001 (the page says it; the class goes on)
                return f"that did not reach the class database ({type(problem).__name__})"
            return self._read(key)

        in_worker_thread(work, lambda found: self._draw(key, found))

    def _draw(self, key: str, found: list[RoundVotes] | str) -> None:
        if key != self.exercise.value:
            return  # the instructor chose another exercise meanwhile
        if isinstance(found, str):
            self.problem.object = (
                f'<p role="alert">The class cannot be read now: {html.escape(found)}. Trying again.</p>'
            )
            return
        chosen = self.chosen
        shown = found[-SHOWN_ROUNDS:]
        revealed = shown[-1].round.revealed
        try:  # worked out before anything changes: the page never shows one exercise's chart under another's count
            chart = chart_of(chosen.exercise, shown, revealed)
        except Exception as problem:  # noqa: BLE001 (said on the page; the next refresh tries again)
            chart = f"The chart cannot be drawn ({type(problem).__name__}); the counts above are right."
        self.problem.object = ""
        self._shown = shown
        self.status.show(html.escape(summary_text(chosen, shown)))
        self._draw_split()
        self._label_axis(chosen.exercise.choices)
        if isinstance(chart, str):
            self._clear_chart(chart)
            return
        self._show_chart(chart, shown, revealed)

    def _show_chart(self, chart: Chart, shown: list[RoundVotes], revealed: bool) -> None:
        chosen = self.chosen
        edges = chart.edges
        width = np.diff(edges)
        data = {"x": [], "top": [], "width": [], "color": [], "round": []}
        slot = 1.0 / len(shown)
        for n, (votes, counts) in enumerate(zip(shown, chart.counts, strict=True)):
            data["x"] += list(edges[:-1] + width * slot * (n + 0.5))
            data["top"] += counts.tolist()
            data["width"] += list(width * slot * 0.9)
            data["color"] += [ROUND_COLOURS[-len(shown) + n]] * len(counts)
            data["round"] += [votes.round.number] * len(counts)
        self.source.data = data
        self.figure.x_range.update(start=float(edges[0]), end=float(edges[-1]))
        self.figure.y_range.update(start=0, end=max(data["top"]) * 1.15 + 0.5)
        self.answer_line.update(location=chosen.exercise.answer, visible=revealed)
        self.table.object = chart_table(chart, shown, chosen.exercise.unit, chosen.exercise.choices)

    def _clear_chart(self, why: str) -> None:
        """No bars, no answer line, and the reason where the table was."""
        self.source.data = {"x": [], "top": [], "width": [], "color": [], "round": []}
        self.answer_line.visible = False
        self.table.object = f"<p>{html.escape(why)}</p>"

    def _draw_split(self) -> None:
        """The class by misconception, once revealed or asked for; the same rounds as the histogram."""
        if not self._shown:
            return
        revealed = self._shown[-1].round.revealed
        self.show_split.visible = not revealed
        self.show_split.label = HIDE_SPLIT if self.show_split.value else SHOW_SPLIT
        self.split.object = split_html(self.chosen, self._shown) if revealed or self.show_split.value else SPLIT_HIDDEN

    def _label_axis(self, choices: tuple[str, ...]) -> None:
        """Name each bar by its choice for a choice exercise; numbers along the axis otherwise."""
        axis = self.figure.xaxis[0]
        if choices:
            self.choice_ticker.ticks = list(range(len(choices)))
            axis.update(ticker=self.choice_ticker, major_label_overrides={k: c for k, c in enumerate(choices)})
        else:
            axis.update(ticker=self.range_ticker, major_label_overrides={})

    async def _csv(self) -> io.StringIO:
        """Every vote as CSV, read in a worker thread: a large class's export never holds the event loop."""
        if not self.signed_in:  # never reachable without the token: the widget is not built before
            return io.StringIO("")
        text = await asyncio.get_running_loop().run_in_executor(None, self.store.export_csv, csv_class, self.scope)
        return io.StringIO(text)

    def __panel__(self) -> pn.Column:
        return self.layout
