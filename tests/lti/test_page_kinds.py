"""A launched page's HTML is rendered once per page kind: its title must be the same for every request of that kind.

Panel answers a page request with the HTML of one cached session per key (:func:`app.site.sessions.page_key`),
built at start-up by the warm-up, without a launch code. Before the lesson was in the key, every Learner's
frame was titled "This exercise opens from your course" (the warm-up's refused page) and showed that
heading until the exercise was drawn; a Learner arriving before the warm-up gave every later Learner, of
any lesson, the title of theirs.
"""

from __future__ import annotations

import pytest
from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine

from app.course.library import lessons
from app.lti import LTI_LESSON
from app.lti import pages as lti_pages
from app.site.sessions import page_key, warm_up_paths

LAUNCHABLE = [lesson for lesson in lessons() if lesson.exercises]


def key(uri: str) -> tuple[str, str]:
    start = RequestStartLine("GET", uri, "HTTP/1.1")
    return page_key(HTTPServerRequest(start_line=start, headers=HTTPHeaders({"Host": "localhost"})))


def test_a_launched_lesson_is_keyed_by_its_lesson_and_nothing_else():
    for lesson in LAUNCHABLE:
        assert key(f"{LTI_LESSON}?id={lesson.slug}&code=abc") == (LTI_LESSON, lesson.slug)
        assert key(f"{LTI_LESSON}?id={lesson.slug}&code=other&exercise=x") == (LTI_LESSON, lesson.slug)
    made_up = {key(f"{LTI_LESSON}?id=made-up-{n}&code=abc") for n in range(5)} | {key(f"{LTI_LESSON}?code=abc")}
    assert made_up == {(LTI_LESSON, "")}, "a bounded number of keys, whatever the URL says"


def test_the_warm_up_builds_each_launchable_lesson_once():
    paths = warm_up_paths({"/": None, LTI_LESSON: None, "/lti/instructor": None})
    assert paths == ["/", *(f"{LTI_LESSON}?id={lesson.slug}" for lesson in LAUNCHABLE), "/lti/instructor"]


def built_title(monkeypatch: pytest.MonkeyPatch, query: dict[str, str], record: dict | None) -> str:
    monkeypatch.setattr(lti_pages, "query_param", query.get)
    monkeypatch.setattr(lti_pages, "redeem", lambda kind: record)
    monkeypatch.setattr(lti_pages, "current_tool", lambda: object())
    return lti_pages.build_lesson().title


def test_the_warm_ups_page_has_the_title_a_launch_of_that_lesson_gets(monkeypatch):
    lesson = LAUNCHABLE[0]
    warm = built_title(monkeypatch, {"id": lesson.slug}, None)
    assert warm == lesson.title
    assert built_title(monkeypatch, {}, None) == "This exercise opens from your course"


def test_a_code_for_another_lesson_than_the_link_names_opens_nothing(monkeypatch):
    first, second = LAUNCHABLE[0], LAUNCHABLE[1]
    record = {"kind": "learner", "lesson": second.slug, "exercise": second.exercises[0].id}
    template = None

    def build() -> object:
        nonlocal template
        template = lti_pages.build_lesson()
        return template

    monkeypatch.setattr(lti_pages, "query_param", {"id": first.slug}.get)
    monkeypatch.setattr(lti_pages, "redeem", lambda kind: record)
    monkeypatch.setattr(lti_pages, "current_tool", lambda: object())
    build()
    assert template.title == first.title
    shown = " ".join(str(getattr(part, "object", "")) for part in template.main.objects)
    assert "opens only from your course" in shown
    assert "Exercise:" not in shown
