"""Lesson Markdown rendered through markdown-it-py's public API, as Panel's Markdown pane renders it (issue 66)."""

from __future__ import annotations

import html
from pathlib import Path

import panel as pn

from app.course.lesson_text import prose_html
from app.course.library import lessons
from app.course.markdown_html import render

GOLDEN = Path(__file__).parent / "golden"


def test_a_sample_of_every_feature_the_lessons_use_renders_as_it_did():
    """The golden HTML was Panel 1.9.4's pane's (headings' anchors, tables, task lists, footnotes, code)."""
    sample = (GOLDEN / "prose_sample.md").read_text(encoding="utf-8")
    assert render(sample) == (GOLDEN / "prose_sample.html").read_text(encoding="utf-8")
    assert prose_html(sample) == render(sample)


def test_every_lessons_prose_is_what_panels_markdown_pane_makes_of_it():
    """Parity with the pane the page used to call (a test may reach Panel's private method; the app does not)."""
    texts = [part for lesson in lessons() for part in lesson.parts if isinstance(part, str)]
    assert texts
    for text in texts:
        assert render(text) == html.unescape(pn.pane.Markdown()._transform_object(text)["object"]), text[:80]
