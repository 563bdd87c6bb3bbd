"""Seeded fuzz in a real Chromium (the engine is :mod:`tests.fuzzing`), and a bug it once found.

The ``page`` fixture (``tests/conftest.py``) fails a test on any page error, console error or
server traceback.
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from tests.fuzzing import ACTIONS_PER_LAB, LABS, SEED, Tally, choose, covered_to_the_end, fuzz_lab
from tests.student import open_lab, reading, type_value, wait_until

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

RECORD_READOUTS = """status => {
  const root = status.shadowRoot || status
  const read = () => ((status.shadowRoot && status.shadowRoot.querySelector('.readout')) || status).innerText
  window.readoutsShown = []
  new MutationObserver(() => window.readoutsShown.push(read()))
    .observe(root, {subtree: true, childList: true, characterData: true})
}"""
"""Record every text the lab's readout shows from now on, in order, in ``window.readoutsShown``."""


def times_shown(page) -> list[float]:
    """The t of every readout the page has shown since :data:`RECORD_READOUTS`, in order."""
    texts = page.evaluate("window.readoutsShown")
    return [float(m.group(1)) for text in texts if (m := re.search(r"t = (-?[\d.]+)", text))]


@pytest.mark.browser
@pytest.mark.parametrize("changed", [False, True], ids=["defaults", "a changed control"])
def test_reset_after_play_shows_t_zero(page, changed):
    """Found by bench/fuzz.py: Play from t = 0 changes the page only, and a Reset changes nothing on the
    server, so the page kept its last played frame until Transport.resend sent it everything again.
    With a control changed first, Reset changes the readout (its net rate) but once left the page's
    own t, where its next Play starts, at the played frame (tests/labs/test_stale_readout.py).

    By state, not by clock: Play (at 4×) until the readout shows t past PLAYED, then Reset must show
    t = 0.00. Play again: the page records every readout it shows, and the first t above zero must be
    one frame's step from 0, not the old frame (a Play that went on from there shows PLAYED or more
    first, however fast or slow the machine).
    """
    lab = open_lab(page, "/queue", "Queue lab")
    status = lab.get_by_role("status").first
    if changed:
        type_value(lab, "Service rate μ", "3")
        expect(status).to_contain_text("net rate λ − μ = -2.00")
    speed = lab.get_by_role("combobox", name="Speed")
    speed.select_option("4×")
    lab.get_by_role("button", name="Play").click()
    wait_until(lambda: reading(lab, "t") > PLAYED)
    lab.get_by_role("button", name="Reset").click()
    expect(status).to_contain_text("t = 0.00 s")
    expect(status).to_contain_text("net rate λ − μ = -1.00")
    expect(lab.get_by_role("button", name="Play")).to_be_visible()
    status.element_handle().evaluate(RECORD_READOUTS)
    speed.select_option("0.5×")
    lab.get_by_role("button", name="Play").click()
    wait_until(lambda: any(t > 0 for t in times_shown(page)))
    lab.get_by_role("button", name="Pause").click()
    expect(lab.get_by_role("button", name="Play")).to_be_visible()
    first = next(t for t in times_shown(page) if t > 0)
    assert first < PLAYED, times_shown(page)


COVER = """
<button id="covered" style="position:absolute; top:20px; left:20px; width:120px; height:44px">Play</button>
<div id="lid" style="position:absolute; top:0; left:0; width:300px; height:100px; background:#eee"></div>
"""
"""A button under a box laid over it: a tap there reaches the box."""


def call_log(page, lift_after_ms: int | None) -> str:
    """Playwright's log of a tap on the covered button that times out; the box lifted and the button
    hidden after ``lift_after_ms``, as when a page lays itself out and the control goes (None: never)."""
    page.set_content(COVER)
    if lift_after_ms is not None:
        page.evaluate(
            """ms => setTimeout(() => { document.getElementById('lid').remove();
                                      document.getElementById('covered').hidden = true }, ms)""",
            lift_after_ms,
        )
    with pytest.raises(PlaywrightTimeout) as miss:
        page.get_by_role("button", name="Play").tap(timeout=1500)
    return str(miss.value)


@pytest.mark.browser
def test_only_a_control_covered_at_the_last_try_counts_as_covered(browser):
    """The fuzz's rule, on Playwright's own call logs from a real Chromium with touch."""
    context = browser.new_context(has_touch=True, is_mobile=True, viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        covered = call_log(page, None)
        assert "intercepts pointer events" in covered
        assert 'id="lid"' in (covered_to_the_end(covered) or "")
        covered_then_gone = call_log(page, 400)
        assert "intercepts pointer events" in covered_then_gone and "element is not visible" in covered_then_gone
        assert covered_to_the_end(covered_then_gone) is None
    finally:
        context.close()


@pytest.mark.browser
def test_an_option_gone_after_it_was_read_is_a_miss_and_one_still_there_is_chosen(browser):
    """The timeline's "Missing event" offers one option per bucket: an edit answered late can take one away."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_content(
            "<label>Missing event <select><option>none</option><option>bucket 1</option>"
            "<option>bucket 2</option></select></label>"
        )
        select = page.get_by_role("combobox", name="Missing event")
        read = [option.strip() for option in select.locator("option").all_text_contents()]
        page.evaluate("() => document.querySelector('option:last-child').remove()")  # fewer buckets now
        assert read[-1] == "bucket 2" and not choose(select, "bucket 2")
        assert choose(select, "bucket 1")
        expect(select).to_have_value("bucket 1")
    finally:
        context.close()
