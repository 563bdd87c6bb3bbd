"""The predict–play–verdict loop in Chromium, on a laptop and on a phone: no silent dead end, one view on a phone.

A student who locks a prediction and presses Play without the exercise's setup is told at once,
beside Play, which setting differs; "Set up the lab" puts the scene in place. On a phone the running
exercise's question, prediction and Lock stay docked at the bottom of the screen while the lab's
picture and time bar are above them, and the verdict is brought into view when the run ends.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from app.course.catalog import lab_kinds
from app.course.content import load_lessons
from app.course.exercise import shown_setting
from app.course.exercise_setup import SETUP_LABEL
from tests.student import REACHED_AT_MIDDLE, type_value
from tests.waiting import poll

pytestmark = pytest.mark.browser

GROWTH = next(
    (lesson, exercise)
    for lesson in load_lessons()
    for exercise in lesson.exercises
    if exercise.lab == "queue"
    and [step.kind for step in exercise.steps] == ["reset", "set", "set", "predict", "run"]
    and exercise.steps[1].control == "arrival_rate"
    and exercise.steps[1].value > 1
)
"""A queue exercise whose setup is Reset, λ (above the default 1) and μ, then Play: lesson 1's growth."""


UNCOVERED = f"""(el) => {{{REACHED_AT_MIDDLE}
  // Wholly inside the window, and what a tap at its middle reaches is inside it.
  const inside = r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth
  return inside && el.contains(hit)
}}"""


def readable(line: Locator) -> bool:
    """Whether ``line`` is wholly on screen and nothing lies over it."""
    return line.evaluate(UNCOVERED)


def start(page: Page) -> tuple[Locator, Locator]:
    """Open the lesson, start the exercise, and return its card and the queue lab."""
    lesson, exercise = GROWTH
    page.goto(f"{page.base_url}/lesson?id={lesson.slug}")  # type: ignore[attr-defined]
    card = page.get_by_role("region", name=f"Exercise: {exercise.title}")
    card.get_by_role("button", name="Start this exercise").click()
    lab = page.get_by_role("region", name="Queue lab")
    expect(lab.get_by_role("status").first).to_contain_text("t = ")
    return card, lab


def lock(card: Locator, value: str) -> None:
    card.get_by_role("textbox", name="Your prediction").fill(value)
    card.get_by_role("button", name="Lock prediction").click()
    expect(card.get_by_role("textbox", name="Your prediction")).to_be_disabled()


@pytest.mark.parametrize("device", ["page", "phone"])
def test_play_without_the_setup_names_the_setting_beside_play_and_the_setup_button_closes_the_loop(
    device: str, request: pytest.FixtureRequest
):
    page: Page = request.getfixturevalue(device)
    _, exercise = GROWTH
    card, lab = start(page)
    lock(card, f"{exercise.answer:g}")
    play = lab.get_by_role("button", name="Play")
    expect(play).to_be_enabled()
    play.click()
    beside_play = lab.get_by_text("This run is not judged")
    expect(beside_play).to_be_visible()
    expect(beside_play).to_contain_text("Arrival rate λ is 1 (this exercise needs 4)")
    expect(beside_play).to_be_in_viewport()
    # Readable where the student looks: on a phone the line beside Play lies under the docked card,
    # so the dock says it too.
    advice = page.get_by_text("Arrival rate λ is 1 (this exercise needs 4)")
    poll(lambda: any(readable(line) for line in advice.all()), page=page, what="the setup advice, uncovered")
    expect(lab.get_by_role("button", name="Play")).to_be_visible()  # the run goes on: exploring is allowed
    card.get_by_role("button", name=SETUP_LABEL).click()
    expect(beside_play).to_have_count(0)
    expect(lab.get_by_role("textbox", name="Arrival rate λ")).to_have_value("4")
    expect(card.get_by_role("button", name=SETUP_LABEL)).to_have_count(0)
    lab.get_by_role("button", name="Play").click()
    feedback = card.get_by_role("status").first
    expect(feedback).to_contain_text("Correct")
    see_the_verdict(card, lab, feedback)


