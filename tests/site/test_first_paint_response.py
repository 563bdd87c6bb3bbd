"""Issue 64: a page's text is in the HTML the server sends (the first paint), before any script runs.

Read from ``python -m app``'s responses, without a browser: the index's course list, a lesson's prose
and each exercise's question, and each lab page's first frame, all inside ``#first-paint`` and in the
order the live page shows them.
"""

from __future__ import annotations

import re
import urllib.request
from html.parser import HTMLParser

import pytest

from app.course.content import load_lessons
from app.course.progress import ProgressStore
from app.site.pages.lesson import lesson_view
from labs.registry import registrations


class FirstPaint(HTMLParser):
    """The text inside ``<div id="first-paint">`` (styles and scripts left out), and its ``data-until``."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.skipping = False
        self.until: str | None = None
        self.words: list[str] = []
        self.frames = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if self.depth == 0 and tag == "div" and values.get("id") == "first-paint":
            self.depth, self.until = 1, values.get("data-until")
            return
        if self.depth:
            self.depth += tag not in ("img", "br", "hr", "input", "meta", "link")
            self.skipping = tag in ("style", "script")
            self.frames += "lab-frame" in (values.get("class") or "").split()

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1
            self.skipping = False

    def handle_data(self, data: str) -> None:
        if self.depth and not self.skipping:
            self.words.append(data)

    @property
    def text(self) -> str:
        return re.sub(r"\s+", " ", "".join(self.words))


def first_paint(url: str) -> FirstPaint:
    with urllib.request.urlopen(url, timeout=60) as reply:
        body = reply.read().decode("utf-8")
    parsed = FirstPaint()
    parsed.feed(body)
    assert parsed.until is not None, f"{url} has no first paint"
    return parsed


def plain(markdown_line: str) -> str:
    """A Markdown sentence's words as the rendered page has them (no emphasis marks or link targets)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown_line)
    return re.sub(r"\s+", " ", re.sub(r"[*_`]", "", text)).strip()


def test_the_index_sends_its_course_list(live_server):
    paint = first_paint(live_server.url + "/")
    assert paint.until == ""
    for lesson in load_lessons():
        assert lesson.title in paint.text
        for exercise in lesson.exercises:
            assert exercise.title in paint.text
    for lab in registrations():
        assert lab.title in paint.text


@pytest.mark.parametrize("lesson", load_lessons(), ids=lambda lesson: lesson.slug)
def test_a_lesson_sends_its_prose_and_every_question_in_order(live_server, lesson):
    paint = first_paint(f"{live_server.url}/lesson?id={lesson.slug}")
    assert paint.until == "lesson"
    assert paint.text.count(lesson.title) >= 1
    places = []
    for exercise in lesson.exercises:
        places.append(paint.text.find(f"Exercise: {exercise.title}"))
        assert exercise.prompt in paint.text
    assert -1 not in places and places == sorted(places)
    paragraph = next(
        line for part in lesson.parts if isinstance(part, str) for line in part.splitlines() if len(line) > 80
    )
    assert plain(paragraph)[:60] in paint.text
    assert paint.frames >= 1  # the lesson's lab, beside the text on a wide screen
    assert "Start this exercise" not in paint.text  # nothing that looks usable before the scripts run


@pytest.mark.parametrize("lesson", load_lessons()[:2], ids=lambda lesson: lesson.slug)
def test_a_lessons_prose_is_marked_with_the_digest_its_live_text_sends_in_its_place(live_server, lesson):
    with urllib.request.urlopen(f"{live_server.url}/lesson?id={lesson.slug}", timeout=60) as answer:
        page = answer.read().decode("utf-8")
    marks = re.findall(r'data-prose-key="([0-9a-f]+)" data-prose="(\d+)"', page)
    text = lesson_view(lesson, None, ProgressStore(), None).objects[0]
    assert text.prose_key and not any(text.prose), "the session's document carries the digest, not the prose"
    assert marks == [(text.prose_key, str(index)) for index in range(len(text.prose_parts))]


@pytest.mark.parametrize("lab", registrations(), ids=lambda lab: lab.slug)
def test_a_lab_page_sends_its_heading_and_first_frame(live_server, lab):
    paint = first_paint(f"{live_server.url}/{lab.slug}")
    assert paint.until == "lab"
    assert lab.title in paint.text and paint.frames >= 1
