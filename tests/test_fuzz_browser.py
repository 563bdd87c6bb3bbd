"""Seeded fuzz in a real Chromium (the engine is :mod:`tests.fuzzing`), and a bug it once found.

The ``page`` fixture (``tests/conftest.py``) fails a test on any page error, console error or
server traceback.
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from tests.fuzzing import ACTIONS_PER_LAB, LABS, SEED, Tally, fuzz_lab
from tests.student import open_lab, reading, wait_until

# ----- the test -------------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.parametrize("lab", list(LABS))
def test_random_student_actions_keep_every_figure_right(page, lab):
    tally = Tally()
    started = time.monotonic()
    fuzz_lab(page, LABS[lab], ACTIONS_PER_LAB, SEED, tally)
    took = time.monotonic() - started
    print(
        f"{lab}: {sum(tally.actions.values())} actions in {took:.1f} s, {tally.checks} checks, "
        f"{tally.refusals} refusals, {dict(tally.actions)}"
    )
    assert not tally.violations, "\n".join(tally.violations[:20])
    assert tally.actions["type"] > ACTIONS_PER_LAB // 4 and tally.refusals > 0


PLAYED = 5.0
"""How far the first Play runs (model seconds) before Reset, in the test below."""


@pytest.mark.browser
def test_reset_after_play_shows_t_zero(page):
    """Found by bench/fuzz.py: Play from t = 0 changes the page only, and a Reset changes nothing on the
    server, so the page kept its last played frame until Transport.resend sent it everything again.

    By state, not by clock. Play runs (at 4×) until the readout shows t past PLAYED; Reset must show
    t = 0.00. Play again at 0.5×, paused once the readout shows t > 0: a Play that went on from the old
    frame starts at t > PLAYED and so stops there or later; one that starts from 0 stops below PLAYED
    unless pressing Pause took the test more than PLAYED / 0.5 = 10 s of wall time.
    """
    lab = open_lab(page, "/queue", "Queue lab")
    status = lab.get_by_role("status").first
    speed = lab.get_by_role("combobox", name="Speed")
    speed.select_option("4×")
    lab.get_by_role("button", name="Play").click()
    wait_until(lambda: reading(lab, "t") > PLAYED)
    lab.get_by_role("button", name="Reset").click()
    expect(status).to_contain_text("t = 0.00 s")
    expect(lab.get_by_role("button", name="Play")).to_be_visible()
    speed.select_option("0.5×")
    lab.get_by_role("button", name="Play").click()
    wait_until(lambda: reading(lab, "t") > 0)
    lab.get_by_role("button", name="Pause").click()
    expect(lab.get_by_role("button", name="Play")).to_be_visible()
    assert 0 < reading(lab, "t") < PLAYED
