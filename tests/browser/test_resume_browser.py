"""A reload on a phone brings back the running exercise: the same card, numbers, setup and lock (issue 63).

A phone discards background tabs all the time; the page used to come back at the top of the lesson
with nothing running. Now the URL names the running exercise and the tab's storage keeps the rest.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from app.course.content import load_lessons

pytestmark = pytest.mark.browser

SLUG, GROWTH = next((lesson.slug, e) for lesson in load_lessons() for e in lesson.exercises if e.id == "growth")


def test_a_reload_brings_back_new_numbers_set_up_and_locked(phone: Page):
    phone.goto(f"{phone.base_url}/lesson?id={SLUG}")  # type: ignore[attr-defined]
    card = phone.get_by_role("region", name=f"Exercise: {GROWTH.title}")
    card.get_by_role("button", name="Start this exercise").tap()
    expect(phone).to_have_url(re.compile(r"[?&]exercise=growth\b"))  # the URL names the running exercise
    card.get_by_role("button", name="Set up the lab").tap()
    field = card.get_by_role("textbox", name=re.compile("^Your prediction"))
    field.fill("1")
    card.get_by_role("button", name="Lock prediction").tap()
    lab = phone.get_by_role("region", name="Queue lab")
    lab.get_by_role("button", name="Play").tap()
    card.get_by_role("button", name="Try it with new numbers").tap()
    card.get_by_role("button", name="Set up the lab").tap()
    expect(card.get_by_role("button", name="Set up the lab")).to_be_hidden()
    name = card.get_attribute("aria-label")
    question = card.locator("h2 + p, h3 + p").first.inner_text()
    rate = lab.get_by_role("textbox", name="Arrival rate λ").input_value()
    field.fill("2.5")
    card.get_by_role("button", name="Lock prediction").tap()
    expect(field).to_be_disabled()

    phone.reload()
    card = phone.get_by_role("region", name=name)
    field = card.get_by_role("textbox", name=re.compile("^Your prediction"))
    expect(field).to_be_disabled()
    expect(field).to_have_value("2.5")
    expect(card.locator("h2 + p, h3 + p").first).to_have_text(question)
    expect(lab.get_by_role("textbox", name="Arrival rate λ")).to_have_value(rate)
    expect(lab.get_by_role("button", name="Play")).to_be_enabled()
    expect(card.get_by_role("status").first).to_be_empty()  # no verdict before the run
    expect(field).to_be_in_viewport()  # docked, on screen
    lab.get_by_role("button", name="Play").tap()
    expect(card.get_by_role("status").first).to_contain_text(re.compile("Correct|Not quite"))
