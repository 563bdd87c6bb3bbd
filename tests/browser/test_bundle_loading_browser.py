"""A lesson page's scripts in Chromium (app.web.delivery.bundle_loading): BokehJS first, the page working, a lost
bundle said."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from app.web.delivery.bundle_loading import FAILURE
from tests.waiting import poll

pytestmark = pytest.mark.browser

LESSON = "/lesson?id=overlap"
BOKEHJS = re.compile(r"/static/js/bokeh\.min\.js")
LATER = ("bokeh-widgets.min.js", "bokeh-tables.min.js", "bootstrap.bundle.min.js", "panel.min.js")
"""The bundles that run after BokehJS on a lesson page."""


def test_bokehjs_arrives_before_the_other_bundles_are_asked_for_and_the_lab_works(page):
    events: list[tuple[str, str]] = []
    page.on("request", lambda request: events.append(("asked", request.url)))
    page.on("requestfinished", lambda request: events.append(("arrived", request.url)))
    page.goto(page.base_url + LESSON)
    lab = page.get_by_role("region", name="Queue lab")
    readout = lab.get_by_role("status").first
    expect(readout).to_contain_text("t = 0.00 s")
    lab.get_by_role("button", name="Step").click()
    expect(readout).to_contain_text("t = 1.00 s")
    arrived = next(i for i, (what, url) in enumerate(events) if what == "arrived" and BOKEHJS.search(url))
    for name in LATER:
        asked = [i for i, (what, url) in enumerate(events) if what == "asked" and name in url]
        assert asked, f"{name} was never asked for"
        assert asked[0] > arrived, f"{name} was asked for before BokehJS had arrived: {events[: arrived + 1]}"


def test_a_browser_without_preload_still_gets_every_bundle_and_the_lab_works(page):
    """As a browser that does not know ``<link rel=preload>``: such a link never loads."""
    page.add_init_script("""{
      const supports = DOMTokenList.prototype.supports
      DOMTokenList.prototype.supports = function (token) { return token !== "preload" && supports.call(this, token) }
      const rel = Object.getOwnPropertyDescriptor(HTMLLinkElement.prototype, "rel")
      Object.defineProperty(HTMLLinkElement.prototype, "rel", {
        get() { return rel.get.call(this) },
        set(value) { rel.set.call(this, value === "preload" ? "unknown-to-this-browser" : value) },
      })
    }""")
    page.goto(page.base_url + LESSON)
    lab = page.get_by_role("region", name="Queue lab")
    expect(lab.get_by_role("status").first).to_contain_text("t = 0.00 s")
    lab.get_by_role("button", name="Step").click()
    expect(lab.get_by_role("status").first).to_contain_text("t = 1.00 s")


def test_the_embed_waits_for_bundles_that_arrive_after_the_page_is_parsed(page):
    """Panel's bundle held back past DOMContentLoaded: Bokeh's embed code waits for it, then the lab works."""
    held = []
    page.route(re.compile(r"/panel\.min\.js"), lambda route: held.append(route))
    page.goto(page.base_url + LESSON, wait_until="domcontentloaded")  # with parser-blocking tags: never
    poll(lambda: bool(held), page=page, what="Panel's bundle asked for")
    assert page.evaluate("typeof window.Bokeh === 'object' && !('Panel' in window.Bokeh)")
    held[0].continue_()
    lab = page.get_by_role("region", name="Queue lab")
    expect(lab.get_by_role("status").first).to_contain_text("t = 0.00 s")
    lab.get_by_role("button", name="Step").click()
    expect(lab.get_by_role("status").first).to_contain_text("t = 1.00 s")


def test_a_bundle_that_cannot_be_loaded_is_said_at_the_top_of_the_page(browser, live_server):
    context = browser.new_context()
    student = context.new_page()
    try:
        student.route(re.compile(r"/bokeh-tables\.min\.js"), lambda route: route.abort("connectionreset"))
        student.goto(live_server.url + LESSON)
        alert = student.get_by_role("main").get_by_role("alert")
        expect(alert).to_have_text(FAILURE)
        expect(student.get_by_role("region", name="Queue lab")).to_have_count(0)
    finally:
        context.close()
