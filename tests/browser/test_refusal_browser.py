"""A refused value in Chromium, as a student meets it on a laptop and on a phone (issue 43, part 3).

The refusal is a line under its own field, in the layout: it covers no other control, so the next
field takes a click (or a tap) at once, and Tab never lands on a control hidden under something.
What was typed stays in the field, marked invalid and described by the refusal, with focus where
the student left it; the lab keeps its value (the readout does not change), and the refusal says
which. A value the server sets later (Reset) replaces the typed text and the refusal.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.student import REACHED_AT_MIDDLE, open_lab, readout, type_value
from tests.waiting import poll

pytestmark = pytest.mark.browser

HIT = f"""(el) => {{{REACHED_AT_MIDDLE}
  return hit === el || [...(el.labels || [])].some((label) => label.contains(hit))
}}"""
"""Whether a click at the middle of el reaches it (or its label)."""

FOCUSED = """() => {
  let el = document.activeElement
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement
  return el
}"""


def box(locator: Locator) -> dict:
    found = locator.bounding_box()
    assert found is not None, f"{locator} is not shown"
    return found


def overlaps(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and (a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])
    )


def reachable(control: Locator) -> bool:
    """Whether a click at the middle of ``control`` reaches it (nothing lies over it)."""
    return control.evaluate(HIT)


@pytest.fixture(params=["laptop", "phone"])
def device(request) -> tuple[Page, bool]:
    """A watched page on a laptop (1280 × 900) or in a phone's browser (touch): the page, and touch."""
    touch = request.param == "phone"
    return request.getfixturevalue("phone" if touch else "page"), touch


def press(control: Locator, touch: bool) -> None:
    """A tap on a phone, a click elsewhere; a covered control fails at once (``reachable``), not after 60 s.

    The tap or click itself has the suite's deadline: on a busy machine Playwright's checks that the
    control is visible and still may take more than a few seconds.
    """
    control.scroll_into_view_if_needed()
    assert reachable(control), f"{control} is covered"
    if touch:
        control.tap()
    else:
        control.click()


def test_a_refused_value_stays_under_its_field_and_the_next_field_takes_the_click(device):
    page, touch = device
    lab = open_lab(page, "/queue", "Queue lab")
    before = readout(lab)
    service = lab.get_by_role("textbox", name="Service rate μ")
    press(service, touch)
    service.fill("-3")
    service.press("Enter")
    alert = lab.get_by_role("alert")
    expect(alert).to_contain_text("Service rate μ cannot be -3")
    expect(alert).to_contain_text("kept 2.")  # the value the lab keeps
    expect(service).to_have_value("-3")  # what was typed, there to correct
    expect(service).to_be_focused()
    expect(service).to_have_attribute("aria-invalid", "true")
    expect(service).to_have_accessible_description(re.compile("Service rate μ cannot be -3"))
    assert readout(lab) == before  # the lab still runs μ = 2

    under = box(alert)
    field = box(service)
    assert under["y"] >= field["y"] + field["height"] - 1  # under its own field
    assert abs(under["x"] - field["x"]) < 12  # lined up with it
    for other in lab.get_by_role("textbox").all() + lab.get_by_role("checkbox").all() + lab.get_by_role("button").all():
        if other.is_visible() and other.evaluate("el => !el.matches(':focus')"):
            assert not overlaps(under, box(other)), f"the refusal covers {other}"

    # The field under μ (the one the popover used to cover) takes the click at once.
    stop = lab.get_by_role("textbox", name="Arrivals stop at")
    press(stop, touch)
    expect(stop).to_be_focused()
    expect(service).to_have_value("-3")  # left as it was, refusal and all
    expect(alert).to_contain_text("kept 2.")


def test_leaving_a_refused_field_for_the_next_one_refuses_it_there(device):
    """Letters typed, then straight to the field below (no Enter): the click lands, the refusal shows."""
    page, touch = device
    lab = open_lab(page, "/queue", "Queue lab")
    arrival = lab.get_by_role("textbox", name="Arrival rate λ")
    press(arrival, touch)
    arrival.fill("abc")
    backlog = lab.get_by_role("textbox", name="Initial backlog")
    press(backlog, touch)
    expect(backlog).to_be_focused()
    expect(lab.get_by_role("alert")).to_contain_text("Arrival rate λ: 'abc' is not a number")
    expect(lab.get_by_role("alert")).to_contain_text("kept 1.")
    expect(arrival).to_have_value("abc")
    expect(backlog).to_be_focused()  # the refusal took nothing from the field the student went to
    backlog.fill("6")
    backlog.press("Enter")
    expect(lab.get_by_role("status").first).to_contain_text("backlog = 6.00")  # λ = 1 still in force


def test_a_correction_or_a_reset_replaces_the_refused_text(page: Page):
    lab = open_lab(page, "/queue", "Queue lab")
    service = lab.get_by_role("textbox", name="Service rate μ")
    type_value(lab, "Service rate μ", "0")
    expect(lab.get_by_role("alert")).to_contain_text("kept 2.")
    lab.get_by_role("button", name="Reset").click()  # μ is 2 already: the server still shows it
    expect(service).to_have_value("2")
    expect(lab.get_by_role("alert")).to_have_count(0)
    expect(service).to_have_attribute("aria-invalid", "false")
    type_value(lab, "Service rate μ", "1e9")
    expect(lab.get_by_role("alert")).to_contain_text("kept 2.")
    type_value(lab, "Service rate μ", "3")
    expect(lab.get_by_role("alert")).to_have_count(0)
    expect(service).to_have_value("3")
    expect(lab.get_by_role("status").first).to_contain_text("net rate λ − μ = -2.00")


