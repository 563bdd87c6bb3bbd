"""Reset, Step and Play for a lab, with Play running entirely in the browser.

The transport owns the buttons, the readout and what ``player.js`` plays (the revealed path, the
marker at t and, for a Gantt, the bars and the "now" line). It only turns the page's commands into
model calls and shows what the lab's view hands it (:meth:`Transport.show`): it never calls the
view. On Pause, at the horizon, at Step or Reset and when a control is edited while playing, the
browser sends one command carrying its t, and the model takes that t as the truth.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import panel as pn
import param
from bokeh.model import Model
from bokeh.models import Button, Column, ColumnDataSource, CustomJS, Div, Row, Select, Span

from labs.timed import TimedModel
from labs.ui import browser_code
from labs.ui.palette import GATE_BROWN, MUTED_GREY, ORANGE
from labs.ui.playback import (
    LIVE_REGION,
    PlaybackState,
    clipped,
    escape,
    fill_template,
    float_columns,
    plain_columns,
    readout_html,
    revealed,
    sample,
)
from labs.ui.styles import CONTROL_CSS, READOUT_ROOM_CSS

# One CustomJS body: player.js calls the figure formats (formats.js) and what a frame draws (sampling.js).
PLAYER_JS = browser_code("formats.js", "sampling.js", "player.js")

SPEEDS = {"0.5×": 0.5, "1×": 1.0, "2×": 2.0, "4×": 4.0}
"""The speed choices: how many times the model's own pace (its ``play_rate``) Play runs at."""

ACTIONS = frozenset({"pause", "end", "sync", "step", "reset", "play"})

PLAYING_NOTE = "Step is off while playing; Pause first."

HINT_REGION = {"aria-live": "polite", "aria-atomic": "true"}
"""The line beside the time bar that says why Step or Play is off, or what a run still needs: a polite live
region without a role, so that the lab's one ``role="status"`` stays its readout (design.md's UI contract)."""

HINT_STYLE = {"min-height": "1.8em", "display": "grid"}
"""The line under the time bar that says why Step or Play is off, its height kept when empty:
Play, Pause and a gate never move the readout and the rest below (nothing jumps). A grid of one cell
(:data:`ONE_LINE`): the gate's line and the note shown while playing take the same line, never two."""

ONE_LINE = {"grid-area": "1 / 1"}
"""Where the gate's line and the playing note sit in the hint: the same cell. The note shows only while
the gate's line is empty (player.js), so they never overlap; before, the note came under the gate's
line and pushed the readout and the fields under the picture 21 px down for the length of each run
(the phone fuzz: a tap on a field as a run ended landed on the field's edge)."""


