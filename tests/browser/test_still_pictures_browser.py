"""Issue 43, part 5: nothing jumps when a run ends. Every plot's ranges and the readout's box, read in Chromium.

The ranges are read from the page's own Bokeh documents (what BokehJS holds and draws), before Play
and once the run has ended (in an exercise: once the verdict is in and the lab shows its answer); the
readout's box is measured from the top of its lab's region, so that a page that scrolls to the
verdict does not count as the lab moving.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from app.course.catalog import lab_kinds
from app.course.content import load_lessons
from tests.browser.test_lessons_browser import open_exercise_from_index, work_exercise
from tests.student import open_lab

pytestmark = pytest.mark.browser

READ_RANGES = """() => {
  // Every plot of the page's Bokeh documents: its title and its x and y ranges (a categorical
  // range by its factors), as BokehJS holds them now.
  const range = (r) => ("factors" in r ? [r.type, [...r.factors].join("|")] : [r.type, r.start, r.end])
  const plots = []
  for (const doc of (window.Bokeh && Bokeh.documents) || []) {
    for (const model of doc.all_models) {
      if (model.type !== "Plot" && model.type !== "Figure") continue
      plots.push({id: model.id, x: range(model.x_range), y: range(model.y_range)})
    }
  }
  return plots.sort((a, b) => (a.id < b.id ? -1 : 1))
}"""

EXERCISES = {
    (lesson.slug, exercise.id): (lesson, exercise)
    for lesson in load_lessons()
    for exercise in lesson.exercises
    if exercise.id in ("missing-event", "exposed-tail", "random-average")
}

REVEALED = {"timeline": "exposed = ", "queue": "net rate"}
"""What the lab's readout shows once an exercise no longer conceals its answer."""


def ranges(page: Page) -> list[dict]:
    """Every plot's x and y ranges on the page now."""
    plots = page.evaluate(READ_RANGES)
    assert plots, "no plot on the page"
    return plots


def readout_box(lab: Locator) -> tuple[float, float]:
    """The readout's top, from the top of its lab's region, and its height, in CSS px."""
    region, status = lab.bounding_box(), lab.get_by_role("status").first.bounding_box()
    assert region and status
    return round(status["y"] - region["y"], 1), round(status["height"], 1)


@pytest.mark.parametrize("key", sorted(EXERCISES), ids=["/".join(key) for key in sorted(EXERCISES)])
def test_an_exercise_keeps_every_axis_and_the_readout_box_from_play_to_the_verdict(page: Page, key):
    lesson, exercise = EXERCISES[key]
    lab, region = open_exercise_from_index(page, lesson, exercise)
    before: dict[str, object] = {}

    def record() -> None:
        before.update(ranges=ranges(page), box=readout_box(lab))

    work_exercise(lab, region, exercise, exercise.answer, use_play=True, before_run=record)
    expect(region.get_by_role("status")).to_contain_text("Correct")
    expect(lab.get_by_role("status").first).to_contain_text(REVEALED[exercise.lab])  # the answer is shown
    assert ranges(page) == before["ranges"], "a plot's axis changed between Play and the verdict"
    assert readout_box(lab) == before["box"], "the readout moved or changed height when the run ended"


@pytest.mark.parametrize(("path", "name"), [("/timeline", "Bucket timeline lab"), ("/queue", "Queue lab")])
def test_a_lab_page_on_a_phone_keeps_its_axes_and_readout_box_to_the_end(phone: Page, path, name):
    lab = open_lab(phone, path, name)
    before, box = ranges(phone), readout_box(lab)
    first = lab.get_by_role("status").first.inner_text()
    lab.get_by_role("button", name="To the end").click()
    expect(lab.get_by_role("status").first).not_to_have_text(first)
    assert ranges(phone) == before
    assert readout_box(lab) == box


def test_the_timeline_at_t_0_shows_nothing_of_the_steps_end_until_the_run_reaches_it(page: Page):
    lab = open_lab(page, "/timeline", "Bucket timeline lab")
    status = lab.get_by_role("status").first
    expect(status).to_contain_text("step = 0.00 ms · exposed = 0.00 ms")
    gantt = lab.get_by_role("img", name="Gantt of one step")
    expect(gantt).not_to_have_accessible_name(re.compile("exposed tail"))
    model = lab_kinds()["timeline"].model()
    lab.get_by_role("button", name="To the end").click()
    expect(status).to_contain_text(f"step = {model.step_time:.2f} ms · exposed = {model.exposed:.2f} ms")
    expect(gantt).to_have_accessible_name(re.compile(f"exposed tail {model.exposed:.2f} ms"))


def boxes_under_the_time_bar(lab: Locator) -> list[tuple[float, float]]:
    """The readout's box and each shown text field's top and height, from the top of the lab's region (CSS px).

    The fields are read in one call, so that a run at half speed is still playing when it is done.
    """
    region = lab.bounding_box()
    assert region
    fields = lab.get_by_role("textbox").evaluate_all(
        "(fields) => fields.map((f) => f.getBoundingClientRect()).filter((r) => r.height > 0)"
        ".map((r) => [r.top, r.height])"
    )
    return [readout_box(lab)] + [(round(top - region["y"], 1), round(height, 1)) for top, height in fields]


@pytest.mark.parametrize("device", ["laptop", "phone"])
@pytest.mark.parametrize(
    ("path", "name"), [("/queue", "Queue lab"), ("/roofline", "Roofline lab"), ("/timeline", "Bucket timeline lab")]
)
def test_while_a_run_plays_the_readout_and_the_fields_keep_their_place(request, path, name, device):
    """The line "Step is off while playing" takes the gate's line under the time bar, never a second one.

    It used to come under it, so that Play pushed the readout and (on a phone, where the fields are
    under the picture) every field 21 px down until the run ended: a tap on a field as a run ended
    landed on its edge (the phone fuzz, seed 4471).
    """
    screen: Page = request.getfixturevalue("phone" if device == "phone" else "page")
    lab = open_lab(screen, path, name)
    lab.get_by_role("combobox", name="Speed").select_option("0.5×")
    before = boxes_under_the_time_bar(lab)
    play = lab.get_by_role("button", name="Play")
    play.tap() if device == "phone" else play.click()
    expect(lab.get_by_text("Step is off while playing; Pause first.")).to_be_visible()
    during = boxes_under_the_time_bar(lab)
    expect(lab.get_by_role("button", name="Pause")).to_be_visible()  # still playing: measured during the run
    lab.get_by_role("button", name="Pause").click()
    expect(lab.get_by_text("Step is off while playing; Pause first.")).to_be_hidden()
    assert during == before, "Play moved the readout or a field"
    assert boxes_under_the_time_bar(lab) == before, "Pause moved the readout or a field"
