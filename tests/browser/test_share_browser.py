"""The Share button in Chromium: a lab page's and an exercise card's link and embed code, copied.

Served by ``python -m app`` (the session's ``live_server``), so the embed pages exist; the same
button under ``panel serve`` is in ``tests/browser/test_share_panel_serve_browser.py``.
"""

from __future__ import annotations

import html
import re

import pytest
from playwright.sync_api import Locator, Page, expect

from app.course.library import lessons
from labs.registry import registrations
from tests.browser.test_a11y_browser import is_focused

pytestmark = pytest.mark.browser

EXERCISE = "Exercise: A backlog that keeps growing"  # lesson "overlap", exercise "growth"


def open_share(scope: Locator) -> Locator:
    """Press ``scope``'s Share button and return the panel it opened (the element it controls)."""
    button = scope.get_by_role("button", name="Share", exact=True)
    expect(button).to_have_attribute("aria-expanded", "false")
    button.click()
    expect(button).to_have_attribute("aria-expanded", "true")
    panel = scope.locator(f"[id='{button.get_attribute('aria-controls')}']")
    expect(panel).to_be_visible()
    return panel


def snippet_src(snippet: str) -> str:
    """The ``src`` of the one ``<iframe>`` in an embed code."""
    found = re.fullmatch(r'<iframe src="([^"]+)" title="[^"]+" [^<>]*></iframe>', snippet)
    assert found, snippet
    return html.unescape(found.group(1))


@pytest.mark.parametrize("lab", registrations(), ids=lambda lab: lab.slug)
def test_a_lab_page_shares_its_link_and_embed_code(page: Page, live_server, lab):
    page.goto(f"{live_server.url}/{lab.slug}")
    expect(page.get_by_role("heading", level=1, name=lab.title)).to_be_visible()
    panel = open_share(page.get_by_role("main"))
    expect(panel.get_by_role("textbox", name="Link")).to_have_value(f"{live_server.url}/{lab.slug}")
    embed = panel.get_by_role("textbox", name="Embed code")
    expect(embed).to_have_value(re.compile("^<iframe "))
    snippet = embed.input_value()
    assert snippet_src(snippet) == f"{live_server.url}/embed/{lab.slug}"
    assert f'title="{lab.title}"' in snippet
    assert 'width="100%"' in snippet and 'loading="lazy"' in snippet


