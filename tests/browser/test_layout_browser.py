"""The student's first screen: a real phone layout, the picture first, the question and the picture in one view.

A phone is checked in a mobile browser context (``is_mobile``, ``has_touch``, 375 × 812), never in a
narrow desktop window: only a mobile browser lays a page without a viewport tag out ~980 px wide and
shrinks it. The laptop is 1280 × 800.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from app.course.library import lessons
from labs.registry import registrations
from tests.student import REACHED_AT_MIDDLE, plots_laid_out, readout, styles_applied, type_value
from tests.waiting import poll

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1280, "height": 800}

PAGES = [
    "/",
    *(f"/{lab.slug}" for lab in registrations()),
    *(f"/lesson?id={lesson.slug}" for lesson in lessons()),
    "/embed/queue",
    "/embed/lesson?id=overlap&exercise=growth",
    "/trace",
    "/instructor",
    "/no-such-page",
]

SMALL_TEXT_JS = """() => {
  // Every shown piece of text (a text node's element, a field, a button), through every shadow root,
  // whose font is under 14 px. Screen-reader-only text (1 px boxes) is not shown.
  const small = []
  const look = (root) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) look(el.shadowRoot)
      const texty = ["INPUT", "SELECT", "BUTTON", "TEXTAREA"].includes(el.tagName) ||
        [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())
      if (!texty) continue
      const box = el.getBoundingClientRect()
      if (box.width <= 1 || box.height <= 1 || (el.tagName === "INPUT" && el.type === "file")) continue
      const style = getComputedStyle(el)
      if (style.visibility === "hidden" || style.display === "none") continue
      const size = parseFloat(style.fontSize)
      const text = (el.innerText || el.value || "").slice(0, 40)
      if (size < 13.95) small.push(`${el.tagName}.${el.className} ${size}px: ${text}`)
    }
  }
  look(document)
  return small
}"""


def open_page(page: Page, path: str) -> None:
    """Open ``path`` and wait until it is drawn (a lab's readout, or the page's heading) and styled."""
    page.expects_404 = path == "/no-such-page"  # type: ignore[attr-defined]
    page.goto(page.base_url + path)  # type: ignore[attr-defined]
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    if path.lstrip("/") in {lab.slug for lab in registrations()} or path.startswith(("/lesson", "/embed/")):
        expect(page.get_by_role("status").filter(has_text=" = ").first).to_be_visible()  # a lab's readout
        plots_laid_out(page)
    styles_applied(page)  # what the tests measure is what the stylesheets set


def box(locator: Locator) -> dict:
    found = locator.bounding_box()
    assert found is not None, f"{locator} is not shown"
    return found


def in_view(locator: Locator, viewport: dict) -> bool:
    """Whether the whole of ``locator`` is inside the window as it is scrolled now."""
    found = box(locator)
    return (
        found["y"] >= 0
        and found["x"] >= 0
        and found["y"] + found["height"] <= viewport["height"] + 0.5
        and found["x"] + found["width"] <= viewport["width"] + 0.5
    )


@pytest.mark.parametrize("path", PAGES)
def test_a_phone_gets_the_page_at_its_own_width(phone: Page, path: str):
    open_page(phone, path)
    viewport = phone.locator('meta[name="viewport"]')
    expect(viewport).to_have_attribute("content", "width=device-width, initial-scale=1")
    widths = phone.evaluate(
        """() => {
          const main = document.getElementById("main") || document.documentElement
          return {scale: visualViewport.scale, inner: innerWidth, page: document.documentElement.scrollWidth,
                  main: main.scrollWidth, mainBox: main.clientWidth}
        }"""
    )
    assert widths["scale"] == 1 and widths["inner"] == 375, widths
    assert widths["page"] <= 375 and widths["main"] <= widths["mainBox"], widths  # no sideways scrolling
    assert phone.evaluate(SMALL_TEXT_JS) == []


@pytest.mark.parametrize("lab", registrations(), ids=lambda lab: lab.slug)
def test_on_a_phone_the_plot_comes_first_and_the_time_bar_is_big_enough_to_tap(phone: Page, lab):
    open_page(phone, f"/{lab.slug}")
    region = phone.get_by_role("region", name=lab.title)
    plot = region.get_by_role("img").first
    first_field = region.get_by_role("textbox").first
    assert box(plot)["y"] < box(region.get_by_role("button", name="Play"))["y"] < box(first_field)["y"]
    for name in ("Play", "Step", "To the end", "Reset"):
        button = box(region.get_by_role("button", name=name, exact=True))
        assert button["width"] >= 44 and button["height"] >= 44, (name, button)


@pytest.mark.parametrize("lab", registrations(), ids=lambda lab: lab.slug)
def test_on_a_laptop_each_lab_shows_its_plot_and_play_on_the_first_screen_and_its_title_once(browser, live_server, lab):
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    page.base_url = live_server.url
    try:
        open_page(page, f"/{lab.slug}")
        region = page.get_by_role("region", name=lab.title)
        assert in_view(region.get_by_role("img").first, LAPTOP)
        assert in_view(region.get_by_role("button", name="Play"), LAPTOP)
        expect(page.get_by_text(lab.title, exact=True)).to_have_count(1)  # the page's h1, nowhere else
    finally:
        context.close()


@pytest.mark.parametrize("height", [900, 800])
def test_in_a_lesson_the_question_and_the_picture_are_in_one_view(browser, live_server, height):
    """The question, the Gantt and Play in one view; the step that sets a cap brings the field into view.

    At 1280 × 900 the picture is pinned at the top of the lab's pane and the field lands under it, the
    Gantt still in view. At 1280 × 800 the pane has too little room under the picture to correct a
    field in (labs/ui/assets/stage.js, ROOM), so nothing is pinned: the field comes into view whole.
    """
    laptop = {"width": 1280, "height": height}
    context = browser.new_context(viewport=laptop)
    page = context.new_page()
    try:
        page.goto(live_server.url + "/lesson?id=buckets")
        expect(page.get_by_role("status").filter(has_text="t =").first).to_be_visible()
        card = page.get_by_role("region", name="Exercise: A smaller cap for every bucket")
        card.scroll_into_view_if_needed()
        expect(card.get_by_role("textbox", name="Your prediction")).to_be_hidden()  # Start comes first
        card.get_by_role("button", name="Start this exercise").click()
        lab = page.get_by_role("region", name="Bucket timeline lab")
        prediction = card.get_by_role("textbox", name="Your prediction")
        gantt = lab.get_by_role("img", name="Gantt")
        expect(prediction).to_be_visible()
        plots_laid_out(page)
        poll(
            lambda: all(in_view(part, laptop) for part in (prediction, gantt, lab.get_by_role("button", name="Play"))),
            page=page,
            what="the prediction box, the Gantt and Play in the window at once",
        )
        # The step that sets a cap brings that field into view in the lab's pane, below the picture.
        lab.get_by_role("button", name="Reset").click()
        cap = lab.get_by_role("textbox", name="First bucket cap (MiB)", exact=True)
        poll(lambda: in_view(cap, laptop), page=page, what="the First bucket cap field brought into view")
        assert cap.evaluate(f"(el) => {{{REACHED_AT_MIDDLE} return hit === el }}"), "the field is covered"
        assert box(cap)["y"] > box(lab.get_by_role("button", name="Play"))["y"]
        assert in_view(prediction, laptop)
        if height >= 900:  # pinned
            assert in_view(gantt, laptop)
    finally:
        context.close()


def test_play_and_pause_move_neither_the_plot_nor_the_fields(page: Page):
    page.goto(page.base_url + "/queue")  # type: ignore[attr-defined]
    lab = page.get_by_role("region", name="Queue lab")
    expect(lab.get_by_role("status").first).to_contain_text("t = 0.00 s")
    plots_laid_out(page)
    plot = lab.get_by_role("img").first
    service = lab.get_by_role("textbox", name="Service rate μ")
    initial = lab.get_by_role("textbox", name="Initial backlog")
    where = [box(plot), box(service), box(initial)]
    lab.get_by_role("button", name="Play").click()
    expect(lab.get_by_role("button", name="Pause")).to_be_visible()
    assert [box(plot), box(service), box(initial)] == where
    lab.get_by_role("button", name="Pause").click()
    expect(lab.get_by_role("button", name="Play")).to_be_visible()
    assert [box(plot), box(service), box(initial)] == where
    assert "t = " in readout(lab)


def test_a_refusal_moves_nothing_above_or_beside_it_and_nothing_when_it_goes(page: Page):
    """A refusal is a line of the layout under its field: it covers nothing, moves nothing above or
    beside it, and nothing moves when it goes (its room is held until the student is back in that
    field, labs/ui/text_field.py)."""
    page.goto(page.base_url + "/queue")  # type: ignore[attr-defined]
    lab = page.get_by_role("region", name="Queue lab")
    expect(lab.get_by_role("status").first).to_contain_text("t = 0.00 s")
    plots_laid_out(page)
    plot = lab.get_by_role("img").first
    service = lab.get_by_role("textbox", name="Service rate μ")
    initial = lab.get_by_role("textbox", name="Initial backlog")
    page.evaluate("document.fonts.ready.then(() => true)")  # text measured in its own font, not a fallback's
    where = [box(plot), box(service)]
    type_value(lab, "Arrival rate λ", "abc")
    refusal = lab.get_by_role("alert").filter(has_text="Arrival rate λ")
    expect(refusal).to_be_visible()
    assert [box(plot), box(service)] == where  # above and beside: still
    line, below = box(refusal), box(initial)
    assert line["y"] + line["height"] <= below["y"]  # the field under it moved down, not under the line
    assert "t = " in readout(lab)
    held = [box(plot), box(service), box(initial)]
    type_value(lab, "Arrival rate λ", "2")  # corrected
    expect(lab.get_by_role("alert")).to_have_count(0)
    assert [box(plot), box(service), box(initial)] == held  # the refusal went; nothing moved


def test_a_whole_exercise_is_done_by_taps_on_a_phone(phone: Page):
    lesson = next(item for item in lessons() if item.exercise("growth"))
    exercise = lesson.exercise("growth")
    phone.goto(phone.base_url + f"/lesson?id={lesson.slug}")  # type: ignore[attr-defined]
    card = phone.get_by_role("region", name=f"Exercise: {exercise.title}")
    start = card.get_by_role("button", name="Start this exercise")
    assert box(start)["height"] >= 44 and box(start)["width"] >= 44
    start.tap()
    lab = phone.get_by_role("region", name="Queue lab")
    expect(card.get_by_role("textbox", name="Your prediction")).to_be_visible()  # started
    # On a phone the lab follows the card it serves, not the end of the lesson.
    poll(
        lambda: 0 < box(lab)["y"] - (box(card)["y"] + box(card)["height"]) < 60,
        page=phone,
        what="the lab right after the started exercise",
    )
    lab.get_by_role("button", name="Reset").tap()
    for field, value in (("Arrival rate λ", "4"), ("Service rate μ", "3")):
        box_ = lab.get_by_role("textbox", name=field)
        box_.tap()
        box_.fill(value)
        box_.press("Enter")
    prediction = card.get_by_role("textbox", name="Your prediction")
    prediction.tap()
    prediction.fill(f"{exercise.answer:g}")
    lock = card.get_by_role("button", name="Lock prediction")
    assert box(lock)["height"] >= 44
    lock.tap()
    play = lab.get_by_role("button", name="Play")
    expect(play).to_be_enabled()
    play.tap()
    expect(card.get_by_role("status").first).to_contain_text("Correct")
    again = card.get_by_role("button", name="Try again")
    assert box(again)["height"] >= 44 and box(again)["width"] >= 44
