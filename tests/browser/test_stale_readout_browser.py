"""After Play, the readout follows the model in Chromium: the sequences bench/fuzz.py --seed 20261203 found.

While playing, the page draws the readout and its t itself and tells the server nothing; Bokeh sends
a property only when the server's value changes. A redraw that gave the readout the server had last
set (at t = 0 the backlog is q0 whatever the rates; an exercise hides the net rate) sent nothing, and
the page kept its played frame. The headless twins are in tests/labs/test_stale_readout.py.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, expect

from labs.queue.model import QueueModel
from tests.fuzzing import figures, queue_backlog
from tests.student import open_lab, reading, readout, type_value, wait_until

pytestmark = pytest.mark.browser

LESSON = "/lesson?id=overlap&exercise=growth"
EXERCISE = "Exercise: A backlog that keeps growing"
OTHER = "Exercise: A backlog that empties"
REFUSED = "99999999999999999999"


def follows(lab: Locator, **controls: float) -> bool:
    """Whether the readout's backlog is the model's at the t it shows, for these controls (2 decimals)."""
    shown = figures(readout(lab))
    model = QueueModel(**controls)
    slope = max(abs(model.net_rate), model.service_rate)
    return abs(shown["backlog"] - queue_backlog(model, shown["t"])) <= 0.0051 + slope * 0.0051


def open_growth_exercise(page) -> tuple[Locator, Locator]:
    """The lesson page with the growth exercise started, and its prediction locked."""
    lab = open_lab(page, LESSON, "Queue lab")
    card = page.get_by_role("region", name=EXERCISE)
    card.get_by_role("textbox", name=re.compile("^Your prediction")).fill("1")
    card.get_by_role("button", name="Lock prediction").click()
    expect(lab.get_by_role("button", name="Play")).to_be_enabled()
    return lab, card


def test_an_exercise_started_while_playing_then_an_edit_shows_the_edit(page):
    """Play, a refused λ, another exercise started (Play stops unreported), λ = 1.64, then μ = 1.

    The fuzz found it with Try again, which a student now sees only once an exercise is judged;
    starting another exercise on the same lab stops Play the same way.
    """
    lab, card = open_growth_exercise(page)
    lab.get_by_role("button", name="Play").click()
    wait_until(lambda: reading(lab, "t") > 0)
    type_value(lab, "Arrival rate λ", REFUSED)
    expect(lab.get_by_role("alert")).to_contain_text("kept 1")
    page.get_by_role("region", name=OTHER).get_by_role("button", name="Start this exercise").click()
    expect(lab.get_by_role("button", name="Play")).to_be_disabled()
    expect(lab.get_by_role("button", name="Step")).to_be_disabled()  # Step while off: nothing to press
    expect(lab.get_by_role("status").first).to_contain_text("t = 0.00 s")  # the model's t, not the played frame
    type_value(lab, "Arrival rate λ", "1.64")
    expect(lab.get_by_role("textbox", name="Arrival rate λ")).to_have_value("1.64")
    wait_until(lambda: follows(lab, arrival_rate=1.64))
    type_value(lab, "Service rate μ", "1")
    expect(lab.get_by_role("textbox", name="Service rate μ")).to_have_value("1")
    wait_until(lambda: follows(lab, arrival_rate=1.64, service_rate=1))


def test_reset_after_play_in_an_exercise_shows_t_zero(page):
    """A changed μ, Play, Reset: the readout (which hides the net rate here) is the reset model's."""
    lab, _card = open_growth_exercise(page)
    type_value(lab, "Service rate μ", "3")
    expect(lab).to_contain_text("L = 0.50")  # the server has taken μ = 3
    lab.get_by_role("button", name="Play").click()
    wait_until(lambda: reading(lab, "t") > 0)
    lab.get_by_role("button", name="Reset").click()
    expect(lab.get_by_role("textbox", name="Service rate μ")).to_have_value("2")
    status = lab.get_by_role("status").first
    expect(status).to_contain_text("t = 0.00 s")
    expect(status).to_contain_text("backlog = 4.00 units")


TRANSPORT_T = """() => {
  const out = []
  for (const doc of (window.Bokeh && Bokeh.documents) || [])
    for (const m of doc.all_models) if ("stop_at" in m && "horizon" in m && "ask_time" in m) out.push(m.t)
  return out
}"""
"""The page's copy of t in each transport (labs.ui.playback.PlaybackState): where the next Play starts."""


def test_try_again_after_an_edit_while_playing_leaves_the_page_at_the_servers_t(page):
    """bench/fuzz.py --seed 4471 (issue 63): a verdict, Play, μ = 5 while playing, Try again, lock.

    The edit makes the page report its t once; Try again stops playback from the server. The page then
    kept the t it had played to while the readout showed the server's, and the next Play jumped.
    """
    lab, card = open_growth_exercise(page)
    card.get_by_role("button", name="Set up the lab").click()
    expect(lab.get_by_role("textbox", name="Arrival rate λ")).to_have_value("4")
    lab.get_by_role("button", name="Play").click()
    expect(card.get_by_role("button", name="Try again")).to_be_visible()  # judged at t = 2

    def playing() -> bool:
        # a Play that lands just after a run ended on its own is taken as that run's Pause: press again
        if lab.get_by_role("button", name="Pause").count():
            return True
        lab.get_by_role("button", name="Play").click()
        return False

    wait_until(playing)
    wait_until(lambda: reading(lab, "t") > 2.2)
    type_value(lab, "Service rate μ", "5")
    expect(lab.get_by_role("textbox", name="Service rate μ")).to_have_value("5")
    synced = reading(lab, "t")
    wait_until(lambda: reading(lab, "t") > synced + 0.5)  # played well past the t the edit reported
    card.get_by_role("button", name="Try again").click()
    expect(lab.get_by_role("button", name="Play")).to_be_disabled()
    card.get_by_role("textbox", name=re.compile("^Your prediction")).fill("1")
    card.get_by_role("button", name="Lock prediction").click()
    expect(lab.get_by_role("button", name="Play")).to_be_enabled()
    wait_until(lambda: abs(page.evaluate(TRANSPORT_T)[0] - reading(lab, "t")) <= 0.005)
