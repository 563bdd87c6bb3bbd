"""Every page under its Content-Security-Policy in a real Chromium: it loads, works, and breaks no rule of it.

The server runs with the class on (so /instructor has its sign-in) and ``--embed-from`` naming one
site. Each page is opened with a listener for the ``securitypolicyviolation`` events Chromium fires
for anything the policy refuses (a script without the nonce, an ``eval`` not allowed, a fetch
elsewhere), then used: a lab's Step and Play (Play runs Bokeh's ``CustomJS`` in the browser), a
lesson's exercise and its lab, the trace page's dropped files, the instructor's sign-in. The watched
page (tests/conftest.py) also fails the test on any console error (Chromium logs each refusal there)
or page error, and on a traceback in the server's log.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, Response, expect

from app.course.catalog import lab_kinds
from app.course.content import load_lessons
from devtools.ports import free_port
from labs.registry import registrations
from tests.conftest import LiveServer, serve, watched_page
from tests.student import open_lab, reading, wait_until

pytestmark = pytest.mark.browser

TOKEN = "a-test-token-for-the-security-headers"
SITE = "https://course.example.edu"
LESSONS = load_lessons()
LABS = list(registrations())
GLOO = [Path(__file__).parents[1] / "fixtures" / "traces" / f"gloo_schedule_rank{rank}.json.gz" for rank in (0, 1)]

LISTEN = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`);
}, true);
"""
"""Runs in every document before its own scripts: keeps each CSP violation the page meets."""


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """``python -m app`` with the class on and ``--embed-from`` naming :data:`SITE`."""
    folder = tmp_path_factory.mktemp("secured")
    port = free_port()
    command = [sys.executable, "-m", "app", "--port", str(port), "--embed-from", SITE]
    command += ["--class-db", f"sqlite:///{folder / 'class.db'}"]
    server = serve(command, port, folder / "server.log", env={"INSTRUCTOR_TOKEN": TOKEN})
    yield server
    server.process.terminate()
    server.process.wait(timeout=10)


@pytest.fixture
def page(browser, secured: LiveServer, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A watched page on :func:`secured` that records every CSP violation (``window.__violations``)."""
    for new_page in watched_page(browser, secured, request, viewport={"width": 1280, "height": 900}):
        new_page.add_init_script(LISTEN)
        yield new_page


def opened(page: Page, path: str) -> Response:
    """Open ``path``; check that its answer carries a policy with a nonce and that its scripts carry that nonce."""
    response = page.goto(page.base_url + path)  # type: ignore[attr-defined]
    assert response is not None
    policy = response.headers.get("content-security-policy", "")
    nonce = re.search(r"'nonce-([A-Za-z0-9_-]+)'", policy)
    assert nonce and "script-src 'self'" in policy, policy
    assert response.headers.get("x-content-type-options") == "nosniff"
    assert response.headers.get("referrer-policy") == "same-origin"
    return response


def no_violations(page: Page) -> None:
    """The page has met no CSP violation so far (and the listener is there to say so)."""
    assert page.evaluate("window.__violations") == []


@pytest.mark.parametrize("lab", LABS, ids=[lab.slug for lab in LABS])
def test_each_lab_steps_and_plays_under_the_policy(page, lab):
    response = opened(page, f"/lab?id={lab.slug}")
    assert f"frame-ancestors 'self' {SITE}" in response.headers["content-security-policy"]
    region = open_lab(page, f"/lab?id={lab.slug}", lab.title)
    clock = "device time" if lab.slug == "roofline" else "t"
    before = reading(region, clock)
    region.get_by_role("button", name="Step").click()
    wait_until(lambda: reading(region, clock) > before)
    region.get_by_role("button", name="Play").click()  # Bokeh's CustomJS, compiled in the browser
    expect(region.get_by_role("button", name="Pause")).to_be_visible()
    playing = reading(region, clock)
    wait_until(lambda: reading(region, clock) > playing)
    region.get_by_role("button", name="Pause").click()
    expect(region.get_by_role("button", name="Play")).to_be_visible()
    no_violations(page)


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.slug for lesson in LESSONS])
def test_each_lesson_opens_an_exercise_under_the_policy(page, lesson):
    exercise = lesson.exercises[0]
    opened(page, f"/lesson?id={lesson.slug}&exercise={exercise.id}")
    region = page.get_by_role("region", name=f"Exercise: {exercise.title}")
    expect(region).to_be_visible()
    lab = page.get_by_role("region", name=lab_kinds()[exercise.lab].title)
    expect(lab.get_by_role("status").first).to_contain_text(re.compile("=|Load the sample trace"))
    if exercise.choices:
        region.get_by_role("group", name="Your prediction").get_by_role("radio").first.check()
    else:
        region.get_by_role("textbox", name="Your prediction").fill("1")
    region.get_by_role("button", name="Lock prediction").click()
    expect(lab.get_by_role("button", name="Step")).to_be_enabled()  # the lab runs once the prediction is locked
    before = reading(lab, "t")
    lab.get_by_role("button", name="Step").click()
    wait_until(lambda: reading(lab, "t") > before)
    no_violations(page)


def test_the_index_leads_to_a_lab_under_the_policy(page):
    opened(page, "/")
    no_violations(page)
    page.get_by_role("link", name=LABS[0].title).first.click()
    expect(page.get_by_role("region", name=LABS[0].title).get_by_role("status").first).to_contain_text("=")
    no_violations(page)


def test_the_trace_page_reads_dropped_files_under_the_policy(page):
    opened(page, "/trace")
    page.get_by_role("group", name="Trace file").locator("input[type=file]").set_input_files([str(p) for p in GLOO])
    trace = page.get_by_role("region", name="Trace")
    expect(trace.get_by_role("table", name=re.compile("^Buckets of"))).to_be_visible()
    no_violations(page)


def test_the_instructor_signs_in_under_the_policy_and_no_site_frames_it(page):
    response = opened(page, "/instructor")
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert response.headers.get("x-frame-options") == "DENY"
    page.get_by_role("textbox", name="Instructor token").fill("not-the-token")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("not the instructor token")
    page.get_by_role("textbox", name="Instructor token").fill(TOKEN)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("region", name="Class results")).to_be_visible()
    no_violations(page)


def test_an_embedded_lab_steps_under_the_policy_framed_as_before(page):
    response = opened(page, f"/embed/{LABS[0].slug}")
    assert f"frame-ancestors {SITE}" in response.headers["content-security-policy"]
    assert "x-frame-options" not in response.headers
    region = page.get_by_role("region", name=LABS[0].title)
    expect(region.get_by_role("status").first).to_contain_text("=")
    before = reading(region, "t")
    region.get_by_role("button", name="Step").click()
    wait_until(lambda: reading(region, "t") > before)
    no_violations(page)


def test_a_404_page_is_under_the_policy(page):
    page.expects_404 = True  # type: ignore[attr-defined]
    response = opened(page, "/no/such/page")
    assert response.status == 404
    expect(page.get_by_role("alert")).to_contain_text("There is no page at")
    page.get_by_role("link", name="← All lessons and labs").click()
    expect(page.get_by_role("link", name=LABS[0].title).first).to_be_visible()
    no_violations(page)
