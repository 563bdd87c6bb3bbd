"""On a deliberately slowed server, every control works from the moment it is shown.

The server process runs a fifth of the time, in 50 ms slices (``devtools.throttle.DutyCycle``), as
on a busy slow machine; the browser clicks as soon as a control is visible. Under this throttle,
before app/upstream/panel_write_queue.py, the trace page kept "Reading 1 file…" after the server had shown the
figures in about one try of ten to twenty: Panel left the last update queued (the CI failure of
December 2026, and the likely cause of the Reset that never ticked its step). A prediction locked
as the lab arrived once made BokehJS throw as it turned Step on (``app/upstream/assets/bokeh_fixes.js``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from devtools.throttle import DutyCycle
from tests.browser.test_trace_browser import GLOO, drop, readout

pytestmark = pytest.mark.browser

SHARE = 0.2
"""The part of the wall-clock time the slowed server may run."""


@pytest.fixture
def slowed(live_server) -> Iterator[DutyCycle]:
    """The shared live server, slowed for this test only (it always runs freely again after)."""
    with DutyCycle(live_server.process.pid, share=SHARE) as cycle:
        yield cycle


def test_reset_clicked_as_soon_as_shown_ticks_the_first_step(page, slowed):
    page.goto(page.base_url + "/lesson?id=hidden&exercise=memory-bound")
    lab = page.get_by_role("region", name="Roofline lab")
    lab.get_by_role("button", name="Reset").click()  # no wait for the readout: as soon as it is there
    steps = page.get_by_role("region", name="Exercise: A kernel at 8 FLOP/byte").get_by_role("list", name="Steps")
    expect(steps.get_by_role("listitem").first).to_contain_text("(done)")


def test_a_prediction_locked_before_the_lab_arrives_counts(page, slowed):
    page.goto(page.base_url + "/lesson?id=hidden&exercise=memory-bound")
    card = page.get_by_role("region", name="Exercise: A kernel at 8 FLOP/byte")
    card.get_by_role("textbox", name="Your prediction").fill("800")
    card.get_by_role("button", name="Lock prediction").click()  # the lab may not be on the page yet
    expect(card.get_by_role("textbox", name="Your prediction")).to_be_disabled()
    lab = page.get_by_role("region", name="Roofline lab")
    expect(lab.get_by_role("button", name="Reset")).to_be_visible()
    # Locked, with runs still to come, Step is on: turned on as the lab arrived, it once threw in
    # BokehJS and stayed off (app/upstream/assets/bokeh_fixes.js).
    expect(lab.get_by_role("button", name="Step")).to_be_enabled()
    steps = card.get_by_role("list", name="Steps")
    expect(steps.get_by_role("listitem").first).not_to_contain_text("(done)")  # Reset comes first, still


def test_a_trace_read_on_a_slow_server_shows_its_figures(page, slowed):
    trace = drop(page, GLOO[:1])
    expect(trace.get_by_role("status").first).to_contain_text(readout(GLOO[:1]))


def test_a_choice_picked_as_a_reset_is_answered_shows_what_the_lab_runs(page, slowed):
    """Reset, then Iteration picked before the Reset's answer arrives: the page ends showing what the lab runs.

    The fuzz at seed 4471 on a busy machine saw a timeline whose Iteration showed one option while the lab
    ran another ("buckets = 1, expected 3", after Reset → select Iteration). This sequence on the slowed
    server did not reproduce it on the Panel Select either; it guards the stage's select
    (labs/ui/select_field.py), which answers every pick with what the lab holds."""
    page.goto(page.base_url + "/timeline")
    lab = page.get_by_role("region", name="Bucket timeline lab")
    status = lab.get_by_role("status").first
    expect(status).to_contain_text("t = ")
    iteration = lab.get_by_role("combobox", name="Iteration")
    options = iteration.locator("option").all_inner_texts()
    default, first, unused = (
        iteration.input_value(),
        next(o for o in options if o.startswith("First iteration")),
        next(o for o in options if o.startswith("find_unused")),
    )
    iteration.select_option(label=first)
    expect(status).to_contain_text("buckets = 1")
    lab.get_by_role("button", name="Reset").click()  # the server puts back the default: its answer is slow
    iteration.select_option(label=unused)  # picked before that answer arrives
    lab.get_by_role("button", name="Step").click()
    expect(iteration).to_have_value(unused)
    expect(status).not_to_contain_text("buckets = 1")
    assert default not in (first, unused)
