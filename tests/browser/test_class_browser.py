"""Peer instruction in real Chromium: students lock predictions, the instructor sees them, reveals, opens a round.

A server of its own with a class database (SQLite) and an instructor token. Two students (two
browser contexts, so two anonymous ids) and one instructor, each found by role and name. Before the
reveal nothing about the class reaches a student's page: not on the page and not on its websocket.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from app.course.content import load_lessons
from labs.queue.model import QueueModel
from labs.timed import format_number
from tests.conftest import PHONE, LiveServer, serve_with_class
from tests.student import step_until, type_value

pytestmark = pytest.mark.browser

TOKEN = "a-test-token-for-the-class"
LESSON = next(lesson for lesson in load_lessons() if lesson.slug == "overlap")
EXERCISE = LESSON.exercise("growth")


@pytest.fixture(scope="module")
def class_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from serve_with_class(tmp_path_factory, "class", TOKEN)


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
    answer = EXERCISE.with_unit(f"{EXERCISE.answer:g}")
    expect(status).to_contain_text(f"locked = 2 · round 1 · answer {answer} (revealed)")
    expect(a).to_contain_text("class: 2 locked · 1 of 2 (50%): right, within ±")  # the page polls and shows it
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
    expect(a).to_contain_text("You already shared a prediction in round 2 (1 work unit per second); it stays")
    expect(status).to_contain_text("locked = 1 · round 2")

    with page.expect_download() as download:
        results.get_by_role("button", name="Export CSV").click()
    csv = download.value.path().read_text()
    assert csv.splitlines()[0] == "exercise,round,student,prediction,locked_at,variant,class"
    assert csv.count(f"{LESSON.slug}/{EXERCISE.id},") == 3 and TOKEN not in csv

    for visitor in (instructor, first, second):
        assert not visitor.errors, visitor.errors
        visitor.context.close()
    log = class_server.log.read_text()
    assert "Traceback" not in log
    # the page's failed sign-in, logged with the address of the session's client (never what was typed)
    assert re.search(r"instructor sign-in failed from (127\.0\.0\.1|::1) on /instructor$", log, re.MULTILINE)
    assert "not the token" not in log


SPLIT_EXERCISE = next(e for e in LESSON.exercises if e.id != EXERCISE.id and e.lab == "queue" and e.mistakes)
"""A numeric queue exercise other than the first test's (whose rounds that test has used)."""


