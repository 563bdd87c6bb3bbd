"""Peer instruction in real Chromium: students lock predictions, the instructor sees them, reveals, opens a round.

A server of its own with a class database (SQLite) and an instructor token. Two students (two
browser contexts, so two anonymous ids) and one instructor, each found by role and name. Before the
reveal nothing about the class reaches a student's page: not on the page and not on its websocket.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from app.course.content import load_lessons
from devtools.ports import free_port
from labs.queue.model import QueueModel
from labs.timed import format_number
from tests.conftest import LiveServer, serve
from tests.student import step_until, type_value

pytestmark = pytest.mark.browser

TOKEN = "a-test-token-for-the-class"
LESSON = next(lesson for lesson in load_lessons() if lesson.slug == "overlap")
EXERCISE = LESSON.exercise("growth")


@pytest.fixture(scope="module")
def class_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("class")
    port = free_port()
    command = [sys.executable, "-m", "app", "--port", str(port), "--class-db", f"sqlite:///{folder / 'class.db'}"]
    server = serve(command, port, folder / "server.log", env={"INSTRUCTOR_TOKEN": TOKEN})
    yield server
    server.process.terminate()
    server.process.wait(timeout=10)


class Visitor:
    """One person's browser: a context of its own (its own localStorage, so its own anonymous id)."""

    def __init__(self, browser: Browser, server: LiveServer) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
        self.page: Page = self.context.new_page()
        self.errors: list[str] = []
        self.received: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("websocket", lambda ws: ws.on("framereceived", lambda p: self.received.append(str(p))))
        self.url = server.url

    def student_exercise(self):
        self.page.goto(f"{self.url}/lesson?id={LESSON.slug}&exercise={EXERCISE.id}")
        region = self.page.get_by_role("region", name=f"Exercise: {EXERCISE.title}")
        expect(region).to_contain_text("shared anonymously with the instructor")
        return region

    def lock(self, region, value: str) -> None:
        region.get_by_role("textbox", name="Your prediction").fill(value)
        region.get_by_role("button", name="Lock prediction").click()

    def finish(self, region) -> None:
        """Do the exercise's steps in its lab after the prediction is locked, until the verdict shows."""
        lab = self.page.get_by_role("region", name="Queue lab")
        lab.get_by_role("button", name="Reset").click()
        for step in EXERCISE.steps:
            if step.kind == "set":
                type_value(lab, QueueModel.param[step.control].label, format_number(step.value))
        expect(lab.get_by_role("button", name="Step")).to_be_enabled()
        step_until(lab, max(step.value or 0 for step in EXERCISE.steps if step.kind == "run"))
        expect(region.get_by_role("status").first).to_contain_text(re.compile("^(Correct|Not quite)"))


def try_again(region) -> None:
    """Press Try again and wait until the server has emptied and unlocked the field (typing before would be lost)."""
    region.get_by_role("button", name="Try again").click()
    field = region.get_by_role("textbox", name="Your prediction")
    expect(field).to_be_enabled()
    expect(field).to_have_value("")


def test_the_class_predicts_the_instructor_reveals_and_opens_a_new_round(browser, class_server):
    instructor, first, second = (Visitor(browser, class_server) for _ in range(3))
    page = instructor.page
    page.goto(class_server.url + "/instructor")
    token = page.get_by_role("textbox", name="Instructor token")
    token.fill("not the token")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("not the instructor token")
    expect(page.get_by_role("region", name="Class results")).to_have_count(0)
    token.fill(TOKEN)
    token.press("Enter")
    results = page.get_by_role("region", name="Class results")
    expect(results.get_by_role("combobox", name="Exercise")).to_be_enabled()  # built once the token matched
    results.get_by_role("combobox", name="Exercise").select_option(label=f"{LESSON.title}: {EXERCISE.title}")
    status = results.get_by_role("status").first
    try:
        expect(status).to_contain_text("locked = 0 · round 1 · answer hidden")
    except AssertionError as stuck:  # say what the region showed (an alert about the database?) and the log
        raise AssertionError(
            f"{stuck}\nregion: {results.inner_text()}\nserver log:\n{class_server.log.read_text()[-3000:]}"
        ) from None

    a, b = first.student_exercise(), second.student_exercise()
    first.lock(a, "1")
    expect(a).to_contain_text("Shared anonymously with the instructor (round 1).")
    second.lock(b, "7,5")
    expect(b).to_contain_text("Shared anonymously with the instructor (round 1).")
    expect(status).to_contain_text("locked = 2 · round 1 · answer hidden")  # live, from the database
    expect(results.get_by_role("table")).to_contain_text("round 1")

    assert "class:" not in a.inner_text() and "class:" not in b.inner_text()
    assert not any("class:" in frame or "locked =" in frame for frame in first.received + second.received)

    results.get_by_role("button", name="Reveal").click()
    expect(status).to_contain_text(f"locked = 2 · round 1 · answer {EXERCISE.answer:g} {EXERCISE.unit} (revealed)")
    expect(a).to_contain_text("class: 2 locked · 1 within ±")  # the page polls and shows it
    expect(b).to_contain_text("yours 7.5")

    results.get_by_role("button", name="New round").click()
    expect(status).to_contain_text("locked = 0 · round 2 · answer hidden · round 1: 2 locked")
    expect(a).to_contain_text("Round 2 is open")
    try_again(a)
    first.lock(a, "1")
    expect(a).to_contain_text("(round 2)")
    first.finish(a)  # Try again comes back once the lab has judged the prediction
    try_again(a)
    first.lock(a, "3")
    expect(a).to_contain_text("You already shared a prediction in round 2 (1 work units per second); it stays")
    expect(status).to_contain_text("locked = 1 · round 2")

    with page.expect_download() as download:
        results.get_by_role("button", name="Export CSV").click()
    csv = download.value.path().read_text()
    assert csv.splitlines()[0] == "exercise,round,student,prediction,locked_at"
    assert csv.count(f"{LESSON.slug}/{EXERCISE.id},") == 3 and TOKEN not in csv

    for visitor in (instructor, first, second):
        assert not visitor.errors, visitor.errors
        visitor.context.close()
    assert "Traceback" not in class_server.log.read_text()


def test_the_data_endpoints_refuse_without_the_token(class_server):
    import urllib.error
    import urllib.request

    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        request = urllib.request.Request(class_server.url + "/instructor/export.csv", headers=headers)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.code == 403
    request = urllib.request.Request(
        class_server.url + "/instructor/export.csv", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        assert reply.headers["Cache-Control"] == "no-store"
        assert reply.read().decode().startswith("exercise,round,student")
