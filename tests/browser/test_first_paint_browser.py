"""Issue 64: a page a phone paints at once. The text arrives in the first response and the live page
takes its place without moving anything; each lab's first frame stands where its live plot will.

Read in Chromium: with JavaScript off (what the server sent is all there is), and with it on, from the
first paint to the live page (a layout-shift observer in the page, from before its first byte).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from app.course.content import load_lessons
from app.site.pages.lesson import lesson_first_paint
from labs.registry import registrations
from tests.conftest import PHONE

pytestmark = pytest.mark.browser

LESSONS = load_lessons()
LABS = registrations()
DEVICES = {"laptop": {"viewport": {"width": 1280, "height": 800}}, "phone": PHONE}

WATCH_SHIFTS = """
window.overlapShifts = []
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.overlapShifts.push(entry.value)
}).observe({ type: "layout-shift", buffered: true })
"""

LIVE_PLOT_BOXES = """() => {
  // Each plot BokehJS draws in the lab's picture, in page order: its box in the page.
  const boxes = []
  const walk = (view) => {
    if (view.model && view.model.type === "Figure") {
      const box = view.el.getBoundingClientRect()
      boxes.push([box.left, box.top + window.scrollY, box.width, box.height])
    }
    for (const child of view.child_views || []) walk(child)
  }
  for (const root of Bokeh.index.roots) walk(root)
  return boxes.sort((a, b) => a[1] - b[1])
}"""

FIRST_FRAME_BOXES = """() => [...document.querySelectorAll("#first-paint .lab-frame")].map((frame) => {
  const box = frame.getBoundingClientRect()
  return [box.left, box.top + window.scrollY, box.width, box.height]
})"""


def scripts_off(browser: Browser, device: str = "phone") -> Page:
    return browser.new_context(java_script_enabled=False, **DEVICES[device]).new_page()


@pytest.mark.parametrize("device", DEVICES)
def test_a_lesson_is_readable_and_scrollable_with_scripts_off(browser, live_server, device):
    lesson = LESSONS[0]
    page = scripts_off(browser, device)
    page.goto(f"{live_server.url}/lesson?id={lesson.slug}")
    expect(page.get_by_role("heading", level=1, name=lesson.title)).to_be_visible()
    last = page.get_by_role("region", name=f"Exercise: {lesson.exercises[-1].title}")
    expect(last).to_be_attached()
    last.scroll_into_view_if_needed()
    expect(last).to_be_in_viewport()
    expect(last.get_by_text(lesson.exercises[-1].prompt)).to_be_visible()
    expect(page.get_by_role("button")).to_have_count(0)  # nothing that looks usable and is not
    page.context.close()


def test_the_index_lists_every_lesson_with_scripts_off(browser, live_server):
    page = scripts_off(browser)
    page.goto(live_server.url + "/")
    for lesson in LESSONS:
        expect(page.get_by_role("link", name=lesson.title, exact=True)).to_be_visible()
    page.context.close()


def live_page(browser: Browser, url: str, device: str) -> Page:
    """``url`` opened with scripts on, the layout shifts watched from the start, once its live page is in."""
    page = browser.new_context(**DEVICES[device]).new_page()
    page.add_init_script(WATCH_SHIFTS)
    page.goto(url)
    expect(page.locator("#first-paint")).to_have_count(0)
    return page


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("path", ["/", f"/lesson?id={LESSONS[0].slug}", *(f"/{lab.slug}" for lab in LABS)])
def test_the_live_page_takes_the_first_paints_place_without_moving_anything(browser, live_server, path, device):
    page = live_page(browser, live_server.url + path, device)
    if path == "/":
        expect(page.get_by_role("link", name=LESSONS[0].title, exact=True)).to_be_visible()
    else:
        expect(page.get_by_role("button", name="Play").first).to_be_attached()  # the lab is in (a lesson's too)
        if path.startswith("/lesson"):
            expect(page.get_by_role("button", name="Start this exercise").first).to_be_visible()
    expect(page.locator("h1")).to_have_count(1)
    shifts = page.evaluate("window.overlapShifts")
    assert sum(shifts) <= 0.1, f"layout shifts as the page came alive: {shifts}"
    page.context.close()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("lab", LABS, ids=lambda lab: lab.slug)
def test_each_labs_first_frame_has_its_live_plots_box(browser, live_server, lab, device):
    first = scripts_off(browser, device)
    first.goto(f"{live_server.url}/{lab.slug}")
    frames = first.evaluate(FIRST_FRAME_BOXES)
    first.context.close()
    page = live_page(browser, f"{live_server.url}/{lab.slug}", device)
    expect(page.get_by_role("button", name="Play").first).to_be_visible()
    plots = page.evaluate(LIVE_PLOT_BOXES)[: len(frames)]
    page.context.close()
    assert frames and frame_boxes_match(frames, plots)


def frame_boxes_match(frames: list[list[float]], plots: list[list[float]]) -> bool:
    """Whether each first frame's box (left, top, width, height) is its live plot's, to 2 px."""
    assert len(plots) == len(frames), f"{len(frames)} first frames against {len(plots)} live plots"
    for frame, plot in zip(frames, plots, strict=True):
        assert frame == pytest.approx(plot, abs=2), f"first frame {frame} against live plot {plot} (left, top, w, h)"
    return True


def test_a_lessons_lab_first_frame_stands_where_its_live_plot_will_beside_the_text(browser, live_server):
    url = f"{live_server.url}/lesson?id={LESSONS[0].slug}"
    first = scripts_off(browser, "laptop")
    first.goto(url)
    frames = first.evaluate(FIRST_FRAME_BOXES)
    first.context.close()
    page = live_page(browser, url, "laptop")
    expect(page.get_by_role("button", name="Play").first).to_be_visible()
    plots = page.evaluate(LIVE_PLOT_BOXES)[: len(frames)]
    page.context.close()
    assert frames and frame_boxes_match(frames, plots)


def a_sentence_of_the_prose(lesson) -> str:
    """Thirty plain characters of the lesson's first paragraph (no markup, no entity): findable as text."""
    first_paint = lesson_first_paint(lesson.slug)
    return re.search(r"<p>([^<&\n]{30})", first_paint)[1]


