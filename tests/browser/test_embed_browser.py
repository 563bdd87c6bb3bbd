"""``/embed/<lab>`` framed by another site in Chromium, and ``/instructor`` refused to one.

The other site is a tiny page served from a second loopback address (127.0.0.2), so the frame is
cross-origin to it as a course site's would be.
"""

from __future__ import annotations

import html
import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlencode

import pytest
from playwright.sync_api import FrameLocator, Locator, Page, expect

from app.course.catalog import lab_kinds
from app.course.content import load_lessons
from devtools.ports import free_port
from tests.browser.test_lessons_browser import work_exercise
from tests.chromium import CHROMIUM, CHROMIUM_ARGS
from tests.student import reading, wait_for_reading, wait_until

pytestmark = pytest.mark.browser

EMBEDDED = next((lesson, e) for lesson in load_lessons() for e in lesson.exercises if e.lab == "queue")
"""An exercise to frame: the first on the queue lab (quick to run)."""

OTHER_SITE = "127.0.0.2"


class OtherSite:
    """A site on 127.0.0.2 serving one page per path (set in ``pages``); anything else is 404."""

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        pages = self.pages

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                body = pages.get(self.path)
                if body is None:
                    self.send_response(204 if self.path == "/favicon.ico" else 404)
                    self.end_headers()
                    return
                data = body.encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer((OTHER_SITE, free_port(OTHER_SITE)), Handler)
        self.url = f"http://{OTHER_SITE}:{self.server.server_port}"

    def framing(self, path: str, src: str, title: str) -> str:
        """Serve at ``path`` a page with one ``<iframe>`` of ``src`` called ``title``; its URL."""
        self.pages[path] = (
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A course site</title></head>'
            f'<body><h1>A course site</h1><iframe src="{html.escape(src)}" title="{html.escape(title)}" '
            'width="1200" height="800"></iframe></body></html>'
        )
        return self.url + path


@pytest.fixture(scope="module")
def other_site() -> Iterator[OtherSite]:
    site = OtherSite()
    thread = threading.Thread(target=site.server.serve_forever, daemon=True)
    thread.start()
    yield site
    site.server.shutdown()
    site.server.server_close()
    thread.join(timeout=10)


def test_another_site_frames_the_queue_lab_which_steps_plays_and_speaks(page, other_site, live_server):
    url = other_site.framing("/queue.html", f"{live_server.url}/embed/queue", "Queue lab")
    page.goto(url)
    frame = page.frame_locator('iframe[title="Queue lab"]')
    lab = frame.get_by_role("region", name="Queue lab")
    status = lab.get_by_role("status").first
    expect(status).to_contain_text("t = ")
    expect(frame.get_by_role("link", name="Open in Overlap Lab")).to_have_attribute("href", "../queue")
    expect(frame.get_by_role("heading", name="Queue lab")).to_be_visible()
    expect(frame.get_by_role("link", name="← All lessons and labs")).to_have_count(0)
    assert status.get_attribute("aria-live") == "polite"  # the readout is a live region in the frame too
    plot = lab.get_by_role("img").first  # the plot's text alternative follows Step
    described = plot.get_attribute("aria-label")
    assert described and "backlog" in described.lower(), described
    before = reading(lab, "t")
    lab.get_by_role("button", name="Step").click()
    wait_for_reading(lab, "t", before + 1)
    expect(plot).not_to_have_attribute("aria-label", described)
    lab.get_by_role("button", name="Play").click()
    expect(status).to_have_attribute("aria-busy", "true")
    wait_until(lambda: reading(lab, "t") > before + 2)  # Play advances the lab inside the frame
    lab.get_by_role("button", name="Pause").click()
    expect(status).to_have_attribute("aria-busy", "false")
    expect(lab.get_by_role("button", name="Play")).to_be_visible()


def frame_the_exercise(page: Page, other_site: OtherSite, live_server) -> tuple[FrameLocator, Locator, Locator]:
    """Open a page of the other site framing :data:`EMBEDDED`; the frame, its lab and its exercise."""
    lesson, exercise = EMBEDDED
    src = f"{live_server.url}/embed/lesson?" + urlencode({"id": lesson.slug, "exercise": exercise.id})
    page.goto(other_site.framing("/exercise.html", src, f"Exercise: {exercise.title}"))
    frame = page.frame_locator("iframe")
    lab = frame.get_by_role("region", name=lab_kinds()[exercise.lab].title)
    region = frame.get_by_role("region", name=f"Exercise: {exercise.title}")
    expect(lab.get_by_role("status").first).to_contain_text("t = ")
    return frame, lab, region


