"""Try it with new numbers, in Chromium: a wrong verdict, new numbers in the question and the setup, a new verdict."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from app.course.content import load_lessons
from app.course.exercise_setup import SETUP_LABEL
from app.course.variants import RETRY_LABEL

pytestmark = pytest.mark.browser

LESSON, GROWTH = next((lesson, e) for lesson in load_lessons() for e in lesson.exercises if e.id == "growth" and e.vary)
RATES = re.compile(r"With λ = (\d+(?:\.\d+)?) and μ = (\d+(?:\.\d+)?)")


def test_a_wrong_verdict_then_new_numbers_changes_the_question_and_the_setup_and_judges_the_new_answer(page: Page):
    page.goto(f"{page.base_url}/lesson?id={LESSON.slug}")  # type: ignore[attr-defined]
    card = page.get_by_role("region", name=f"Exercise: {GROWTH.title}")
    lab = page.get_by_role("region", name="Queue lab")
    card.get_by_role("button", name="Start this exercise").click()
    card.get_by_role("button", name=SETUP_LABEL).click()
    expect(lab.get_by_role("textbox", name="Arrival rate λ")).to_have_value("4")
    card.get_by_role("textbox", name="Your prediction").fill("4")  # the arrival rate alone: a named mistake
    card.get_by_role("button", name="Lock prediction").click()
    lab.get_by_role("button", name="Play").click()
    verdict = card.get_by_role("status").first
    expect(verdict).to_contain_text("Not quite")
    first = RATES.search(card.get_by_text(RATES).inner_text()).groups()
    assert first == ("4", "3")

    card.get_by_role("button", name=RETRY_LABEL).click()
    expect(verdict).to_have_text("")
    question = card.get_by_text(RATES)
    expect(question).not_to_contain_text("With λ = 4 and μ = 3")
    arrival, service = RATES.search(question.inner_text()).groups()
    card.get_by_role("button", name=SETUP_LABEL).click()
    expect(lab.get_by_role("textbox", name="Arrival rate λ")).to_have_value(arrival)
    expect(lab.get_by_role("textbox", name="Service rate μ")).to_have_value(service)
    rate = float(arrival) - float(service)
    card.get_by_role("textbox", name="Your prediction").fill(f"{rate:g}")
    card.get_by_role("button", name="Lock prediction").click()
    lab.get_by_role("button", name="Play").click()
    expect(verdict).to_contain_text("Correct")
    expect(verdict).to_contain_text(f"the lab shows {rate:.2f}")