def received_frames(page: Page) -> list[str]:
    """Every websocket message the page receives from now on, as text."""
    frames: list[str] = []
    page.on("websocket", lambda socket: socket.on("framereceived", lambda payload: frames.append(str(payload))))
    return frames


@pytest.mark.parametrize("device", DEVICES)
def test_the_live_lesson_takes_its_prose_from_the_first_paint_not_the_session(browser, live_server, device):
    lesson = LESSONS[0]
    sentence = a_sentence_of_the_prose(lesson)
    page = browser.new_context(**DEVICES[device]).new_page()
    frames = received_frames(page)
    page.goto(f"{live_server.url}/lesson?id={lesson.slug}")
    expect(page.locator("#first-paint")).to_have_count(0)
    expect(page.get_by_text(sentence)).to_have_count(1)  # in the live text (the first paint is gone)
    expect(page.get_by_text(sentence)).to_be_visible()
    assert frames, "the session's document came over the websocket"
    assert not [frame for frame in frames if sentence in frame], "the prose came twice"
    page.context.close()


def test_a_page_whose_first_paint_lacks_the_prose_gets_it_from_the_server(browser, live_server):
    # As from a process of another version behind the same proxy: its first paint's digest is not this one.
    # (The page is changed as it is parsed: a response rewritten by the test loses Chromium's local-network
    # permission to open the websocket.)
    lesson = LESSONS[0]
    sentence = a_sentence_of_the_prose(lesson)
    page = browser.new_context(**DEVICES["phone"]).new_page()
    page.add_init_script(ANOTHER_VERSION)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_server.url}/lesson?id={lesson.slug}")
    assert page.evaluate("window.overlapProseKeysChanged") > 0
    expect(page.locator("#first-paint")).to_have_count(0)
    expect(page.get_by_text(sentence)).to_be_visible()
    expect(page.get_by_role("button", name="Start this exercise").first).to_be_visible()
    assert not errors, errors
    page.context.close()


ANOTHER_VERSION = """
window.overlapProseKeysChanged = 0
new MutationObserver((changes) => {
  for (const change of changes) for (const node of change.addedNodes) {
    if (node.nodeType !== 1) continue
    for (const element of [node, ...node.querySelectorAll("[data-prose-key]")]) {
      if (element.dataset && element.dataset.proseKey && !element.dataset.proseKey.startsWith("old")) {
        element.dataset.proseKey = "old" + element.dataset.proseKey
        window.overlapProseKeysChanged += 1
      }
    }
  }
}).observe(document, { childList: true, subtree: true })
"""