def test_another_site_frames_an_exercise_and_the_student_does_it(page, other_site, live_server):
    lesson, exercise = EMBEDDED
    frame, lab, region = frame_the_exercise(page, other_site, live_server)
    expect(frame.get_by_role("region", name=re.compile("^Exercise: "))).to_have_count(1)
    expect(frame.get_by_role("navigation", name="Lessons, end of page")).to_have_count(0)
    expect(frame.get_by_role("link", name="Open in Overlap Lab")).to_have_attribute(
        "href", "../lesson?" + urlencode({"id": lesson.slug, "exercise": exercise.id})
    )
    work_exercise(lab, region, exercise, exercise.answer, use_play=True)
    expect(region.get_by_role("status")).to_contain_text("Correct")
    # Playwright's contexts are private windows, which refuse storage to a framed page: the student is told.
    expect(region).to_contain_text("This browser keeps no progress for this page")


def test_an_embedded_exercise_keeps_progress_where_the_browser_allows_it(browser, other_site, live_server, tmp_path):
    """In a browser profile (not a private window) the framed page keeps progress across a reload."""
    options: dict = {"args": CHROMIUM_ARGS, "base_url": live_server.url}
    if CHROMIUM.exists():
        options["executable_path"] = str(CHROMIUM)
    # Chromium's own setting "Allow third-party cookies" (Chrome's default outside private windows), which
    # decides whether a framed page may use its storage: written where the profile keeps its preferences.
    preferences = tmp_path / "profile" / "Default" / "Preferences"
    preferences.parent.mkdir(parents=True)
    preferences.write_text(json.dumps({"profile": {"cookie_controls_mode": 0, "block_third_party_cookies": False}}))
    context = browser.browser_type.launch_persistent_context(tmp_path / "profile", **options)
    try:
        page = context.new_page()
        lesson, exercise = EMBEDDED
        _, lab, region = frame_the_exercise(page, other_site, live_server)
        work_exercise(lab, region, exercise, exercise.answer, use_play=False)
        expect(region.get_by_role("status")).to_contain_text("Correct")
        expect(region).not_to_contain_text("keeps no progress")
        page.reload()  # the framing page again: the frame's own storage kept the result
        _, _, region = frame_the_exercise(page, other_site, live_server)
        expect(region).to_contain_text("You got this right before")
    finally:
        context.close()


def test_a_site_framing_the_instructor_page_is_refused(browser, other_site, live_server):
    url = other_site.framing("/instructor.html", f"{live_server.url}/instructor", "Instructor")
    context = browser.new_context()
    try:
        page = context.new_page()
        # Chromium says so on the framing page's console and shows its error page in the frame.
        with page.expect_console_message(lambda message: "frame-ancestors 'none'" in message.text) as refusal:
            page.goto(url)
        assert refusal.value.type == "error"
        assert "blocked" in refusal.value.text.lower()
        assert not any(frame.url.startswith(live_server.url) for frame in page.frames[1:])
        expect(page.frame_locator('iframe[title="Instructor"]').get_by_role("button")).to_have_count(0)
    finally:
        context.close()


OTHER_LAB = [
    next(
        (lesson, e) for lesson in load_lessons() for e in lesson.exercises if e.lab != lesson.lab and e.lab != "trace"
    ),
    next((lesson, e) for lesson in load_lessons() for e in lesson.exercises if e.lab == "trace"),
]
"""Exercises on another lab than their lesson's: a lab's, and the sample trace's (a lesson-only lab)."""


@pytest.mark.parametrize(("lesson", "exercise"), OTHER_LAB, ids=[e.id for _, e in OTHER_LAB])
def test_an_embedded_exercise_on_another_lab_than_its_lessons_brings_that_lab(page, lesson, exercise):
    page.goto(page.base_url + "/embed/lesson?" + urlencode({"id": lesson.slug, "exercise": exercise.id}))
    lab = page.get_by_role("region", name=lab_kinds()[exercise.lab].title)
    # a lab's readout ("t = …"), or the sample trace's invitation until it is loaded
    expect(lab.get_by_role("status").first).to_contain_text(re.compile("=|Load the sample trace"))
    expect(page.get_by_role("region", name=lab_kinds()[lesson.lab].title)).to_have_count(0)
    expect(lab).to_contain_text("until you lock a prediction")