def test_a_class_of_twelve_the_instructor_sees_the_misconception_and_students_after_the_reveal(browser, class_server):
    """Eight lock the answer and four the exercise's first named mistake; the instructor sees its label and 4 of 12."""
    import json
    import urllib.request

    mistake = SPLIT_EXERCISE.mistakes[0]
    instructor = Visitor(browser, class_server)  # open before the class votes, as in a lecture
    page = instructor.page
    page.goto(class_server.url + "/instructor")
    page.get_by_role("textbox", name="Instructor token").fill(TOKEN)
    page.get_by_role("button", name="Sign in").click()
    results = page.get_by_role("region", name="Class results")
    expect(results.get_by_role("combobox", name="Exercise")).to_be_enabled()
    results.get_by_role("combobox", name="Exercise").select_option(label=f"{LESSON.title}: {SPLIT_EXERCISE.title}")
    status = results.get_by_role("status").first
    expect(status).to_contain_text("locked = 0 · round 1 · answer hidden")

    path = f"/lesson?id={LESSON.slug}&exercise={SPLIT_EXERCISE.id}"
    received: list[str] = []
    kept = []  # one student of each kind stays for the reveal
    for n in range(12):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        student = context.new_page()
        student.on("websocket", lambda ws: ws.on("framereceived", lambda p: received.append(str(p))))
        student.goto(class_server.url + path)
        card = student.get_by_role("region", name=f"Exercise: {SPLIT_EXERCISE.title}")
        field = card.get_by_role("textbox", name="Your prediction")
        expect(field).to_be_enabled()
        field.fill(format_number(mistake.answer if n < 4 else SPLIT_EXERCISE.answer, exact=True))
        card.get_by_role("button", name="Lock prediction").click()
        expect(card).to_contain_text("Shared anonymously with the instructor (round 1).")
        if n in (0, 4):
            kept.append((context, card))
        else:
            context.close()
    (first, mine), (fifth, right) = kept

    expect(status).to_contain_text("locked = 12 · round 1 · answer hidden")  # live, from the database
    expect(results).to_contain_text("hidden until you reveal the round")
    expect(results).not_to_contain_text(mistake.label)
    results.get_by_role("button", name="Show the split now").click()
    by_misconception = results.get_by_role("list").filter(has_text="of 12")
    expect(by_misconception).to_contain_text(f"4 of 12 (33%): {mistake.label}")
    expect(by_misconception).to_contain_text("8 of 12 (67%): right")
    expect(results.get_by_role("button", name="Hide the split")).to_be_visible()
    expect(results.get_by_role("heading", name="Round 1: 12 locked, by misconception")).to_be_visible()
    assert not any(mistake.label in frame for frame in received)  # nothing of the split reached a student

    results.get_by_role("button", name="Reveal").click()
    expect(results.get_by_role("button", name="Hide the split")).to_have_count(0)  # shown for good
    expect(by_misconception).to_contain_text(f"4 of 12 (33%): {mistake.label}")
    expect(mine).to_contain_text(f"4 of 12 (33%): {mistake.label}")  # the page polls and shows it
    expect(mine).to_contain_text(f"({mistake.label})")  # which of them this student was
    expect(right).to_contain_text("8 of 12 (67%): right")

    request = urllib.request.Request(
        f"{class_server.url}/instructor/rounds.json?exercise={LESSON.slug}/{SPLIT_EXERCISE.id}",
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        (only,) = json.loads(reply.read())["rounds"]
    assert sorted(only["classes"]) == sorted(["right"] * 8 + [f"mistake: {mistake.label}"] * 4)
    assert not instructor.errors, instructor.errors
    for context in (first, fifth, instructor.context):
        context.close()
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


@pytest.mark.parametrize("attempt", range(3))
def test_the_instructor_signing_in_on_a_slowed_server_sees_the_class(browser, class_server, attempt):
    """Signed in while the server runs a fifth of the time, the status still leaves "Reading the class…".

    The region comes through Panel's queue of writes, which waits while the socket is busy; its first
    draw once went out on Bokeh's own path before it, the browser dropped the draw, and the status
    stayed "Reading the class…" (CI, December 2026; :func:`app.web.background._in_write_order`).
    """
    from devtools.throttle import DutyCycle

    instructor = Visitor(browser, class_server)
    page = instructor.page
    page.goto(class_server.url + "/instructor")
    token = page.get_by_role("textbox", name="Instructor token")
    expect(token).to_be_editable()
    token.fill(TOKEN)
    with DutyCycle(class_server.process.pid, share=0.2):
        page.get_by_role("button", name="Sign in").click()
        results = page.get_by_role("region", name="Class results")
        expect(results.get_by_role("status").first).to_contain_text("locked = ")
    assert not [e for e in instructor.errors if "isn't known" in e], instructor.errors
    instructor.context.close()


def test_a_prediction_far_outside_the_exercise_is_refused_where_the_student_looks(browser, class_server):
    """1e308 is refused at the lock with the range to use, in the card; nothing is locked; a sane number then is."""
    student = Visitor(browser, class_server)
    region = student.student_exercise()
    student.lock(region, "1e308")
    alert = region.get_by_role("alert")
    expect(alert).to_contain_text("Your prediction: 1e+308 is far outside what this exercise can give; type a number")
    expect(region.get_by_role("textbox", name="Your prediction")).to_be_enabled()  # not locked: typed again
    expect(region).not_to_contain_text("Shared anonymously")
    student.lock(region, "1")
    expect(region).to_contain_text("Shared anonymously with the instructor (round")
    expect(alert).to_have_count(0)
    assert not student.errors, student.errors
    student.context.close()


DOCK_EXERCISE = next(e for e in LESSON.exercises if e.lab == "timeline" and not e.choices)
"""An exercise no other test here shares with the class (each has its own rounds)."""


def test_a_docked_student_on_a_phone_sees_the_reveal_and_the_new_round(browser, class_server):
    """Issue 63: the class's result and a new round went to the card above the dock, off screen."""
    instructor = Visitor(browser, class_server)
    page = instructor.page
    page.goto(class_server.url + "/instructor")
    page.get_by_role("textbox", name="Instructor token").fill(TOKEN)
    page.get_by_role("button", name="Sign in").click()
    results = page.get_by_role("region", name="Class results")
    results.get_by_role("combobox", name="Exercise").select_option(label=f"{LESSON.title}: {DOCK_EXERCISE.title}")
    status = results.get_by_role("status").first
    expect(status).to_contain_text("round 1 · answer hidden")

    context = browser.new_context(**PHONE)
    phone = context.new_page()
    phone.goto(f"{class_server.url}/lesson?id={LESSON.slug}&exercise={DOCK_EXERCISE.id}")
    card = phone.get_by_role("region", name=f"Exercise: {DOCK_EXERCISE.title}")
    expect(card).to_contain_text("shared anonymously with the instructor")
    card.get_by_role("textbox", name=re.compile("^Your prediction")).fill("3")
    card.get_by_role("button", name="Lock prediction").tap()
    expect(card).to_contain_text("Shared anonymously with the instructor (round 1).")
    news = card.locator(".dock-class")
    show = card.get_by_role("button", name="Show the class's result")
    expect(show).to_be_hidden()

    results.get_by_role("button", name="Reveal").click()
    expect(news).to_contain_text("class: 1 locked")
    expect(news).to_be_in_viewport()  # in the dock, on the student's screen
    show.tap()
    expect(card.locator(".class-line")).to_be_in_viewport()
    results.get_by_role("button", name="New round").click()
    expect(news).to_contain_text("Round 2 is open")
    expect(news).to_be_in_viewport()
    context.close()
    instructor.context.close()
