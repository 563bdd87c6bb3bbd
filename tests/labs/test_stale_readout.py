"""The readout after Play follows the model: what the page shows, not only the server's copy (headless).

While playing, ``player.js`` rewrites the readout, the marker and its copy of t on the page with
``setv(..., {sync: false})``: the server's copies keep the values it last set. Bokeh sends a property
only when the server's value changes, so a later redraw that happens to produce the value the server
last set (at t = 0 the backlog is q0 whatever the rates, and an exercise hides the net rate) sent
nothing, and the page kept the frame it had played. bench/fuzz.py --seed 20261203 found two ways:
Play, then Try again (which stops playback without a report), then an edit; and Play, then a Reset
that restores changed controls.

:class:`PlayingPage` is the page's side: it takes what the server sends and draws Play's frames on
its own copies, sending nothing, as ``player.js`` does (``labs.ui.playback`` holds the Python twins
of its drawing). tests/browser/test_stale_readout_browser.py does the same sequences in Chromium.
"""

from __future__ import annotations

import re
from functools import partial

import numpy as np
import pytest
from bokeh.document import Document
from bokeh.document.events import ColumnDataChangedEvent, ModelChangedEvent

from app.course.catalog import lab_kinds
from app.course.content import load_lessons
from app.course.exercise import ExerciseRunner, ExerciseSession
from app.course.progress import ProgressStore
from labs.queue.view import QueueLab
from labs.registry import registrations
from labs.ui.lab_view import LabView
from labs.ui.playback import fill_template, sample
from tests.fuzzing import figures, queue_backlog
from tests.headless import field, send

GROWTH = next(e for lesson in load_lessons() if lesson.slug == "overlap" for e in lesson.exercises if e.id == "growth")


def plain(value: object) -> object:
    """A copy of a property's value as the page would hold it (columns as plain lists)."""
    return {k: list(v) for k, v in value.items()} if isinstance(value, dict) else value


class PlayingPage:
    """A lab's transport as the page holds it: the server's changes as they arrive, Play's frames its own.

    The page's copies start as the server's (the document serialized when the page opened). A
    property reaches the page when Bokeh would send it: when the server's side triggers a change
    (``on_change`` fires exactly when Bokeh makes a change event, which a served session sends).
    Only properties Bokeh compares by value are kept: in a served document a data source is sent
    on every assignment (:func:`test_a_redraw_sends_what_play_draws_in_one_message`).

    :meth:`play_to` draws the frame at t as ``player.js`` does, on the page's copies only; a bump
    of ``state.epoch`` stops playback there without a report; ``ask_time`` makes a playing page
    report its t once the server's message has landed.
    """

    def __init__(self, lab: LabView):
        self.lab, self.transport = lab, lab.transport
        tr = self.transport
        watched = {
            tr.status: ("text",),
            tr.state: ("t", "template", "trajectory", "epoch", "ask_time"),
        }
        if tr.now is not None:
            watched[tr.now] = ("location",)
        self.copy: dict[tuple[int, str], object] = {}
        for model, attrs in watched.items():
            for attr in attrs:
                self.copy[(id(model), attr)] = plain(getattr(model, attr))
                model.on_change(attr, partial(self._arrived, model))
        self.playing, self.at = False, 0.0
        self._outbox: list[tuple[str, float]] = []

    # -- the wire ----------------------------------------------------------------------------
    def _deliver(self) -> None:
        """Send the server what the page has to report (a playing page's t after an edit)."""
        while self._outbox:
            action, t = self._outbox.pop(0)
            send(self.lab, action, t)

    def _arrived(self, model, attr: str, _old, new) -> None:
        tr = self.transport
        self.copy[(id(model), attr)] = plain(new)
        if model is tr.state and attr == "epoch" and self.playing:
            self.playing = False  # stop(null): the page keeps its frame and its t, and says nothing
            self.copy[(id(tr.state), "t")] = self.at
        if model is tr.state and attr == "ask_time" and self.playing:
            self._outbox.append(("sync", self.at))
        if self.playing:  # the next animation frame draws over whatever arrived
            self._frame(self.at)

    # -- what player.js does -------------------------------------------------------------------
    def _frame(self, t: float) -> None:
        tr = self.transport
        trajectory = {k: np.asarray(v, dtype=float) for k, v in self.copy[(id(tr.state), "trajectory")].items()}
        values = sample(trajectory, t)
        self.copy[(id(tr.status), "text")] = fill_template(self.copy[(id(tr.state), "template")], values)
        if tr.now is not None:  # (the path, the marker and the bars, drawn as well, are not kept here)
            self.copy[(id(tr.now), "location")] = t

    def play_to(self, t: float) -> None:
        """Play (if not playing yet) and let the page draw up to the frame at ``t``; nothing is sent."""
        self._deliver()
        assert self.transport.allowed, "Play is off"
        self.playing, self.at = True, t
        self._frame(t)

    def pause(self) -> None:
        """Pause: the page reports its t once."""
        self.playing = False
        self.copy[(id(self.transport.state), "t")] = self.at
        send(self.lab, "pause", self.at)
        self._deliver()

    def click_reset(self) -> None:
        """Reset: the page stops playing (no report) and asks for a reset."""
        self._deliver()
        if self.playing:
            self.playing = False
            self.copy[(id(self.transport.state), "t")] = self.at
        send(self.lab, "reset")
        self._deliver()

    # -- what the page shows -------------------------------------------------------------------
    @property
    def readout(self) -> str:
        """The readout's text as the page shows it."""
        self._deliver()
        return re.sub(r"<[^>]+>", " ", str(self.copy[(id(self.transport.status), "text")]))

    @property
    def stopped(self) -> bool:
        """Whether the page is not playing (any more)."""
        self._deliver()
        return not self.playing

    @property
    def t(self) -> float:
        """The page's copy of t: where its next Play starts."""
        self._deliver()
        return float(self.copy[(id(self.transport.state), "t")])

    @property
    def now(self) -> float | None:
        """Where the page draws the Gantt's "now" line (None for a lab without one)."""
        self._deliver()
        return self.copy.get((id(self.transport.now), "location"))


