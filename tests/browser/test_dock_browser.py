"""On a phone the docked card asks the whole question: the sentence that asks is never cut.

The dock (the running exercise's question, next step and prediction at the bottom of a phone's screen)
keeps little room, so it shows the prompt's asking sentence whole and folds the situation before it
behind "Show the whole question", a disclosure button with its state (issue 63: the dock cut the
question to three lines in 4 of 7 phone exercises, and the cut part was the question).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from app.course.content import load_lessons
from tests.waiting import poll

pytestmark = pytest.mark.browser

EXERCISES = [(lesson.slug, exercise) for lesson in load_lessons() for exercise in lesson.exercises]


def asking_sentence(prompt: str) -> tuple[str, bool]:
    """The prompt's sentence that asks (the last with "?", else the last) and whether others are left."""
    sentences = [s for s in re.split(r"(?<=[.?!])\s+(?=[^a-z])", prompt.strip()) if s]
    asking = next((s for s in reversed(sentences) if "?" in s), sentences[-1])
    return asking, len(sentences) > 1


WHOLE_ON_SCREEN = """(el) => {
  const r = el.getBoundingClientRect()
  return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && el.scrollHeight <= el.clientHeight + 1
}"""


@pytest.mark.parametrize(("slug", "exercise"), EXERCISES, ids=[f"{slug}/{e.id}" for slug, e in EXERCISES])
def test_the_dock_shows_the_sentence_that_asks_whole(phone: Page, slug, exercise):
    phone.goto(f"{phone.base_url}/lesson?id={slug}&exercise={exercise.id}")  # type: ignore[attr-defined]
    card = phone.get_by_role("region", name=f"Exercise: {exercise.title}")
    expect(card).to_have_class(re.compile(r"\bdocked\b"))  # a deep link starts it: docked on a phone
    ask = card.locator(".dock-ask")
    asking, folded = asking_sentence(exercise.prompt)
    expect(ask).to_have_text(asking)
    poll(lambda: ask.evaluate(WHOLE_ON_SCREEN), page=phone, what="the asking sentence, whole and on screen")
    whole = card.get_by_role("button", name="Show the whole question")
    if not folded:
        expect(whole).to_be_hidden()
        return
    expect(whole).to_have_attribute("aria-expanded", "false")
    whole.tap()
    expect(whole).to_have_attribute("aria-expanded", "true")
    expect(card.locator(".dock-prompt")).to_have_text(exercise.prompt)
    whole.tap()
    expect(whole).to_have_attribute("aria-expanded", "false")
    expect(ask).to_be_visible()
