"""The whole LTI 1.3 launch in Chromium: an LMS course page frames the tool, a Learner does the exercise and the
grade reaches the platform; an Instructor lands on the class's view, signed in.

The platform is tests/lti/platform.py on 127.0.0.1 (its own site); the tool is ``python -m app --lti-config …
--class-db …`` on localhost, so the frame is cross-site as in a real LMS. The browser is a profile with
third-party cookies allowed (Chrome's default outside private windows): the login cookie is set inside
the LMS's frame, ``SameSite=None; Secure``.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Browser, BrowserContext, expect

from app.course.catalog import lab_kinds
from app.course.content import load_lessons
from app.lti import DEEP_LINKING
from devtools.ports import free_port
from tests.browser.test_lessons_browser import work_exercise
from tests.chromium import CHROMIUM, CHROMIUM_ARGS
from tests.conftest import LiveServer, serve
from tests.lti.platform import INSTRUCTOR, Platform, running_platform
from tests.lti.test_endpoints import launch_through_platform
from tests.waiting import STUCK_AFTER_S, poll

pytestmark = pytest.mark.browser

LAUNCHED = next((lesson, e) for lesson in load_lessons() for e in lesson.exercises if e.lab == "queue")
"""The exercise the course links to: the first on the queue lab (quick to run)."""


@pytest.fixture(scope="module")
def lms(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Platform, LiveServer]]:
    folder = tmp_path_factory.mktemp("lti")
    port = free_port()
    with running_platform(f"http://localhost:{port}") as platform:
        config = platform.registration(folder)
        command = [
            *(sys.executable, "-m", "app", "--port", str(port)),
            *("--class-db", f"sqlite:///{folder / 'class.db'}", "--lti-config", str(config)),
        ]
        server = serve(command, port, folder / "server.log", env={"INSTRUCTOR_TOKEN": "a-token-nobody-types-here"})
        try:
            yield platform, server
        finally:
            server.process.terminate()
            server.process.wait(timeout=10)


@pytest.fixture(scope="module")
def lms_without_class(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Platform, LiveServer]]:
    """The tool with the class off (launches and scores in memory) and grades by correctness."""
    folder = tmp_path_factory.mktemp("lti-no-class")
    port = free_port()
    with running_platform(f"http://localhost:{port}") as platform:
        config = platform.registration(folder)
        command = [sys.executable, "-m", "app", "--port", str(port), "--lti-score", "correctness"]
        server = serve(command, port, folder / "server.log", env={"LTI_CONFIG": str(config)})
        try:
            yield platform, server
        finally:
            server.process.terminate()
            server.process.wait(timeout=10)


@pytest.fixture
def context(browser: Browser, tmp_path) -> Iterator[BrowserContext]:
    options: dict = {"args": CHROMIUM_ARGS, "viewport": {"width": 1400, "height": 1000}}
    if CHROMIUM.exists():
        options["executable_path"] = str(CHROMIUM)
    preferences = tmp_path / "profile" / "Default" / "Preferences"
    preferences.parent.mkdir(parents=True)
    preferences.write_text(json.dumps({"profile": {"cookie_controls_mode": 0, "block_third_party_cookies": False}}))
    made = browser.browser_type.launch_persistent_context(tmp_path / "profile", **options)
    yield made
    made.close()


def target(server: LiveServer) -> str:
    lesson, exercise = LAUNCHED
    return f"{server.url}/lesson?" + urlencode({"id": lesson.slug, "exercise": exercise.id})


def test_where_third_party_cookies_are_blocked_the_platforms_storage_carries_the_login(lms, browser):
    """A private window refuses the tool's cookie in the LMS's frame: the launch then needs platform storage.

    Every wait is on what the pages show (the refusal, the platform page's message count, the exercise),
    each bounded by ``STUCK_AFTER_S``; the platform's listener is in place before its frame loads.
    """
    platform, server = lms
    _lesson, exercise = LAUNCHED
    context = browser.new_context(viewport={"width": 1400, "height": 1000})  # a private window
    context.set_default_timeout(STUCK_AFTER_S * 1000)  # a stuck page fails the test, never hangs it
    try:
        page = context.new_page()
        platform.prepare("learner-4", platform.claims(sub="lms-user-4", target=target(server)))
        page.goto(f"{platform.url}/course?hint=learner-4")  # no storage offered: the cookie alone, dropped
        frame = page.frame_locator("iframe[title='Overlap Lab']")
        expect(frame.get_by_role("alert")).to_contain_text("login cookie is missing")
        expect(frame.get_by_role("region", name=re.compile("^Exercise: "))).to_have_count(0)

        platform.prepare("learner-5", platform.claims(sub="lms-user-5", target=target(server)))
        page.goto(f"{platform.url}/course?hint=learner-5&storage=1")
        frame = page.frame_locator("iframe[title='Overlap Lab']")
        lab = frame.get_by_role("region", name=lab_kinds()[exercise.lab].title)
        # The platform's page counts the messages it answered: the login put, then got (bounded, on state).
        used = "window.PLATFORM_STORAGE_USED || 0"
        poll(lambda: page.evaluate(used) == 2, page=page, what="the platform's page answering the login's put and get")
        expect(frame.get_by_role("region", name=f"Exercise: {exercise.title}")).to_be_visible()
        expect(frame.get_by_role("alert")).to_have_count(0)  # launched, and not refused
        expect(lab.get_by_role("status").first).to_contain_text("t = ")
        assert not platform.refused, platform.refused
    finally:
        context.close()


def test_a_learner_launched_from_the_course_does_the_exercise_and_the_grade_goes_back(lms, context):
    platform, server = lms
    lesson, exercise = LAUNCHED
    platform.prepare("learner-1", platform.claims(sub="lms-user-1", target=target(server), context="course-A"))
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{platform.url}/course?hint=learner-1")
    frame = page.frame_locator("iframe[title='Overlap Lab']")
    region = frame.get_by_role("region", name=f"Exercise: {exercise.title}")
    lab = frame.get_by_role("region", name=lab_kinds()[exercise.lab].title)
    expect(lab.get_by_role("status").first).to_contain_text("t = ")
    expect(frame.get_by_role("region", name=re.compile("^Exercise: "))).to_have_count(1)  # that one, started
    expect(frame.get_by_role("textbox", name="Instructor token")).to_have_count(0)
    work_exercise(lab, region, exercise, exercise.answer, use_play=False)
    expect(region.get_by_role("status").first).to_contain_text("Correct")
    expect(region).to_contain_text("Shared anonymously with the instructor")
    expect(frame.get_by_text("Sent to your course.")).to_be_visible()
    tool_frame = next(f for f in page.frames if f.url.startswith(f"{server.url}/lti/lesson"))
    poll(lambda: tool_frame.title() == lesson.title, page=page, what="the frame titled by the launched lesson")
    poll(lambda: platform.scores, what="the platform's score endpoint receiving the score")
    (score,) = platform.scores
    assert score["userId"] == "lms-user-1" and score["lineitem"] == "1"
    assert score["scoreGiven"] == 1 and score["scoreMaximum"] == 1
    assert score["activityProgress"] == "Completed" and score["gradingProgress"] == "FullyGraded"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", score["timestamp"])
    assert not platform.refused, platform.refused
    log = server.log.read_text()
    assert "lms-user-1" not in log and "Traceback" not in log
    assert not errors, errors

    # The instructor of that course, launched from it: the class's view, signed in, with the learner's vote.
    teacher = {"sub": "lms-teacher", "roles": (INSTRUCTOR,), "target": target(server)}
    platform.prepare("teacher-1", platform.claims(**teacher, context="course-A", roster=True))
    page.goto(f"{platform.url}/course?hint=teacher-1")
    frame = page.frame_locator("iframe[title='Overlap Lab']")
    results = frame.get_by_role("region", name="Class results")
    expect(results).to_be_visible()
    expect(frame.get_by_role("textbox", name="Instructor token")).to_have_count(0)
    expect(results).to_contain_text("locked = 1 · round 1")
    expect(frame.get_by_text("Your course's roster: 3 students.")).to_be_visible()  # Names and Roles, beside it
    assert not errors, errors

    # Another LMS course's instructor sees its own class: nobody has locked there.
    platform.prepare("teacher-2", platform.claims(**teacher, context="course-B"))
    page.goto(f"{platform.url}/course?hint=teacher-2")
    results = page.frame_locator("iframe[title='Overlap Lab']").get_by_role("region", name="Class results")
    expect(results).to_contain_text("locked = 0 · round 1")
    page.close()


def test_the_launch_pages_open_nothing_without_a_launch(lms, context):
    platform, server = lms
    page = context.new_page()
    claims = platform.claims(sub="lms-user-3", target=target(server))
    launched = launch_through_platform(platform, server.url, "learner-3", claims)  # a Learner's real code
    assert launched.status_code == 303 and launched.headers["Location"].startswith("lesson?id=")
    learners_code = launched.headers["Location"].removeprefix("lesson")
    for path in (
        "/lti/instructor",
        "/lti/instructor?code=made-up",
        "/lti/lesson?code=made-up",
        f"/lti/instructor{learners_code}",
    ):
        page.goto(server.url + path)
        expect(page.get_by_role("alert")).to_contain_text("opens only from your course")
        expect(page.get_by_role("region", name="Class results")).to_have_count(0)
        expect(page.get_by_role("region", name=re.compile("^Exercise: "))).to_have_count(0)
    page.close()


def test_an_instructor_adds_exercises_by_deep_linking_and_the_platform_verifies_the_answer(lms, context):
    platform, _server = lms
    platform.prepare("designer-1", platform.claims(roles=(INSTRUCTOR,), message_type=DEEP_LINKING))
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{platform.url}/course?hint=designer-1")
    frame = page.frame_locator("iframe[title='Overlap Lab']")
    expect(frame.get_by_role("heading", name="Add Overlap Lab exercises")).to_be_visible()
    lesson, exercise = LAUNCHED
    frame.get_by_role("group", name=lesson.title).get_by_role("checkbox", name=exercise.title).check()
    other = next(item for item in load_lessons() if item.exercises and item.slug != lesson.slug)
    frame.get_by_role("group", name=other.title).get_by_role("checkbox", name=other.exercises[0].title).check()
    frame.get_by_role("button", name="Add to the course").click()
    expect(frame.get_by_role("heading", name="Content added")).to_be_visible()
    (claims,) = platform.deep_link_responses
    items = claims["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert [item["custom"]["exercise"] for item in items] == [
        f"{lesson.slug}/{exercise.id}",
        f"{other.slug}/{other.exercises[0].id}",
    ]
    assert all(item["lineItem"]["scoreMaximum"] == 1 for item in items)
    assert not platform.refused, platform.refused
    assert not errors, errors
    page.close()


def test_with_the_class_off_a_wrong_prediction_sends_zero_by_correctness(lms_without_class, context):
    platform, server = lms_without_class
    lesson, exercise = LAUNCHED
    platform.prepare("learner-2", platform.claims(sub="lms-user-2", target=target(server)))
    page = context.new_page()
    page.goto(f"{platform.url}/course?hint=learner-2")
    frame = page.frame_locator("iframe[title='Overlap Lab']")
    region = frame.get_by_role("region", name=f"Exercise: {exercise.title}")
    lab = frame.get_by_role("region", name=lab_kinds()[exercise.lab].title)
    expect(lab.get_by_role("status").first).to_contain_text("t = ")
    work_exercise(lab, region, exercise, exercise.answer + 5, use_play=False)
    expect(region.get_by_role("status").first).to_contain_text("Not quite")
    expect(region).not_to_contain_text("Shared anonymously")  # no class: nothing shared
    expect(frame.get_by_text("Sent to your course.")).to_be_visible()
    (score,) = platform.scores
    assert score["scoreGiven"] == 0 and score["scoreMaximum"] == 1 and score["userId"] == "lms-user-2"

    platform.prepare("teacher-3", platform.claims(sub="t", roles=(INSTRUCTOR,), target=target(server)))
    page.goto(f"{platform.url}/course?hint=teacher-3")
    frame = page.frame_locator("iframe[title='Overlap Lab']")
    expect(frame.get_by_role("alert")).to_contain_text("The class's predictions are off on this server")
    expect(frame.get_by_role("region", name="Class results")).to_have_count(0)
    page.close()
