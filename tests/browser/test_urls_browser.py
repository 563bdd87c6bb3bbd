"""A student who follows a broken link, in a real Chromium: the 404 page leads back, a bad exercise link says why."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from app.course.content import load_lessons
from labs.registry import registrations
from tests.conftest import LiveServer, serve_readme_panel

pytestmark = pytest.mark.browser

LESSONS = load_lessons()
NOT_FOUND_LOG = "Failed to load resource: the server responded with a status of 404 (Not Found)"


def watched_page(browser, server: LiveServer) -> Iterator[Page]:
    """Like conftest's ``page``, except that Chromium's log line for a page answered 404 is expected here.

    Chromium logs every 404 document as a console error. Only that line, for a URL the test opened
    itself (``page.expected_404``), is allowed; any other console error or page error fails the test.
    """
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.expected_404 = set()  # type: ignore[attr-defined]
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))

    def console(message) -> None:
        if message.type != "error":
            return
        if message.text == NOT_FOUND_LOG and message.location.get("url") in page.expected_404:
            return
        problems.append(f"console {message.type}: {message.text} at {message.location}")

    page.on("console", console)
    page.base_url = server.url  # type: ignore[attr-defined]
    before = server.log.read_text(errors="replace")
    yield page
    context.close()
    after = server.log.read_text(errors="replace")[len(before) :]
    assert "Traceback" not in after, f"server traceback during the test:\n{after}"
    assert not problems, "browser errors during the test:\n" + "\n".join(problems)


@pytest.fixture
def student(browser, live_server: LiveServer) -> Iterator[Page]:
    """A page on ``python -m app`` (see :func:`watched_page`)."""
    yield from watched_page(browser, live_server)


@pytest.fixture(scope="module")
def panel_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The README's ``panel serve`` command, on a free port."""
    yield from serve_readme_panel(tmp_path_factory, "panel-serve-urls")


@pytest.fixture
def panel_student(browser, panel_server: LiveServer) -> Iterator[Page]:
    """A page on ``panel serve`` (see :func:`watched_page`)."""
    yield from watched_page(browser, panel_server)


def open_not_found(page: Page, path: str) -> None:
    url = page.base_url + path  # type: ignore[attr-defined]
    page.expected_404.add(url)  # type: ignore[attr-defined]
    response = page.goto(url)
    assert response is not None and response.status == 404


def test_a_404_page_leads_back_to_the_index(student):
    open_not_found(student, "/lesson?id=%3Cscript%3Enope")
    expect(student).to_have_title("No such lesson · Overlap Lab")
    main = student.get_by_role("main")
    expect(main.get_by_role("heading", level=1)).to_have_text("No such lesson")
    expect(student.get_by_role("alert")).to_have_text("There is no lesson called <script>nope. The lessons are:")
    lessons = main.get_by_role("list", name="Lessons").get_by_role("link")
    expect(lessons).to_have_text([lesson.title for lesson in LESSONS])
    main.get_by_role("navigation", name="Course").get_by_role("link", name="All lessons and labs").click()
    expect(student).to_have_url(student.base_url + "/")  # type: ignore[attr-defined]
    expect(student.get_by_role("link", name=registrations()[0].title)).to_be_visible()


def test_a_404_page_deeper_down_still_leads_to_a_lesson(student):
    open_not_found(student, "/nope/deeper")
    expect(student.get_by_role("heading", level=1)).to_have_text("Page not found")
    student.get_by_role("list", name="Lessons").get_by_role("link", name=LESSONS[0].title).click()
    expect(student).to_have_url(student.base_url + f"/lesson?id={LESSONS[0].slug}")  # type: ignore[attr-defined]
    expect(student.get_by_role("heading", name=LESSONS[0].title, level=1)).to_be_visible()


def test_a_trailing_slash_lands_on_a_working_lab(student):
    student.goto(student.base_url + "/queue/")  # type: ignore[attr-defined]
    expect(student).to_have_url(student.base_url + "/queue")  # type: ignore[attr-defined]
    lab = student.get_by_role("region", name="Queue lab")
    expect(lab.get_by_role("status").first).to_contain_text("backlog =")


def test_an_empty_exercise_id_says_the_link_names_no_exercise(student):
    lesson = LESSONS[0]
    student.goto(student.base_url + f"/lesson?id={lesson.slug}&exercise=")  # type: ignore[attr-defined]
    expect(student.get_by_role("alert")).to_contain_text("The link names no exercise")
    expect(student.get_by_role("alert")).to_contain_text(lesson.exercises[0].id)


def test_panel_serve_says_which_lesson_or_lab_there_is_not(panel_student):
    """Without the app's own server (README): no 404 status, but the same message inside the page."""
    page = panel_student
    page.goto(page.base_url + "/lesson?id=%3Cscript%3E" + "x" * 10_240)  # type: ignore[attr-defined]
    alert = page.get_by_role("alert")
    expect(alert).to_have_text(f"There is no lesson called <script>{'x' * 32}…. The lessons are:")
    expect(page.get_by_role("list", name="Lessons").get_by_role("link")).to_have_text([x.title for x in LESSONS])
    page.goto(page.base_url + "/lab?id=nope")  # type: ignore[attr-defined]
    expect(page.get_by_role("alert")).to_have_text("There is no lab called nope. The labs are:")
    page.get_by_role("link", name=registrations()[0].title).click()
    expect(page.get_by_role("region", name=registrations()[0].title)).to_be_visible()
