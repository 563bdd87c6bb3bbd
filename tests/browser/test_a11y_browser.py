"""Accessibility in Chromium: axe-core on every page, the keyboard alone, focus and plot text.

axe-core comes from the npm registry (``make test`` installs it); a page passes with no
violation of impact moderate, serious or critical under WCAG 2.1 A/AA and axe's best practices.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from app.course.library import lessons
from labs.registry import registrations
from tests.axe import audit, describe
from tests.colours import contrast
from tests.student import open_lab, plots_laid_out, readout, shown_text, wait_for_reading, wait_until

pytestmark = pytest.mark.browser

LAB_PAGES = [f"/{lab.slug}" for lab in registrations()]
PAGES = [
    "/",
    *LAB_PAGES,
    *[f"/lesson?id={lesson.slug}" for lesson in lessons()],
    "/lesson?id=overlap&exercise=growth",
    "/lab?id=queue",
    *[f"/embed/{lab.slug}" for lab in registrations()],
    "/embed/lesson?id=overlap&exercise=growth",
    "/trace",
    "/instructor",
]
NOT_FOUND = ["/no-such-page", "/lesson?id=no-such-lesson", "/embed/lesson?id=overlap&exercise=no-such-exercise"]

# The element that has keyboard focus, looking through shadow roots (Panel and Bokeh use them).
DEEP_FOCUS = """() => {
  let el = document.activeElement
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement
  return el
}"""
IS_FOCUSED = f"el => el === ({DEEP_FOCUS})()"
FOCUS_TAG = f"() => {{ const el = ({DEEP_FOCUS})(); return el ? el.tagName : null }}"


def is_focused(locator: Locator) -> bool:
    return locator.evaluate(IS_FOCUSED)


def focus_is_on_a_control(page: Page) -> bool:
    return page.evaluate(FOCUS_TAG) not in ("BODY", "HTML", None)


def tab_to(page: Page, target: Locator, limit: int = 120) -> int:
    """Press Tab until ``target`` has focus; return how many presses it took."""
    for presses in range(1, limit + 1):
        page.keyboard.press("Tab")
        if is_focused(target):
            return presses
    raise AssertionError(f"{target} not reached in {limit} Tabs")


def focus_ring(locator: Locator) -> tuple[float, tuple[float, ...]]:
    """Width in px and colour of the outline drawn round a focused element."""
    style = locator.evaluate("el => { const s = getComputedStyle(el); return [s.outlineWidth, s.outlineColor] }")
    width = float(style[0].removesuffix("px") or 0)
    colour = tuple(float(x) for x in re.findall(r"[\d.]+", style[1])[:3])
    return width, colour


def wait_for_page(page: Page, path: str) -> None:
    if path in NOT_FOUND:
        page.expects_404 = True
        response = page.goto(page.base_url + path)
        assert response is not None and response.status == 404
        return
    page.goto(page.base_url + path)
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    if path == "/trace":  # its view arrives once the page has loaded, as a lab does
        expect(page.get_by_role("group", name="Trace file")).to_be_visible()
        expect(page.get_by_role("region", name="Trace").get_by_role("status").first).to_contain_text("Drop")
    elif path == "/instructor":  # the class is off on this server: the page says how to turn it on
        expect(page.get_by_role("status").first).to_contain_text("The class is off")
    elif path != "/":
        expect(page.get_by_role("button", name="Reset")).to_be_visible()
        plots_laid_out(page)


@pytest.mark.parametrize("path", PAGES + NOT_FOUND)
def test_axe_finds_nothing_moderate_or_worse(page, path):
    wait_for_page(page, path)
    violations = audit(page)
    assert not violations, f"{path}:\n{describe(violations)}"


def test_axe_on_an_exercise_under_way_with_a_data_table_open(page):
    wait_for_page(page, "/lesson?id=overlap&exercise=growth")
    region = page.get_by_role("region", name="Exercise: A backlog that keeps growing")
    lab = page.get_by_role("region", name="Queue lab")
    region.get_by_role("textbox", name="Your prediction").fill("1")
    region.get_by_role("button", name="Lock prediction").click()
    expect(lab.get_by_role("button", name="Step")).to_be_enabled()
    lab.get_by_role("button", name="Step").click()
    lab.get_by_text("Show the backlog plot as a table").click()
    expect(lab.get_by_role("table", name="Backlog plot")).to_be_visible()
    violations = audit(page)
    assert not violations, describe(violations)


def test_axe_on_the_queue_with_its_random_queue_on_and_stepped(page):
    lab = open_lab(page, "/queue", "Queue lab")
    lab.get_by_role("checkbox", name="Random queue (M/M/1)").check()
    status = lab.get_by_role("status").first
    expect(status).to_contain_text("random = ")
    lab.get_by_role("button", name="Step").click()
    expect(status).to_contain_text("t = 1.00 s")
    expect(lab.get_by_role("img").first).to_have_attribute("aria-label", re.compile("random", re.IGNORECASE))
    violations = audit(page)
    assert not violations, describe(violations)


def test_the_skip_link_is_first_and_lands_in_main(page):
    wait_for_page(page, "/lesson?id=overlap")
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to main content")
    assert is_focused(skip)
    width, colour = focus_ring(skip)
    assert width >= 2 and contrast(colour, (31, 59, 87)) >= 3  # against the dark header
    page.keyboard.press("Enter")
    expect(page.locator("#main")).to_be_focused()  # waited for: the browser moves focus on its own time


def test_enter_toggles_play_and_pause_and_focus_stays(page):
    wait_for_page(page, "/queue")
    lab = page.get_by_role("region", name="Queue lab")
    play = lab.get_by_role("button", name="Play")
    tab_to(page, play)
    page.keyboard.press("Enter")
    pause = lab.get_by_role("button", name="Pause")
    expect(pause).to_be_visible()
    wait_until(lambda: is_focused(pause))
    wait_until(lambda: "t = 0.00" not in readout(lab))  # playing: frames drawn since the first
    page.keyboard.press("Enter")  # a second Enter pauses: focus did not fall to <body>
    expect(lab.get_by_role("button", name="Play")).to_be_visible()
    wait_until(lambda: is_focused(lab.get_by_role("button", name="Play")))
    page.keyboard.press("Space")
    expect(lab.get_by_role("button", name="Pause")).to_be_visible()
    page.keyboard.press("Space")
    expect(lab.get_by_role("button", name="Play")).to_be_visible()


@pytest.mark.parametrize("name", ["Reset", "Step", "Play"])
def test_transport_buttons_show_a_focus_ring_of_three_to_one(page, name):
    wait_for_page(page, "/queue")
    button = page.get_by_role("region", name="Queue lab").get_by_role("button", name=name)
    tab_to(page, button)
    width, colour = focus_ring(button)
    assert width >= 2, f"{name}: outline {width}px"
    assert contrast(colour, (255, 255, 255)) >= 3, f"{name}: outline colour {colour} on white"


def test_an_exercise_done_with_the_keyboard_alone(page):
    """Growth exercise: Start, type the prediction, Lock, Step twice; focus is never on <body>."""
    page.goto(page.base_url + "/lesson?id=overlap")
    region = page.get_by_role("region", name="Exercise: A backlog that keeps growing")
    lab = page.get_by_role("region", name="Queue lab")
    expect(lab.get_by_role("button", name="Reset")).to_be_visible()

    start = region.get_by_role("button", name=re.compile("Start this exercise"))
    tab_to(page, start, limit=200)
    page.keyboard.press("Enter")
    expect(region.get_by_role("listitem").first).to_be_visible()  # the server's answer drawn: the steps
    assert focus_is_on_a_control(page)
    reset = lab.get_by_role("button", name="Reset")
    tab_to(page, reset, limit=200)
    page.keyboard.press("Enter")
    expect(region.get_by_role("listitem").first).to_contain_text("(done)")
    assert is_focused(reset)

    for field, value in (("Arrival rate λ", "4"), ("Service rate μ", "3")):
        box = lab.get_by_role("textbox", name=re.compile(field))
        tab_to(page, box)
        page.keyboard.press("Control+A")
        page.keyboard.type(value)
        page.keyboard.press("Enter")
        expect(box).to_have_value(value)
        assert focus_is_on_a_control(page)

    prediction = region.get_by_role("textbox", name="Your prediction")
    tab_to(page, prediction, limit=200)
    page.keyboard.type("1")
    page.keyboard.press("Enter")  # Enter in the field locks, as the Lock button does
    expect(lab.get_by_role("button", name="Step")).to_be_enabled()
    assert focus_is_on_a_control(page)

    step = lab.get_by_role("button", name="Step")
    tab_to(page, step, limit=200)
    for t in (1, 2):
        page.keyboard.press("Enter")
        wait_for_reading(lab, "t", t)
        assert is_focused(step), "Step keeps focus"
    feedback = region.get_by_role("status")
    expect(feedback).to_contain_text("Correct")
    assert focus_is_on_a_control(page)


@pytest.mark.parametrize("path", LAB_PAGES)
def test_every_plot_is_a_named_image_that_follows_step_not_play(page, path):
    wait_for_page(page, path)
    images = page.get_by_role("img")

    def names() -> list[str | None]:
        return [images.nth(i).get_attribute("aria-label") for i in range(images.count())]

    before = names()
    assert before and all(name and len(name) > 40 for name in before), before
    assert not any(re.search(r"nan|inf\b|-0\.00", name) for name in before), before
    page.get_by_role("button", name="Step").click()
    wait_until(lambda: names() != before)
    stepped = names()
    status = page.get_by_role("status").first
    still = shown_text(status)
    page.get_by_role("combobox", name="Speed").select_option("0.5×")  # time to see three frames before the end
    page.get_by_role("button", name="Play").click()
    for _ in range(3):  # three frames drawn, each a new readout: by then a per-frame description would show
        wait_until(lambda shown=still: shown_text(status) != shown)
        still = shown_text(status)
        if names() != stepped:  # only once the run has ended by itself (the page relabels Pause first, then
            # the server describes the stop): a slow machine can take longer than the run to show three frames
            assert page.get_by_role("button", name="Pause").count() == 0, "no new description per Play frame"
            break
    # Pause, unless the run has reached its end meanwhile and stopped by itself (a slow machine
    # can take that long to show three frames): either way the description follows the stop.
    playing = page.get_by_role("button", name=re.compile("^(Pause|Play)$"))
    if playing.inner_text().strip() == "Pause":
        playing.click()  # a Play here (the run ended as it was read) starts it again; it ends the same way
    wait_until(lambda: names() != stepped)


@pytest.mark.parametrize(("path", "name"), [("/queue", "Queue lab"), ("/roofline", "Roofline lab")])
def test_the_readout_is_one_live_region_that_stays_and_is_busy_while_playing(page, path, name):
    """A screen reader announces changes inside a live region that is already there, not a new one."""
    lab = open_lab(page, path, name)
    status = lab.get_by_role("status").first
    region = status.element_handle()
    assert region.get_attribute("aria-live") == "polite" and region.get_attribute("aria-atomic") == "true"
    before = shown_text(status)
    lab.get_by_role("button", name="Step").click()
    expect(status).not_to_have_text(before)
    assert region.evaluate("e => e.isConnected"), "the readout's live region was replaced, not updated"
    expect(status).to_have_attribute("aria-busy", "false")
    lab.get_by_role("button", name="Play").click()
    expect(status).to_have_attribute("aria-busy", "true")  # figures change every frame: announced once stopped
    lab.get_by_role("button", name="Pause").click()
    expect(status).to_have_attribute("aria-busy", "false")
    assert region.evaluate("e => e.isConnected")


def test_exercise_buttons_show_a_focus_ring_of_three_to_one(page):
    wait_for_page(page, "/lesson?id=overlap")
    region = page.get_by_role("region", name="Exercise: A backlog that keeps growing")
    start = region.get_by_role("button", name=re.compile("Start this exercise"))
    tab_to(page, start, limit=200)
    for button in (start,):
        width, colour = focus_ring(button)
        assert width >= 2 and contrast(colour, (255, 255, 255)) >= 3, (width, colour)
    page.keyboard.press("Enter")  # Start: the prediction field and Lock appear
    field = region.get_by_role("textbox", name=re.compile("Your prediction"))
    expect(field).to_be_visible()
    wait_until(lambda: focus_is_on_a_control(page))  # Start is gone, its focus kept in the card
    field.fill("1")
    lock = region.get_by_role("button", name="Lock prediction")
    field.press("Tab")  # a keyboard focus, so :focus-visible applies
    wait_until(lambda: is_focused(lock))
    width, colour = focus_ring(lock)
    assert width >= 2 and contrast(colour, (255, 255, 255)) >= 3, (width, colour)
    page.keyboard.press("Enter")
    expect(field).to_be_disabled()
    wait_until(lambda: page.evaluate(FOCUS_TAG) == "SECTION")  # Lock moves focus to its card, not to <body>
    assert region.evaluate("el => el.getAttribute('tabindex')") == "-1"


@pytest.mark.parametrize(
    ("path", "scope"), [("/queue", None), ("/lesson?id=overlap", "Exercise: A backlog that keeps growing")]
)
def test_share_opened_from_the_keyboard_shows_its_focus_ring_and_axe_finds_nothing(page, path, scope):
    wait_for_page(page, path)
    where = page.get_by_role("region", name=scope) if scope else page.get_by_role("main")
    share = where.get_by_role("button", name="Share", exact=True)
    tab_to(page, share, limit=200)
    width, colour = focus_ring(share)
    assert width >= 2 and contrast(colour, (255, 255, 255)) >= 3, (width, colour)
    page.keyboard.press("Enter")
    expect(where.get_by_role("textbox", name="Embed code")).to_be_visible()
    page.keyboard.press("Tab")  # to the Link field
    page.keyboard.press("Tab")
    copy = where.get_by_role("button", name="Copy link")
    wait_until(lambda: is_focused(copy))
    width, colour = focus_ring(copy)
    assert width >= 2 and contrast(colour, (255, 255, 255)) >= 3, (width, colour)
    violations = audit(page)
    assert not violations, f"{path} with Share open:\n{describe(violations)}"
