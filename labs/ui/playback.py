"""Reset, Step and Play for a lab, with Play running entirely in the browser.

design.md measured a server-driven animation at about 2 ms of server CPU per frame, so during Play
no message passes between page and server. The model hands the browser the breakpoints of its
piecewise-linear trajectory; ``player.js`` advances t, moves the marker, reveals the path and
rewrites the readout with ``setv(..., {sync: false})``. On Pause, at the horizon, at Step or Reset
and when a control is edited while playing, the browser sends one command carrying its t, and the
model takes that t as the truth.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import panel as pn
import param
from bokeh.core.properties import Any, Bool, Dict, Float, Int, String
from bokeh.model import DataModel, Model
from bokeh.models import Button, Column, ColumnDataSource, CustomJS, Div, Row, Select, Span

from labs.numbers import fixed
from labs.timed import TimedModel
from labs.ui import browser_code
from labs.ui.palette import GATE_BROWN, MUTED_GREY, ORANGE
from labs.ui.styles import CONTROL_CSS, READOUT_STYLE

# One CustomJS body: player.js calls the figure formats (formats.js) and what a frame draws (sampling.js).
PLAYER_JS = browser_code("formats.js", "sampling.js", "player.js")

SPEEDS = {"0.5×": 0.5, "1×": 1.0, "2×": 2.0, "4×": 4.0}

ACTIONS = frozenset({"pause", "end", "sync", "step", "reset"})

PLAYING_NOTE = "Step is off while playing: press Pause, then Step."

_PLACEHOLDER = re.compile(r"\{(\w+)(?::(\d+))?\}")


class PlaybackState(DataModel):
    """What the page and the server share about playback; the server owns all but ``command``."""

    t = Float(default=0.0, help="The model's elapsed time as the server last set it.")
    horizon = Float(default=10.0, help="Where playback ends.")
    stop_at = Float(default=1e300, help="An earlier stop set by a guided exercise (pause_at).")
    template = String(default="", help="The readout's HTML while playing, with {t} and {column[:digits]} placeholders.")
    epoch = Int(default=0, help="Bumped by the server to stop any playback in the browser.")
    allowed = Bool(default=True, help="Whether Step and Play may run (gating); Step returns to this on Pause.")
    ask_time = Int(default=0, help="Bumped by the server after a control edit: a playing page reports t.")
    command = Dict(String, Any, help="Browser to server: {action, t, seq}, one per user action.")
    trajectory = Dict(String, Any, help="The model's trajectory breakpoints by column, with 't'; player.js plays them.")
    intervals = Dict(String, Any, help="Interval bars (start, end, row, label columns) that player.js clips at t.")


def fill_template(template: str, values: Mapping[str, float]) -> str:
    """Fill ``{name}`` / ``{name:digits}`` placeholders exactly as ``player.js`` does.

    Parameters
    ----------
    template : str
        Readout text with placeholders; two decimals unless ``:digits`` says otherwise, by
        :func:`labs.numbers.fixed` (no negative zero, ``m × 10^e`` from 10^12 on).
    values : mapping of str to float
        The numbers to put in.

    Returns
    -------
    str
        The readout text; unknown placeholders are left as they are.
    """

    def number(match: re.Match[str]) -> str:
        key, digits = match.group(1), match.group(2)
        if key not in values:
            return match.group(0)
        return fixed(values[key], 2 if digits is None else int(digits))

    return _PLACEHOLDER.sub(number, template)


def readout_html(text: str, busy: bool = False, live: bool = True) -> str:
    """Wrap readout text in the readout's element: by default the live status element (``role="status"``).

    Parameters
    ----------
    text : str
        Already-escaped readout text.
    busy : bool
        True while the figures are changing, so that screen readers hold announcements until they stop.
    live : bool
        False for a lab's readout: there the Bokeh ``Div``'s own element is the live region
        (:data:`LIVE_REGION`), because Bokeh re-renders the ``Div``'s content, this element
        included, on every change, and a live region must stay in the page to be announced.

    Returns
    -------
    str
        The HTML.
    """
    if not live:
        return f'<div class="readout" style="{READOUT_STYLE}">{text}</div>'
    return (
        f'<div role="status" aria-live="polite" aria-atomic="true" aria-busy="{"true" if busy else "false"}" '
        f'class="readout" style="{READOUT_STYLE}">{text}</div>'
    )


LIVE_REGION = {"role": "status", "aria-live": "polite", "aria-atomic": "true", "aria-busy": "false"}
"""The lab readout's live region, on the ``Div``'s own element, which Bokeh keeps across re-renders
(``html_attributes``); ``player.js`` sets its ``aria-busy`` while playing."""


def sample(trajectory: Mapping[str, np.ndarray], t: float) -> dict[str, float]:
    """Interpolate every column of a trajectory at time ``t``.

    Parameters
    ----------
    trajectory : mapping of str to numpy.ndarray
        Breakpoints with a ``"t"`` column.
    t : float
        Model time in seconds.

    Returns
    -------
    dict of str to float
        ``"t"`` and each column's value at t.
    """
    values = {"t": float(t)}
    for key, column in trajectory.items():
        if key != "t":
            values[key] = float(np.interp(t, trajectory["t"], column))
    return values


def revealed(trajectory: Mapping[str, np.ndarray], t: float) -> dict[str, list[float]]:
    """The part of a trajectory from 0 up to ``t``, ending exactly at t.

    Parameters
    ----------
    trajectory : mapping of str to numpy.ndarray
        Breakpoints with a ``"t"`` column.
    t : float
        Model time in seconds.

    Returns
    -------
    dict of str to list of float
        Breakpoints before t plus the interpolated point at t.
    """
    before = trajectory["t"] < t
    end = sample(trajectory, t)
    return {key: [*map(float, column[before]), end[key]] for key, column in trajectory.items()}


def clipped(intervals: Mapping[str, Sequence], t: float) -> dict[str, list]:
    """Interval bars as drawn at time ``t``, exactly as ``player.js`` draws them.

    A bar that has not started by ``t`` has zero width and no label; a bar under way ends at ``t``;
    a finished bar is whole. Extra columns (rows, labels, colours) are passed through.

    Parameters
    ----------
    intervals : mapping of str to sequence
        Columns ``start``, ``end`` and ``label`` (and any others), one entry per bar.
    t : float
        Model time.

    Returns
    -------
    dict of str to list
        The same columns with ``end`` clipped to ``t`` and ``label`` blank until the bar starts.
    """
    starts = [float(x) for x in intervals["start"]]
    ends = [float(x) for x in intervals["end"]]
    data = {key: list(column) for key, column in intervals.items()}
    data["end"] = [max(start, min(end, t)) for start, end in zip(starts, ends, strict=True)]
    data["label"] = [label if t >= start else "" for label, start in zip(intervals["label"], starts, strict=True)]
    return data


class Transport(param.Parameterized):
    """Reset, Step, Play/Pause and a speed choice for one model, plus the shared readout.

    The lab's view draws ``reveal`` (the path so far) and ``marker`` (the point at t) and supplies
    the readout template; :meth:`refresh` pushes the model's state to the page. A view that passes
    ``bars`` (a function returning Gantt bars: ``start``, ``end``, ``label`` columns and any others)
    also gets ``self.bars`` (the bars clipped at t, for the view to draw) and ``self.now`` (a
    vertical line at t), played back in the browser like the curve.
    """

    model = param.ClassSelector(class_=TimedModel, doc="The model this transport drives.")
    allowed = param.Boolean(default=True, doc="Whether Step and Play may run (exercise gating).")
    reason = param.String(default="", doc="Why Step and Play are off, shown beside them.")
    resets = param.Integer(default=0, bounds=(0, None), doc="How many times Reset was pressed.")

    def __init__(
        self,
        template: Callable[[], str],
        redraw: Callable[[], None] | None = None,
        bars: Callable[[], Mapping[str, Sequence]] | None = None,
        **params,
    ):
        super().__init__(**params)
        self._template = template
        self._bar_columns = bars
        self._redraw = redraw or self.refresh
        trajectory = self.model.trajectory()
        self.state = PlaybackState(horizon=self.model.horizon, trajectory=_columns(trajectory))
        self.reveal = ColumnDataSource(data=revealed(trajectory, 0.0))
        self.marker = ColumnDataSource(data={k: [v] for k, v in sample(trajectory, 0.0).items()})
        self.bars: ColumnDataSource | None = None
        self.now: Span | None = None
        layers: dict[str, Model] = {}
        if bars is not None:
            intervals = bars()
            self.state.intervals = _plain(intervals)
            self.bars = ColumnDataSource(data=clipped(intervals, 0.0))
            self.now = Span(location=0.0, dimension="height", line_color=ORANGE, line_width=2)
            layers = {"bars": self.bars, "now": self.now}
        self.status = Div(text="", sizing_mode="stretch_width", html_attributes=dict(LIVE_REGION))
        self.gate = Div(text="", visible=False, sizing_mode="stretch_width", margin=(0, 10, 0, 10))
        # Shown by player.js while playing (like PhET's time controls, Step works only when paused).
        self.playing_note = Div(
            text=f'<p role="note" style="margin:2px 0;color:{MUTED_GREY}">{PLAYING_NOTE}</p>',
            visible=False,
            sizing_mode="stretch_width",
            margin=(0, 10, 0, 10),
        )
        look = {"width": 80, "stylesheets": [CONTROL_CSS]}
        self.reset_button = Button(label="Reset", button_type="light", **look)
        self.step_button = Button(label="Step", button_type="light", **look)
        self.play_button = Button(label="Play", button_type="primary", **look)
        self.speed = Select(title="Speed", value="1×", options=list(SPEEDS), **look)
        # One browser callback for every control (each CustomJS is a model and carries player.js):
        # it tells a click on Play, Step or Reset from a change the server made to the state.
        # (A js_on_change lives on the document's own model and goes with it; Panel's jscallback
        # registry would keep every session's document alive.)
        player = CustomJS(
            args=dict(
                state=self.state,
                play=self.play_button,
                step_button=self.step_button,
                reset_button=self.reset_button,
                speed_select=self.speed,
                reveal=self.reveal,
                marker=self.marker,
                status=self.status,
                playing_note=self.playing_note,
                **layers,
            ),
            code=PLAYER_JS,
        )
        for button in (self.play_button, self.step_button, self.reset_button):
            button.js_on_click(player)
        # epoch: stop any playback; ask_time: a control was edited, so a playing page reports its t.
        self.state.js_on_change("epoch", player)
        self.state.js_on_change("ask_time", player)
        self.model.param.watch(self._control_edited, list(self.model.controls))
        self.state.on_change("command", self._on_command)
        self.param.watch(self._gate, ["allowed", "reason"])

    def view(self, *below: Model) -> pn.pane.Bokeh:
        """The transport and what the lab draws below it, as one Bokeh column in one Panel pane.

        Reset, Step, Play and the speed choice, then why Step and Play are off (when they are),
        then the readout, then ``below`` (the lab's plots and notes). Every Panel object costs
        each session's page build more than a plain Bokeh model, so the lab's Bokeh parts share
        one pane.

        Parameters
        ----------
        *below : bokeh.model.Model
            Bokeh layout objects (figures, Divs) to show under the readout.

        Returns
        -------
        panel.pane.Bokeh
            The pane, stretching to the lab's width.
        """
        buttons = Row(
            children=[self.reset_button, self.step_button, self.play_button, self.speed],
            styles={"flex-wrap": "wrap", "align-items": "flex-end"},
            sizing_mode="stretch_width",
        )
        column = Column(
            children=[buttons, self.gate, self.playing_note, self.status, *below], sizing_mode="stretch_width"
        )
        return pn.pane.Bokeh(column, sizing_mode="stretch_width")

    def gate_html(self) -> str:
        """Why Step and Play are off, as HTML; empty while they are allowed."""
        if self.allowed or not self.reason:
            return ""
        return f'<p role="note" style="margin:2px 0;color:{GATE_BROWN};font-weight:600">{escape(self.reason)}</p>'

    def _gate(self, *_events: param.parameterized.Event) -> None:
        # Panel runs widget callbacks without the document lock: hold() makes direct changes to
        # Bokeh models safe there and sends them as one message.
        with pn.io.hold(self.state.document):
            self.state.allowed = self.allowed  # first: a stop caused by the epoch below reads it
            self.play_button.disabled = not self.allowed
            self.step_button.disabled = not self.allowed
            self.gate.update(text=self.gate_html(), visible=bool(self.gate_html()))
            if not self.allowed:
                self.state.epoch += 1  # stop any playback in the browser, without a report

    def _control_edited(self, *_events: param.parameterized.Event) -> None:
        with pn.io.hold(self.state.document):
            self.state.ask_time += 1

    def _on_command(self, attr: str, old: dict, new: dict) -> None:
        if not isinstance(new, dict) or new.get("action") not in ACTIONS:
            return
        action = new["action"]
        before = self.model.param.values()
        with pn.io.hold(self.state.document):
            if new.get("t") is not None:
                self.model.take_time(new["t"])
            if action == "step" and self.allowed:
                self.model.step()
            elif action == "reset":
                self.model.reset()
                self.resets += 1
            if self.model.param.values() == before:
                # The model's watchers redraw on a change; with none, the page still has to be
                # brought back from what the browser drew unsynced while playing.
                self.resend()

    def resend(self) -> None:
        """Redraw, and send the page everything Play may have changed there, changed here or not.

        While playing, the page rewrites the readout, the drawn path, the marker, the bars and its
        copy of t without telling the server; Bokeh then sends a value only if the server's copy
        changes. After Play from t = 0 and a Reset, nothing does, so each of these is set to a
        placeholder first: within the document hold the two assignments combine into one event
        carrying the real value (one message, as for any redraw).
        """
        with pn.io.hold(self.state.document):
            self.status.text = ""
            self.reveal.data = {key: [] for key in self.reveal.data}
            self.marker.data = {key: [] for key in self.marker.data}
            if self.bars is not None and self.now is not None:
                self.bars.data = {key: [] for key in self.bars.data}
                self.now.location = -1.0
            self.state.t = -1.0
            self._redraw()

    def refresh(self) -> None:
        """Send the model's current state to the page in one message."""
        trajectory = self.model.trajectory()
        t = self.model.t
        template = self._template()
        with pn.io.hold(self.state.document):
            self.reveal.data = revealed(trajectory, t)
            if self._bar_columns is not None and self.bars is not None and self.now is not None:
                intervals = self._bar_columns()
                self.state.intervals = _plain(intervals)
                self.bars.data = clipped(intervals, t)
                self.now.location = t
            self.marker.data = {k: [v] for k, v in sample(trajectory, t).items()}
            pause_at = self.model.pause_at
            self.state.update(
                trajectory=_columns(trajectory),
                t=t,
                horizon=self.model.horizon,
                stop_at=1e300 if pause_at is None else pause_at,
                template=readout_html(template, live=False),
            )
            self.status.text = readout_html(fill_template(template, sample(trajectory, t)), live=False)


def _plain(columns: Mapping[str, Sequence]) -> dict[str, list]:
    """Columns as plain lists (floats stay floats, labels stay text), as the page receives them."""
    return {key: [v.item() if isinstance(v, np.generic) else v for v in column] for key, column in columns.items()}


def _columns(trajectory: Mapping[str, np.ndarray]) -> dict[str, list[float]]:
    """The trajectory as plain lists of floats, as the page receives it."""
    return {key: list(map(float, column)) for key, column in trajectory.items()}


def escape(text: str) -> str:
    """Escape text for the readout template (placeholders survive: braces are not escaped).

    Parameters
    ----------
    text : str
        Plain text.

    Returns
    -------
    str
        HTML-safe text.
    """
    return html.escape(text, quote=False)