def test_a_refused_layers_entry_keeps_what_was_typed(page: Page):
    lab = open_lab(page, "/timeline", "Bucket timeline lab")
    layers = lab.get_by_role("textbox", name=re.compile("^Layers"))
    kept = layers.input_value()
    typed = "8:2, 25:1, 64:0.5, oops"
    type_value(lab, re.compile("^Layers"), typed)
    expect(lab.get_by_role("alert")).to_contain_text("layer 4 ('oops') has no colon")
    expect(lab.get_by_role("alert")).to_contain_text(f"kept {kept}.")
    expect(layers).to_have_value(typed)
    expect(layers).to_be_focused()
    layers.press("End")
    layers.press("Backspace")  # the student mends their own text
    layers.press("Backspace")
    layers.press("Backspace")
    layers.press("Backspace")
    layers.type("8:1")
    layers.press("Enter")
    expect(layers).to_have_value("8:2, 25:1, 64:0.5, 8:1")
    expect(lab.get_by_role("alert")).to_have_count(0)


def test_tab_never_lands_on_a_covered_control_in_a_lesson(page: Page):
    """In a lesson on a laptop the lab's picture is pinned over its scrolling panels: a control Tab
    reaches below it is scrolled out from under the picture, whatever the control is."""
    page.goto(page.base_url + "/lesson?id=overlap")  # type: ignore[attr-defined]
    lab = page.get_by_role("region", name="Queue lab")
    expect(lab.get_by_role("status").first).to_contain_text("t = ")
    controls = [
        lab.get_by_role("textbox", name="Seed"),
        lab.get_by_role("checkbox", name="Random queue (M/M/1)"),
        lab.get_by_role("textbox", name="Arrival rate λ"),
    ]
    lab.get_by_role("button", name="Reset").focus()
    for _ in range(12):  # Tab from the time bar through the panels
        page.keyboard.press("Tab")
        focused = page.evaluate_handle(FOCUSED).as_element()
        assert focused is not None
        inside = focused.evaluate("(el, lab) => lab.contains(el.getRootNode().host || el)", lab.element_handle())
        if not inside:
            break
        poll(lambda f=focused: f.evaluate(HIT), page=page, what="the focused control uncovered")
    for control in controls:
        control.focus()
        poll(lambda c=control: reachable(c), page=page, what=f"{control} uncovered once focused")


SEEN = """(el) => {
  // Whether el is whole in the part of the window the student sees (below the top bar, above the
  // window's edge) and a click at its top line, its middle and its last line reaches it.
  const main = document.getElementById("main").getBoundingClientRect()
  const box = el.getBoundingClientRect()
  if (box.top < main.top || box.bottom > Math.min(main.bottom, window.innerHeight)) return false
  for (const y of [box.top + 3, (box.top + box.bottom) / 2, box.bottom - 3]) {
    const x = box.x + Math.min(20, box.width / 2)
    let hit = document.elementFromPoint(x, y)
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y)
      if (!inner || inner === hit) break
      hit = inner
    }
    if (!(hit === el || el.contains(hit))) return false
  }
  return true
}"""
"""A page function of ``el``: whether all of it is on screen and nothing lies over it."""


@pytest.mark.parametrize(
    ("height", "lesson", "lab_name", "card", "field"),
    [
        (800, "hidden", "Roofline lab", "A kernel at 8 FLOP/byte", "Arithmetic intensity I"),  # the review's
        (900, "overlap", "Queue lab", None, "Arrival rate λ"),  # a picture pinned over the panels
        (720, "overlap", "Bucket timeline lab", "An all-reduce that does not wait", "Layers"),
    ],
)
def test_a_field_being_corrected_in_a_lesson_is_whole_on_a_laptop(page: Page, height, lesson, lab_name, card, field):
    """Issue 63 (the review's #10): after a refusal in a lesson's lab on a laptop, the field's label, the
    field and the whole refusal are on screen, under no pinned picture and not below the window's edge."""
    page.set_viewport_size({"width": 1280, "height": height})
    page.goto(page.base_url + f"/lesson?id={lesson}")  # type: ignore[attr-defined]
    if card:
        page.get_by_role("region", name=f"Exercise: {card}").get_by_role("button", name="Start this exercise").click()
    lab = page.get_by_role("region", name=lab_name)
    expect(lab.get_by_role("status").first).to_contain_text("=")
    box_ = lab.get_by_role("textbox", name=field)
    box_.fill("abc")
    box_.press("Enter")
    alert = lab.get_by_role("alert")
    expect(alert).to_contain_text("kept")
    wrapper = box_.locator("xpath=ancestor::div[contains(@class, 'text-field')][1]")
    for part, what in ((wrapper.locator("label > span"), "its label"), (box_, "the field"), (alert, "the refusal")):
        poll(lambda p=part: p.evaluate(SEEN), page=page, what=f"{what} whole and uncovered")
