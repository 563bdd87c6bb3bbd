"""The README's `panel serve` line serves the whole course: started exactly as written, one exercise done through it."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from app.course.content import load_lessons
from app.web.frame_headers import NO_FRAMING
from labs.registry import registrations
from tests.browser.test_page_bytes_browser import (
    assert_static_files_compressed,
    assert_websocket_deflated,
    record_responses,
    record_websocket_handshakes,
)
from tests.conftest import LiveServer, serve_readme_panel
from tests.student import type_value

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The README's command, run by a shell in the repository (so its glob expands), on a free port."""
    yield from serve_readme_panel(tmp_path_factory, "panel-serve")


def test_every_page_the_index_links_to_answers(live_server):
    paths = ["/", *(f"/lesson?id={lesson.slug}" for lesson in load_lessons())]
    paths += [f"/lab?id={lab.slug}" for lab in registrations()]
    for path in paths:
        with urllib.request.urlopen(live_server.url + path, timeout=30) as reply:
            assert reply.status == 200, path


def test_an_exercise_through_panel_serve(page):
    lesson = load_lessons()[0]
    exercise = next(e for e in lesson.exercises if e.id == "growth")
    page.goto(page.base_url + "/")
    page.get_by_role("list", name=f"Exercises in {lesson.title}").get_by_role("link", name=exercise.title).click()
    lab = page.get_by_role("region", name="Queue lab")
    region = page.get_by_role("region", name=f"Exercise: {exercise.title}")
    expect(region).to_be_visible()
    expect(lab.get_by_role("status").first).to_contain_text("=")
    steps = region.get_by_role("list", name="Steps").get_by_role("listitem")
    lab.get_by_role("button", name="Reset").click()
    expect(steps.nth(0)).to_contain_text("(done)")
    type_value(lab, "Arrival rate λ", "4")
    expect(steps.nth(1)).to_contain_text("(done)")
    type_value(lab, "Service rate μ", "3")
    expect(steps.nth(2)).to_contain_text("(done)")
    region.get_by_role("textbox", name="Your prediction").fill("1")
    region.get_by_role("button", name="Lock prediction").click()
    expect(lab.get_by_role("button", name="Step")).to_be_enabled()
    lab.get_by_role("button", name="Step").click()
    expect(lab.get_by_role("status").first).to_contain_text("t = 1.00 s")
    lab.get_by_role("button", name="Step").click()
    expect(region.get_by_role("status")).to_contain_text("Correct")


def test_the_index_links_every_lab_and_it_opens(page):
    page.goto(page.base_url + "/")
    for lab in registrations():
        page.get_by_role("link", name=lab.title).click()
        expect(page.get_by_role("region", name=lab.title)).to_be_visible()
        page.go_back()


def test_the_readme_line_sends_a_lesson_compressed_without_mathjax(page):
    """The README's line: static files compressed (app.site.panel_plugin) and the websocket deflated, as python -m
    app."""
    responses = record_responses(page)
    handshakes = record_websocket_handshakes(page)
    page.goto(page.base_url + "/lesson?id=overlap")
    expect(page.get_by_role("region", name="Queue lab").get_by_role("status").first).to_contain_text("t = ")
    assert_static_files_compressed(responses)
    assert_websocket_deflated(page, handshakes)


@pytest.mark.parametrize("path", ["/instructor/export.csv", "/instructor/rounds.json"])
def test_the_class_data_may_not_be_framed_under_panel_serve(live_server, path):
    """The plugin's data routes forbid framing themselves: panel serve runs no output transform of python -m app's.

    (The /instructor page itself is Panel's handler and gets no such header here; docs/hosting.md.)
    """
    with pytest.raises(urllib.error.HTTPError) as refused:  # the class is off (404) or the token missing (403)
        urllib.request.urlopen(live_server.url + path, timeout=30)
    assert refused.value.code in (403, 404)
    for name, value in NO_FRAMING.items():
        assert refused.value.headers.get_all(name) == [value], name