def see_the_verdict(card: Locator, lab: Locator, feedback: Locator) -> None:
    """The verdict on screen: on a laptop in the card beside the lab; on a phone in the dock, with the
    finished picture above it, until "Read why" brings the card's verdict and explanation up."""
    read_why = card.get_by_role("button", name="Read why")
    if not read_why.is_visible():
        expect(feedback).to_be_in_viewport()
        return
    expect(card.locator(".dock-verdict")).to_contain_text("Correct")
    expect(card.locator(".dock-verdict")).to_be_in_viewport()
    picture = lab.get_by_role("img").first
    poll(lambda: in_view(picture), page=card.page, what="the finished picture, whole, above the docked verdict")
    read_why.click()
    expect(feedback).to_be_in_viewport()
    expect(feedback).to_be_focused()


MISSING_EVENT = next(
    (lesson, exercise)
    for lesson in load_lessons()
    for exercise in lesson.exercises
    if exercise.lab == "timeline"
    and any(step.kind == "set" and step.control == "missing_event" for step in exercise.steps)
)
"""A timeline exercise whose one setting is a select folded far below the picture on a phone."""


@pytest.mark.parametrize("case", [GROWTH, MISSING_EVENT], ids=["queue-fields", "timeline-select-far-below"])
def test_the_whole_exercise_by_taps_on_a_phone_keeps_the_prediction_beside_play_and_shows_the_verdict(
    phone: Page, case
):
    lesson, exercise = case
    model_class = lab_kinds()[exercise.lab].model
    phone.goto(f"{phone.base_url}/lesson?id={lesson.slug}")  # type: ignore[attr-defined]
    card = phone.get_by_role("region", name=f"Exercise: {exercise.title}")
    card.get_by_role("button", name="Start this exercise").tap()
    lab = phone.get_by_role("region", name=lab_kinds()[exercise.lab].title)
    expect(lab.get_by_role("status").first).to_contain_text("t = ")
    prediction = card.get_by_role("textbox", name="Your prediction")
    expect(prediction).to_be_in_viewport()
    expect(lab.get_by_role("button", name="Play")).to_be_in_viewport()
    lab.get_by_role("button", name="Reset").tap()
    for step in exercise.steps:
        if step.kind != "set":
            continue
        label = model_class.param[step.control].label
        if step.control in getattr(model_class, "choice_controls", ()):
            select = lab.get_by_role("combobox", name=label)
            expect(select).to_be_in_viewport()  # the step brought it into view
            select.select_option(label=shown_setting(step.control, step.value, model_class))
        else:
            type_value(lab, label, f"{step.value:g}")
            expect(lab.get_by_role("textbox", name=label)).to_have_value(f"{step.value:g}")
    prediction.fill(f"{exercise.answer:g}")
    card.get_by_role("button", name="Lock prediction").tap()
    play = lab.get_by_role("button", name="Play")
    expect(play).to_be_enabled()
    expect(play).to_be_in_viewport()  # brought back after the last setting, however far below it was
    expect(prediction).to_be_in_viewport()
    expect(prediction).to_have_value(f"{exercise.answer:g}")
    play.tap()
    feedback = card.get_by_role("status").first
    expect(feedback).to_contain_text("Correct")
    see_the_verdict(card, lab, feedback)