class Transport(param.Parameterized):
    """Reset, Step, Play/Pause and a speed choice for one model, plus the shared readout.

    The lab's view draws ``reveal`` (the path so far) and ``marker`` (the point at t) and hands the
    readout template (and the bars) to :meth:`show` after each redraw. A transport made with
    ``bars=True`` also has ``self.bars`` (the Gantt's bars clipped at t, for the view to draw) and
    ``self.now`` (a vertical line at t), played back in the browser like the curve.
    """

    model = param.ClassSelector(class_=TimedModel, doc="The model this transport drives.")
    allowed = param.Boolean(default=True, doc="Whether Step and Play may run (exercise gating).")
    reason = param.String(default="", doc="Why Step and Play are off, shown beside them.")
    advice = param.String(
        default="",
        doc="What to do before a run counts (an exercise's setup that the lab does not match), shown beside "
        "Play while Step and Play are on; empty for none.",
    )
    resets = param.Integer(default=0, bounds=(0, None), doc="How many times Reset was pressed.")
    plays = param.Integer(
        default=0, bounds=(0, None), doc="How many times Play was pressed while ``report_play`` was on."
    )
    report_play = param.Boolean(
        default=False,
        doc="Have the page say when Play starts (one message), for an exercise that judges on Play.",
    )

    def __init__(self, bars: bool = False, speed: str = "1×", **params):
        super().__init__(**params)
        trajectory = self.model.trajectory()
        self._template = ""
        self._intervals: Mapping[str, Sequence] | None = None
        self.state = PlaybackState(horizon=self.model.horizon, trajectory=float_columns(trajectory))
        self.reveal = ColumnDataSource(data=revealed(trajectory, 0.0))
        self.marker = ColumnDataSource(data={k: [v] for k, v in sample(trajectory, 0.0).items()})
        self.bars: ColumnDataSource | None = None
        self.now: Span | None = None
        layers: dict[str, Model] = {}
        if bars:
            self.bars = ColumnDataSource(data={"start": [], "end": [], "label": [], "edge": []})
            self.now = Span(location=0.0, dimension="height", line_color=ORANGE, line_width=2)
            layers = {"bars": self.bars, "now": self.now}
        self.room = ""  # the longest readout the lab shows: its height is kept (show())
        self.status = Div(
            text="", sizing_mode="stretch_width", html_attributes=dict(LIVE_REGION), stylesheets=[READOUT_ROOM_CSS]
        )
        # Why Step and Play are off, or what to do before a run counts: a polite live region that stays
        # in the page (an emptied one, not a hidden one), so each new line is announced.
        self.gate = Div(
            text="",
            sizing_mode="stretch_width",
            margin=(0, 10, 0, 10),
            html_attributes=dict(HINT_REGION),
            styles=dict(ONE_LINE),
        )
        # Shown by player.js while playing (like PhET's time controls, Step works only when paused).
        self.playing_note = Div(
            text=f'<p role="note" style="margin:2px 0;color:{MUTED_GREY}">{PLAYING_NOTE}</p>',
            visible=False,
            sizing_mode="stretch_width",
            margin=(0, 10, 0, 10),
            styles=dict(ONE_LINE),
        )
        look = {"stylesheets": [CONTROL_CSS]}
        self.play_button = Button(label="Play", button_type="primary", width=92, **look)
        self.step_button = Button(label="Step", button_type="light", width=80, **look)
        self.end_button = Button(label="To the end", button_type="light", width=112, **look)
        self.speed = Select(title="Speed", value=speed, options=list(SPEEDS), width=80, **look)
        self.reset_button = Button(label="Reset", button_type="light", width=80, **look)
        # One browser callback for every control (each CustomJS is a model and carries player.js):
        # it tells a click on Play, Step or Reset from a change the server made to the state.
        # (A js_on_change lives on the document's own model and goes with it; Panel's jscallback
        # registry would keep every session's document alive.)
        player = CustomJS(
            args=dict(
                state=self.state,
                play=self.play_button,
                step_button=self.step_button,
                end_button=self.end_button,
                reset_button=self.reset_button,
                speed_select=self.speed,
                reveal=self.reveal,
                marker=self.marker,
                status=self.status,
                playing_note=self.playing_note,
                gate=self.gate,
                **layers,
            ),
            code=PLAYER_JS,
        )
        for button in (self.play_button, self.step_button, self.end_button, self.reset_button):
            button.js_on_click(player)
        # epoch: stop any playback; ask_time: a control was edited, so a playing page reports its t.
        self.state.js_on_change("epoch", player)
        self.state.js_on_change("ask_time", player)
        self.gate.js_on_change("text", player)  # a gate's line while playing takes the note's place
        # Which controls a model has is known only from the model, so this watch is made here.
        self.model.param.watch(self._control_edited, list(self.model.controls))
        self.state.on_change("command", self._on_command)

    def picture(self, *figures: Model, after: tuple[Model, ...] = ()) -> pn.pane.Bokeh:
        """The lab's picture with its time bar right under it, then why it is off, then the readout.

        ``figures`` first, then Play, Step, To the end, the speed and Reset (PhET's time controls
        under its play area), then the line saying why Step or Play is off (its height kept when
        empty), then the readout. Every Panel object costs each session's page build more than a
        plain Bokeh model, so these share one pane.

        Parameters
        ----------
        *figures : bokeh.model.Model
            The plot(s), above the time bar.
        after : tuple of bokeh.model.Model
            What goes under the readout with them (a plot's key).

        Returns
        -------
        panel.pane.Bokeh
            The pane, stretching to the lab's width.
        """
        buttons = Row(
            children=[self.play_button, self.step_button, self.end_button, self.speed, self.reset_button],
            styles={"flex-wrap": "wrap", "align-items": "flex-end", "column-gap": "6px"},
            sizing_mode="stretch_width",
        )
        hint = Column(children=[self.gate, self.playing_note], styles=HINT_STYLE, sizing_mode="stretch_width")
        column = Column(children=[*figures, buttons, hint, self.status, *after], sizing_mode="stretch_width")
        return pn.pane.Bokeh(column, sizing_mode="stretch_width")

    def gate_html(self) -> str:
        """Why Step and Play are off, or what a run still needs (``advice``), as HTML; empty for neither."""
        line = self.reason if not self.allowed else self.advice
        if not line:
            return ""
        return f'<p class="gate" style="margin:2px 0;color:{GATE_BROWN};font-weight:600">{escape(line)}</p>'

    @param.depends("report_play", watch=True)
    def _report_play(self) -> None:
        with pn.io.hold(self.state.document):
            self.state.report_play = self.report_play

    @param.depends("advice", watch=True)
    def _advise(self) -> None:
        with pn.io.hold(self.state.document):
            self.gate.text = self.gate_html()

    @param.depends("allowed", "reason", watch=True)
    def _gate(self) -> None:
        # Panel runs widget callbacks without the document lock: hold() makes direct changes to
        # Bokeh models safe there and sends them as one message.
        with pn.io.hold(self.state.document):
            self.state.allowed = self.allowed  # first: a stop caused by the epoch below reads it
            self.play_button.disabled = not self.allowed
            self.step_button.disabled = not self.allowed
            self.end_button.disabled = not self.allowed
            self.gate.text = self.gate_html()
            if not self.allowed:
                # Stop any playback in the browser, without a report, and bring the page back to the
                # model's t in the same message (after the epoch: the stop writes the page's own t).
                self.state.epoch += 1
                self._send()

    def _control_edited(self, *_events: param.parameterized.Event) -> None:
        with pn.io.hold(self.state.document):
            self.state.ask_time += 1

    def _on_command(self, attr: str, old: dict, new: dict) -> None:
        if not isinstance(new, dict) or new.get("action") not in ACTIONS:
            return
        action = new["action"]
        if action == "play":  # the page says so only while report_play is on; nothing to redraw
            self.plays += 1
            return
        before = self.model.param.values()
        with pn.io.hold(self.state.document):
            reported = new.get("t")
            if action == "end" and isinstance(reported, (int, float)) and math.isfinite(reported):
                # The page's end may be a horizon an edit has moved since; worked out before the time
                # is taken, which may end the exercise's run step and lift its pause.
                reported = self.model.run_end(reported)
            if reported is not None:
                self.model.take_time(reported)
            if action == "step" and self.allowed:
                self.model.step()
            elif action == "reset":
                self.model.reset()
                self.resets += 1
            if self.model.param.values() == before:
                # A change to the model redraws the lab, and the lab shows its readout here; with
                # none, the page still has to be brought back from what it drew unsynced while playing.
                self.resend()

    def reset(self) -> None:
        """Reset the model as the page's Reset button does, from the server (an exercise's setup).

        Any playback in the page stops first, without a report (as a gate stops it), and the
        callbacks watching ``resets`` run as after a press.
        """
        before = self.model.param.values()
        with pn.io.hold(self.state.document):
            self.state.epoch += 1
            self.model.reset()
            self.resets += 1
            if self.model.param.values() == before:
                self.resend()

    def resend(self) -> None:
        """Send the page everything Play may have changed there, though the model has not changed."""
        self._send()

    def show(self, template: str, intervals: Mapping[str, Sequence] | None = None, room: str = "") -> None:
        """Show the model as it is now, with this readout (and these bars), in one message.

        Parameters
        ----------
        template : str
            The readout's escaped text with ``{t}`` and ``{column[:digits]}`` placeholders, filled
            here at t and by ``player.js`` while playing.
        intervals : mapping of str to sequence, optional
            The Gantt's bars (``start``, ``end``, ``label`` and any other columns), for a transport
            made with ``bars=True``.
        room : str
            The longest readout the lab shows, as plain text: the readout keeps its height, so that
            nothing below it moves when the text grows at the end of a run (``readout_html``).
        """
        self._template, self._intervals, self.room = template, intervals, room
        self._send()

    def _send(self) -> None:
        """Send the page the model as it is now, in the caller's one message.

        While playing, the page rewrites the readout, the path, the marker, the bars, the "now"
        line and its copy of t without telling the server (``setv(..., {sync: false})``), and Bokeh
        sends a property only when the server's value changes. The data sources are sent on every
        assignment; the readout, t and the "now" line are sent here whether they changed or not:
        otherwise a redraw giving the value the server last set (at t = 0 the backlog is q0 whatever
        the rates) left the page showing its played frame. This runs only in answer to a command or
        an edit, never per frame, and adds a few values to a message the redraw sends anyway.
        """
        trajectory = self.model.trajectory()
        t = self.model.t
        with pn.io.hold(self.state.document):
            self.reveal.data = revealed(trajectory, t)
            if self._intervals is not None and self.bars is not None and self.now is not None:
                self.state.intervals = plain_columns(self._intervals)
                self.bars.data = clipped(self._intervals, t)
                self.now.location = t
            self.marker.data = {k: [v] for k, v in sample(trajectory, t).items()}
            pause_at = self.model.pause_at
            self.state.update(
                trajectory=float_columns(trajectory),
                t=t,
                horizon=self.model.horizon,
                rate=self.model.play_rate,
                stop_at=1e300 if pause_at is None else pause_at,
                template=readout_html(self._template, live=False, room=self.room),
            )
            self.status.text = readout_html(
                fill_template(self._template, sample(trajectory, t)), live=False, room=self.room
            )
            played = [(self.status, "text"), (self.state, "t")]
            if self.now is not None:
                played.append((self.now, "location"))
            for model, name in played:
                value = getattr(model, name)
                model.trigger(name, value, value)  # a change event with the value, changed here or not