def test_copy_link_and_embed_code_put_them_on_the_clipboard_and_say_so(page: Page, live_server):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page.goto(f"{live_server.url}/queue")
    panel = open_share(page.get_by_role("main"))
    status = panel.get_by_role("status")
    panel.get_by_role("button", name="Copy link").click()
    expect(status).to_have_text("Link copied")
    assert page.evaluate("navigator.clipboard.readText()") == f"{live_server.url}/queue"
    panel.get_by_role("button", name="Copy embed code").click()
    expect(status).to_have_text("Embed code copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert f'src="{live_server.url}/embed/queue"' in copied and 'title="Queue lab"' in copied


def test_a_refused_clipboard_leaves_the_text_selected_and_says_to_copy_it(page: Page, live_server):
    # Both ways of copying refused, as a browser without permission would.
    page.add_init_script(
        """
        Object.defineProperty(navigator, "clipboard", {value: {writeText: () => Promise.reject(new Error("no"))}})
        document.execCommand = () => false
        """
    )
    page.goto(f"{live_server.url}/roofline")
    panel = open_share(page.get_by_role("main"))
    panel.get_by_role("button", name="Copy link").click()
    expect(panel.get_by_role("status")).to_contain_text("Select the text and copy it")
    link = panel.get_by_role("textbox", name="Link")
    expect(link).to_be_focused()
    selected = link.evaluate("field => field.value.slice(field.selectionStart, field.selectionEnd)")
    assert selected == f"{live_server.url}/roofline"


def test_escape_closes_the_panel_and_focus_returns_to_share(page: Page, live_server):
    page.goto(f"{live_server.url}/lab?id=timeline")
    main = page.get_by_role("main")
    panel = open_share(main)
    # /lab?id=… shares the short address
    expect(panel.get_by_role("textbox", name="Link")).to_have_value(f"{live_server.url}/timeline")
    panel.get_by_role("button", name="Copy embed code").focus()
    page.keyboard.press("Escape")
    share = main.get_by_role("button", name="Share", exact=True)
    expect(panel).to_be_hidden()
    expect(share).to_have_attribute("aria-expanded", "false")
    assert is_focused(share)
    page.keyboard.press("Enter")  # opens again from the keyboard
    expect(panel).to_be_visible()


def test_each_exercise_card_shares_its_own_link_and_embed_code(page: Page, live_server):
    lesson = lessons()[0]
    page.goto(f"{live_server.url}/lesson?id={lesson.slug}")
    cards = page.get_by_role("region", name=re.compile("^Exercise: "))
    expect(cards).to_have_count(len(lesson.exercises))
    region = page.get_by_role("region", name=EXERCISE)
    expect(region.get_by_role("button", name="Share", exact=True)).to_have_count(1)
    panel = open_share(region)
    link = f"{live_server.url}/lesson?id=overlap&exercise=growth"
    expect(panel.get_by_role("textbox", name="Link")).to_have_value(link)
    snippet = panel.get_by_role("textbox", name="Embed code").input_value()
    assert snippet_src(snippet) == f"{live_server.url}/embed/lesson?id=overlap&exercise=growth"
    assert f'title="{EXERCISE}"' in snippet
    assert "&amp;exercise=growth" in snippet  # the & escaped in the attribute
    # One card's panel: the others stay closed.
    expect(page.get_by_role("button", name="Share", exact=True, expanded=True)).to_have_count(1)
    # The shared link opens the lesson at that exercise, started.
    page.goto(link)
    expect(page.get_by_role("region", name=EXERCISE).get_by_role("textbox", name="Your prediction")).to_be_visible()
    # The embed code's address opens that exercise alone, started, with no Share of its own.
    page.goto(snippet_src(snippet))
    region = page.get_by_role("region", name=EXERCISE)
    expect(region.get_by_role("textbox", name="Your prediction")).to_be_visible()
    expect(page.get_by_role("region", name=re.compile("^Exercise: "))).to_have_count(1)
    expect(page.get_by_role("button", name="Share", exact=True)).to_have_count(0)


def test_escape_in_a_card_closes_its_panel_and_focus_returns_to_its_share(page: Page, live_server):
    page.goto(f"{live_server.url}/lesson?id=overlap")
    region = page.get_by_role("region", name=EXERCISE)
    panel = open_share(region)
    panel.get_by_role("textbox", name="Link").focus()
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    assert is_focused(region.get_by_role("button", name="Share", exact=True))


def test_an_embed_page_has_no_share_button(page: Page, live_server):
    page.goto(f"{live_server.url}/embed/queue")
    expect(page.get_by_role("region", name="Queue lab").get_by_role("status").first).to_contain_text("t = ")
    expect(page.get_by_role("button", name="Share")).to_have_count(0)


@pytest.mark.parametrize(("path", "scope"), [("/queue", None), ("/lesson?id=overlap", EXERCISE)])
def test_on_a_phone_the_open_share_panel_fits_the_screen(phone: Page, live_server, path, scope):
    phone.goto(live_server.url + path)
    where = phone.get_by_role("region", name=scope) if scope else phone.get_by_role("main")
    panel = open_share(where)
    panel.scroll_into_view_if_needed()
    for name in ("Copy link", "Copy embed code"):
        button = panel.get_by_role("button", name=name).bounding_box()
        assert button is not None and button["width"] >= 44 and button["height"] >= 44, (name, button)
    found = panel.bounding_box()
    assert found is not None and found["x"] >= 0 and found["x"] + found["width"] <= 375, found
    widths = phone.evaluate(
        """() => ({page: document.documentElement.scrollWidth, main: document.getElementById("main").scrollWidth,
                  mainBox: document.getElementById("main").clientWidth})"""
    )
    assert widths["page"] <= 375 and widths["main"] <= widths["mainBox"], widths  # no sideways scrolling


def test_a_lab_link_carries_the_labs_settings_and_share_opens_over_the_picture(page: Page, live_server):
    """Issue 63: Share gave plain /queue whatever was set, and its panel pushed the picture 235 px down."""
    page.goto(f"{live_server.url}/queue?arrival_rate=3&service_rate=abc&not_a_control=1")
    lab = page.get_by_role("region", name="Queue lab")
    expect(lab.get_by_role("textbox", name="Arrival rate λ")).to_have_value("3")  # from the link
    expect(lab.get_by_role("textbox", name="Service rate μ")).to_have_value("2")  # refused: kept
    expect(page.get_by_role("alert").filter(has_text="cannot take")).to_contain_text("Service rate μ: 'abc'")
    picture = lab.get_by_role("img").first
    before = picture.bounding_box()
    panel = open_share(page.get_by_role("main"))
    assert picture.bounding_box() == before, "the open panel moved the picture"
    expect(panel.get_by_role("textbox", name="Link")).to_have_value(f"{live_server.url}/queue?arrival_rate=3")
    page.keyboard.press("Escape")
    box = lab.get_by_role("textbox", name="Service rate μ")
    box.fill("5")
    box.press("Enter")
    expect(box).to_have_value("5")
    shared = f"{live_server.url}/queue?arrival_rate=3&service_rate=5"
    panel = open_share(page.get_by_role("main"))
    expect(panel.get_by_role("textbox", name="Link")).to_have_value(shared)
    assert snippet_src(panel.get_by_role("textbox", name="Embed code").input_value()) == shared.replace(
        "/queue?", "/embed/queue?"
    )
    page.goto(shared)
    expect(lab.get_by_role("textbox", name="Service rate μ")).to_have_value("5")
    expect(lab.get_by_role("textbox", name="Arrival rate λ")).to_have_value("3")
    expect(page.get_by_role("alert").filter(has_text="cannot take")).to_have_count(0)