def test_on_a_phone_a_refused_prediction_says_why_beside_the_field(phone: Page):
    """The card's own line is above the screen while the exercise is docked: the dock repeats it."""
    lesson, exercise = GROWTH
    phone.goto(f"{phone.base_url}/lesson?id={lesson.slug}")  # type: ignore[attr-defined]
    card = phone.get_by_role("region", name=f"Exercise: {exercise.title}")
    card.get_by_role("button", name="Start this exercise").tap()
    prediction = card.get_by_role("textbox", name="Your prediction")
    prediction.fill("abc")
    card.get_by_role("button", name="Lock prediction").tap()
    expect(card.get_by_role("alert")).to_contain_text("'abc' is not a number")  # what a screen reader hears
    shown = card.locator(".dock-notice")  # the dock's copy, aria-hidden: for the eye
    expect(shown).to_contain_text("'abc' is not a number")
    expect(shown).to_be_in_viewport()
    expect(prediction).to_be_in_viewport()
    expect(prediction).to_have_value("abc")  # kept for correction
    prediction.fill(f"{exercise.answer:g}")
    card.get_by_role("button", name="Lock prediction").tap()
    expect(prediction).to_be_disabled()
    expect(shown).to_be_hidden()  # the reason goes once the prediction is taken


def test_on_a_phone_a_refused_lab_value_is_read_above_the_docked_card(phone: Page):
    """A field reached without a tap (Tab, the keyboard's arrows) sits just above the dock: its refusal comes up too."""
    _, lab = start(phone)
    expect(lab.get_by_role("button", name="Play")).to_be_in_viewport()  # the exercise has brought its lab up
    service = lab.get_by_role("textbox", name="Service rate μ")
    service.fill("-3")
    service.press("Enter")
    alert = lab.get_by_role("alert")
    expect(alert).to_contain_text("Service rate μ cannot be -3")
    poll(lambda: readable(alert), page=phone, what="the refusal under μ, uncovered by the docked card")
    expect(service).to_be_focused()  # still where the student was typing, and on screen
    expect(service).to_be_in_viewport()


def in_view(element: Locator) -> bool:
    """Whether ``element`` is wholly in the part of the page the student sees: below the course's
    header (the top of the scrolling area ``#main``) and above a docked exercise card."""
    page = element.page
    box, area = element.bounding_box(), page.locator("#main").bounding_box()
    if not box or not area or not box["height"]:
        return False
    floor = area["y"] + area["height"]
    dock = page.locator(".docked .dock")  # CSS locators reach into the cards' shadow roots
    if dock.count():
        floor = min(floor, dock.first.bounding_box()["y"])
    return box["y"] >= area["y"] - 0.5 and box["y"] + box["height"] <= floor + 0.5


def test_on_a_phone_the_set_up_lab_shows_its_whole_picture_and_a_growing_dock_covers_nothing(phone: Page):
    """After "Set up the lab" the first plot's top (above the screen once the note beside Play went) and
    Play are on screen with the docked prediction; new numbers, and a refusal that makes the dock
    taller, leave the line saying why Play is off readable above it."""
    card, lab = start(phone)
    lock(card, "2")
    lab.get_by_role("button", name="Play").tap()
    expect(lab.get_by_text("This run is not judged")).to_be_visible()
    card.get_by_role("button", name=SETUP_LABEL).tap()
    expect(lab.get_by_role("textbox", name="Arrival rate λ")).to_have_value("4")
    picture, play = lab.get_by_role("img").first, lab.get_by_role("button", name="Play")
    poll(lambda: in_view(picture) and in_view(play), page=phone, what="the set-up lab's first plot and Play, whole")
    expect(card.get_by_role("textbox", name="Your prediction")).to_be_in_viewport()
    play.tap()
    expect(card.get_by_role("status").first).to_contain_text("Not quite")
    card.get_by_role("button", name="Try it with new numbers").tap()
    gate = lab.get_by_text("Play and Step are off until you lock a prediction.")
    poll(lambda: in_view(gate), page=phone, what="why Play is off, above the dock")
    card.get_by_role("textbox", name="Your prediction").fill("abc")
    card.get_by_role("button", name="Lock prediction").tap()
    expect(card.locator(".dock-notice")).to_contain_text("'abc' is not a number")  # the dock is taller now
    poll(lambda: in_view(gate), page=phone, what="why Play is off, still above the taller dock")
