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

from app.course.catalog import lab_kinds
from app.course.content import load_lessons
from tests.browser.test_lessons_browser import work_exercise
from tests.waiting import poll

pytestmark = pytest.mark.browser

EXERCISES = [(lesson.slug, exercise) for lesson in load_lessons() for exercise in lesson.exercises]


def asking_sentence(prompt: str) -> tuple[str, bool]:
    """The prompt's sentence that asks (the last with "?", else the last) and whether others are left."""
    sentences = [s for s in re.split(r"(?<=[.?!])\s+(?=[^a-z])", prompt.strip()) if s]
    asking = next((s for s in reversed(sentences) if "?" in s), sentences[-1])
    return asking, len(sentences) > 1


ABOVE_THE_DOCK = """(el, dock) => {
  const r = el.getBoundingClientRect()
  const main = document.getElementById("main").getBoundingClientRect()
  return r.height > 0 && r.top >= main.top - 1 && r.top < dock.getBoundingClientRect().top - 40
}"""
"""A page function of ``el`` and the dock: whether el's top is on screen, below the top bar and with
some of it showing above the dock."""

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


PLACE = """(el, offset) => {
  // Scroll the lesson (its scrolling area, #main, under the course's sticky top bar) so that ``el``'s
  // top is ``offset`` px below the bar's bottom edge (negative: under the bar); return where it is.
  const main = document.getElementById("main")
  main.scrollBy(0, el.getBoundingClientRect().top - (main.getBoundingClientRect().top + offset))
  return el.getBoundingClientRect().top - main.getBoundingClientRect().top
}"""

BELOW_THE_BAR = """(el) => {
  const r = el.getBoundingClientRect(), top = document.getElementById("main").getBoundingClientRect().top
  return r.height > 0 && r.top >= top - 0.5 && r.bottom <= innerHeight + 0.5
}"""


def test_on_a_phone_the_verdict_docks_over_the_picture_and_read_why_brings_it_below_the_top_bar(phone: Page):
    """Issue 63: the verdict could land under the fixed top bar, and never shared the screen with the picture.

    Now the card stays docked at the verdict (a line in the dock, the finished picture above it); "Read
    why" hands the card back and brings its verdict below the bar, even from a page scrolled so that the
    verdict's place was under the bar.
    """
    slug, growth = next((slug, e) for slug, e in EXERCISES if e.id == "growth")
    phone.goto(f"{phone.base_url}/lesson?id={slug}&exercise=growth")  # type: ignore[attr-defined]
    card = phone.get_by_role("region", name=f"Exercise: {growth.title}")
    lab = phone.get_by_role("region", name="Queue lab")
    card.get_by_role("button", name="Set up the lab").tap()
    expect(card.get_by_role("button", name="Set up the lab")).to_be_hidden()
    card.get_by_role("textbox", name=re.compile("^Your prediction")).fill("1")
    card.get_by_role("button", name="Lock prediction").tap()
    expect(lab.get_by_role("button", name="Play")).to_be_enabled()
    verdict = card.get_by_role("status").first
    assert verdict.evaluate(PLACE, -30) == pytest.approx(-30, abs=1)
    lab.get_by_role("button", name="Play").evaluate("button => button.click()")  # no scroll to it
    expect(verdict).not_to_be_empty()
    docked = card.locator(".dock-verdict")
    expect(docked).to_have_text(verdict.inner_text().strip())
    expect(docked).to_be_in_viewport()
    expect(lab.get_by_role("img").first).to_be_in_viewport()  # the finished picture shares the screen
    card.get_by_role("button", name="Read why").tap()
    poll(lambda: verdict.evaluate(BELOW_THE_BAR), page=phone, what="the verdict below the top bar")
    expect(verdict).to_be_focused()
    expect(card.get_by_role("button", name="Read why")).to_be_hidden()


def test_on_a_phone_the_sample_traces_verdict_docks_beside_its_picture(phone: Page):
    """Issue 63: the sample trace's lab is drawn anew as it loads, so the browser's scroll anchoring lost it
    and the explanation drawn in the card above pushed its finished picture off the screen (2 of 4 runs).
    At the verdict the picture is brought back above the dock."""
    slug, exercise = next((slug, e) for slug, e in EXERCISES if e.id == "late-rank-in-a-trace")
    phone.goto(f"{phone.base_url}/lesson?id={slug}")  # type: ignore[attr-defined]
    card = phone.get_by_role("region", name=f"Exercise: {exercise.title}")
    card.get_by_role("button", name="Start this exercise").tap()
    lab = phone.get_by_role("region", name=lab_kinds()["trace"].title)
    expect(card.get_by_role("button", name="Lock prediction")).to_be_visible()
    work_exercise(lab, card, exercise, exercise.answer, use_play=True)  # its steps as written: Reset first
    docked = card.locator(".dock-verdict")
    expect(docked).to_contain_text("Correct")
    readout = lab.get_by_role("status").first  # the loaded trace's figures, over its picture
    expect(readout).to_contain_text("ranks = 2")
    poll(
        lambda: readout.evaluate(ABOVE_THE_DOCK, card.locator(".dock").element_handle()),
        page=phone,
        what="the loaded trace's figures and picture on screen above the dock",
    )