def server_readout(lab: LabView) -> str:
    return re.sub(r"<[^>]+>", " ", lab.transport.status.text)


def assert_follows_the_queue(page: PlayingPage, lab: QueueLab) -> None:
    """The page shows what the server shows, and its backlog is the model's at the t it shows."""
    shown = figures(page.readout)
    assert page.readout == server_readout(lab), (page.readout, server_readout(lab))
    expected = queue_backlog(lab.model, shown["t"])
    assert shown["backlog"] == pytest.approx(expected, abs=0.006), (page.readout, expected)


def growth_on_a_lesson_page() -> tuple[QueueLab, ExerciseRunner, PlayingPage]:
    """The lesson page /lesson?id=overlap&exercise=growth: the exercise started, its lab opened."""
    lab = QueueLab()
    runner = ExerciseRunner(
        lab=lab, session=ExerciseSession(), progress=ProgressStore(), exercise=GROWTH, lesson_slug="overlap"
    )
    runner.start()
    return lab, runner, PlayingPage(lab)


def test_try_again_while_playing_then_an_edit_shows_the_edit():
    """The fuzz's sequence (seed 20261203): Play, a refused λ, Try again, Step while off, λ = 1.64, μ = 1."""
    lab, runner, page = growth_on_a_lesson_page()
    runner.card.receive({"action": "lock", "text": "1"})
    page.play_to(0.44)
    assert "t = 0.44 s" in page.readout and "backlog = 3.56" in page.readout
    field(lab, "arrival_rate").input.value = "99999999999999999999"
    assert "kept 1" in field(lab, "arrival_rate").error
    runner.card.receive({"action": "start"})  # Try again: Play and Step off, playback stopped without a report
    assert not lab.transport.allowed and page.stopped
    # Step while off: the button is disabled, so the page sends nothing
    field(lab, "arrival_rate").input.value = "1.64"
    assert lab.model.arrival_rate == 1.64
    assert_follows_the_queue(page, lab)
    field(lab, "service_rate").input.value = "1"
    assert_follows_the_queue(page, lab)
    assert page.t == lab.model.t


def test_reset_after_play_restores_the_readout_in_an_exercise():
    """The other seed's kind: Play, then a Reset that puts changed controls back (concealed readout)."""
    lab, runner, page = growth_on_a_lesson_page()
    runner.card.receive({"action": "lock", "text": "1"})
    field(lab, "service_rate").input.value = "3"
    page.play_to(0.17)
    assert "backlog = 3.66" in page.readout
    page.click_reset()
    assert lab.model.service_rate == 2 and lab.model.t == 0
    assert_follows_the_queue(page, lab)
    assert page.t == 0


def test_reset_after_play_starts_the_next_play_from_zero():
    """Not concealed, the readout differs and is sent; the page's t (where its next Play starts) is not."""
    lab = QueueLab()
    page = PlayingPage(lab)
    field(lab, "service_rate").input.value = "3"
    page.play_to(2.25)
    page.click_reset()
    assert_follows_the_queue(page, lab)
    assert page.t == 0


@pytest.mark.parametrize("kind", sorted(lab.slug for lab in registrations()))  # the labs with a player
def test_every_redraw_after_play_brings_the_page_back_to_the_model(kind):
    """In every lab: Play, Play turned off (no report), then a change the readout does not show.

    An exercise's stop time changes the model but not the readout at t = 0: the server's readout, t
    and "now" line are what it last set, the page's are the played frame's. The redraw must send
    them anyway.
    """
    lab = lab_kinds()[kind].lesson_view()
    page = PlayingPage(lab)
    page.play_to(lab.model.horizon / 3)
    lab.gate("Wait")  # an exercise turns Play off: playback stops on the page without a report
    assert page.stopped and page.readout == server_readout(lab)  # and the page is the model's again
    assert page.t == lab.model.t == 0
    page.copy[(id(lab.transport.status), "text")] = "the played frame"  # as if the gate had sent nothing
    lab.model.pause_at = lab.model.horizon / 2  # an exercise's run step: the lab redraws
    assert page.readout == server_readout(lab)
    assert page.t == lab.model.t == 0
    if lab.transport.now is not None:
        assert page.now == lab.transport.now.location == 0


def test_a_redraw_sends_what_play_draws_in_one_message():
    """In a document: a redraw that changes none of them still sends the readout, t, the path and the
    marker, with the rest of the redraw (held together, as ``pn.io.hold`` holds them for one message)."""
    lab = QueueLab()
    tr = lab.transport
    document = Document()
    document.add_root(lab.__panel__().get_root(document))
    document.hold("combine")
    lab.model.pause_at = 5.0  # at t = 0 the readout, t, the path and the marker stay as they were
    sent: list = []
    document.on_change(sent.append)
    document.unhold()
    changed = {(event.model, event.attr) for event in sent if isinstance(event, ModelChangedEvent)}
    assert {(tr.status, "text"), (tr.state, "t"), (tr.state, "stop_at")} <= changed
    data = {event.model for event in sent if isinstance(event, ColumnDataChangedEvent)}
    assert {tr.reveal, tr.marker} <= data
