"""Every exercise in content/, done in Chromium the way a student does it: index → lesson → exercise."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Locator, Page, expect

from app.course.catalog import lab_kinds
from app.course.content import Exercise, Lesson, load_lessons
from app.course.exercise import amount_html, shown_setting
from labs.timed import format_number
from tests.conftest import ARTIFACTS
from tests.student import field_name, plots_laid_out, shown_text, step_until, type_value
from tests.waiting import nothing_happens_for

pytestmark = pytest.mark.browser

LESSONS = load_lessons()
CASES = [(lesson, exercise) for lesson in LESSONS for exercise in lesson.exercises]
ONE_PER_LAB = list(
    {exercise.lab: (lesson, exercise) for lesson, exercise in reversed(CASES) if exercise.mistakes}.values()
)
"""For each lab, its first exercise that names a common mistake: the feedback's UI contract in Chromium.

Every exercise's wrong-prediction feedback is checked headless (tests/course/test_exercise_view.py)."""


def ways_of_doing(exercise: Exercise) -> set[tuple[str, ...]]:
    """What a student does in an exercise, by kind: set a checkbox, a select or a field; Play to the end or a time."""
    model_class = lab_kinds()[exercise.lab].model
    ways: set[tuple[str, ...]] = set()
    for step in exercise.steps:
        if step.kind == "set":
            if step.control in getattr(model_class, "switch_controls", ()):
                ways.add((exercise.lab, "checkbox"))
            elif step.control in getattr(model_class, "choice_controls", ()):
                ways.add((exercise.lab, "select"))
            else:
                ways.add((exercise.lab, "field"))
        elif step.kind == "run":
            ways.add((exercise.lab, "play to the end" if step.value is None else "play to a time"))
        elif step.kind == "predict" and exercise.choices:
            ways.add(("any lab", "choose a prediction"))
        else:
            ways.add((exercise.lab, step.kind))
    return ways


def right_in_the_browser() -> list[tuple[Lesson, Exercise]]:
    """One right prediction per lab, and more where a way of doing an exercise is not yet done in Chromium.

    Every exercise's right prediction is done headless through the lab's own widgets
    (tests/course/test_exercise_view.py); in Chromium, each lab and each way of doing a step once with a
    right and once with a wrong prediction between these and :data:`ONE_PER_LAB`.
    """
    done = set().union(*(ways_of_doing(exercise) for _, exercise in ONE_PER_LAB))
    chosen, labs = [], set()
    for lesson, exercise in CASES:
        ways = ways_of_doing(exercise)
        if (exercise.lab not in labs and (lesson, exercise) not in ONE_PER_LAB) or not ways <= done:
            chosen.append((lesson, exercise))
            labs.add(exercise.lab)
            done |= ways
    return chosen


RIGHT_IN_THE_BROWSER = right_in_the_browser()


def open_exercise_from_index(page: Page, lesson: Lesson, exercise: Exercise) -> tuple[Locator, Locator]:
    page.goto(page.base_url + "/")
    listing = page.get_by_role("list", name=f"Exercises in {lesson.title}")
    listing.get_by_role("link", name=exercise.title).click()
    lab = page.get_by_role("region", name=lab_kinds()[exercise.lab].title)
    region = page.get_by_role("region", name=f"Exercise: {exercise.title}")
    expect(region).to_be_visible()
    # a lab's readout ("t = …"), or the sample trace's invitation until it is loaded
    expect(lab.get_by_role("status").first).to_contain_text(re.compile("=|Load the sample trace"))
    return lab, region


def do_exercise(page: Page, lesson: Lesson, exercise: Exercise, prediction: float, use_play: bool) -> Locator:
    lab, region = open_exercise_from_index(page, lesson, exercise)
    return work_exercise(lab, region, exercise, prediction, use_play)


def work_exercise(
    lab: Locator,
    region: Locator,
    exercise: Exercise,
    prediction: float,
    use_play: bool,
    before_run: Callable[[], None] | None = None,
) -> Locator:
    """Do an open exercise's steps as a student would, predicting ``prediction``; the exercise's region.

    ``before_run``, if given, is called once the run step is next, just before Play (or Step).
    """
    model_class = lab_kinds()[exercise.lab].model
    loads = getattr(model_class, "play_words", "")  # the sample trace: Load the sample trace is its Play
    play = lab.get_by_role("button", name=loads or "Play")
    steps = region.get_by_role("list", name="Steps")
    for index, step in enumerate(exercise.steps, start=1):
        if step.kind == "run" and before_run is not None:
            before_run()
        if step.kind == "reset":
            lab.get_by_role("button", name="Reset").click()
        elif step.kind == "set":
            name = model_class.param[step.control].label
            if step.control in getattr(model_class, "switch_controls", ()):
                lab.get_by_role("checkbox", name=name).set_checked(bool(step.value))
            elif step.control in getattr(model_class, "choice_controls", ()):
                lab.get_by_role("combobox", name=name).select_option(
                    label=shown_setting(step.control, step.value, model_class)
                )
            else:
                label = field_name(name)  # not "First bucket cap", not "Ranks per machine"
                typed = step.value if isinstance(step.value, str) else format_number(step.value)  # Layers is text
                type_value(lab, label, typed)
        elif step.kind == "predict":
            expect(play).to_be_disabled()
            if not loads:
                expect(lab.get_by_role("button", name="Step")).to_be_disabled()
            expect(lab).to_contain_text("until you lock a prediction")
            if exercise.choices:  # radio buttons in a group named by its legend
                choices = region.get_by_role("group", name="Your prediction")
                choices.get_by_role("radio", name=exercise.choice_text(prediction), exact=True).check()
            else:
                region.get_by_role("textbox", name="Your prediction").fill(format_number(prediction))
            region.get_by_role("button", name="Lock prediction").click()
            expect(play).to_be_enabled()
        elif loads:
            play.click()
        elif step.value is None or use_play:
            # The fastest speed the lab offers: 4×, or 50× while the queue's random queue (500 s) is on.
            speed = lab.get_by_role("combobox", name="Speed")
            speed.select_option(max(speed.locator("option").all_inner_texts(), key=lambda x: float(x.rstrip("×"))))
            lab.get_by_role("button", name="Play").click()
        else:
            step_until(lab, step.value)
        expect(steps.get_by_role("listitem").nth(index - 1)).to_contain_text("(done)")
    return region


@pytest.mark.parametrize(
    ("lesson", "exercise"),
    RIGHT_IN_THE_BROWSER,
    ids=[f"{lesson.slug}/{exercise.id}" for lesson, exercise in RIGHT_IN_THE_BROWSER],
)
def test_right_prediction_is_correct(page, lesson, exercise):
    region = do_exercise(page, lesson, exercise, exercise.answer, use_play=True)
    feedback = region.get_by_role("status")
    expect(feedback).to_contain_text("Correct")
    assert feedback.inner_text().startswith("Correct")
    expect(region).to_contain_text("Why:")


@pytest.mark.parametrize(
    ("lesson", "exercise"), ONE_PER_LAB, ids=[f"{lesson.slug}/{exercise.id}" for lesson, exercise in ONE_PER_LAB]
)
def test_wrong_prediction_is_not_quite(page, lesson, exercise):
    """A common mistake where the exercise names one (its reasoning is said back), else a far miss."""
    slip = exercise.mistakes[0] if exercise.mistakes else None
    wrong = slip.answer if slip else exercise.answer + 10 * exercise.tolerance + 3
    region = do_exercise(page, lesson, exercise, wrong, use_play=False)
    feedback = region.get_by_role("status")
    expect(feedback).to_contain_text("Not quite")
    assert feedback.inner_text().startswith("Not quite")
    expect(feedback).to_contain_text(f"the lab shows {html.unescape(amount_html(exercise, exercise.answer))}.")
    if slip:
        said = f"Where that {'choice' if exercise.choices else 'number'} comes from: "
        expect(region).to_contain_text(said + " ".join(slip.reasoning.split()[:6]))


CHOSEN = next((lesson, exercise) for lesson, exercise in CASES if exercise.choices and exercise.mistakes)


@pytest.mark.parametrize("right", [True, False], ids=["right", "wrong"])
def test_a_choice_is_made_with_its_radio_buttons_and_locked_like_a_number(page, right):
    lesson, exercise = CHOSEN
    answer = exercise.choice_text(exercise.answer)
    slip = exercise.mistakes[0]
    chosen = answer if right else exercise.choice_text(slip.answer)
    region = do_exercise(page, lesson, exercise, exercise.choices.index(chosen), use_play=True)
    choices = region.get_by_role("group", name="Your prediction")
    expect(choices.get_by_role("radio")).to_have_count(len(exercise.choices))
    expect(choices.get_by_role("radio", name=chosen, exact=True)).to_be_checked()
    for radio in choices.get_by_role("radio").all():
        expect(radio).to_be_disabled()  # locked like a number
    feedback = region.get_by_role("status").first
    if right:
        expect(feedback).to_contain_text(f"Correct: you predicted “{answer}”, and the lab shows “{answer}”.")
    else:
        expect(feedback).to_contain_text(f"Not quite: you predicted “{chosen}”, and the lab shows “{answer}”.")
        expect(region).to_contain_text("Where that choice comes from: " + " ".join(slip.reasoning.split()[:6]))
    region.get_by_role("button", name="Try again").click()  # unlocked and cleared for the next try
    expect(choices.get_by_role("radio", name=chosen, exact=True)).not_to_be_checked()
    expect(choices.get_by_role("radio", name=chosen, exact=True)).to_be_enabled()
    region.get_by_role("button", name="Lock prediction").click()  # nothing chosen: said where the student looks
    expect(region.get_by_role("alert")).to_contain_text("choose one of the answers")


FIRST_PER_LAB = [
    case
    for case in {exercise.lab: (lesson, exercise) for lesson, exercise in reversed(CASES)}.values()
    if lab_kinds()[case[1].lab].controls  # the sample trace has nothing to set
]


@pytest.mark.parametrize(("lesson", "exercise"), FIRST_PER_LAB, ids=[exercise.lab for _, exercise in FIRST_PER_LAB])
def test_every_control_an_exercise_sets_is_found_by_its_role_and_name(page, lesson, exercise):
    """Each exercise is done headless through the lab's widgets; here each widget is found as a student finds it."""
    lab, _region = open_exercise_from_index(page, lesson, exercise)
    model_class = lab_kinds()[exercise.lab].model
    controls = {step.control for _, e in CASES if e.lab == exercise.lab for step in e.steps if step.kind == "set"}
    assert controls
    for control in sorted(controls):
        name = model_class.param[control].label
        if control in getattr(model_class, "switch_controls", ()):
            found = lab.get_by_role("checkbox", name=name, exact=True)
        elif control in getattr(model_class, "choice_controls", ()):
            found = lab.get_by_role("combobox", name=name, exact=True)
        else:
            found = lab.get_by_role("textbox", name=field_name(name))
        expect(found).to_have_count(1)
        expect(found).to_be_enabled()


def test_progress_survives_a_reload(page):
    lesson, exercise = CASES[0]
    region = do_exercise(page, lesson, exercise, exercise.answer, use_play=True)
    expect(region.get_by_role("status")).to_contain_text("Correct")
    page.reload()
    region = page.get_by_role("region", name=f"Exercise: {exercise.title}")
    expect(region).to_contain_text("You got this right before")
    page.goto(page.base_url + "/")
    listing = page.get_by_role("list", name=f"Exercises in {lesson.title}")
    expect(listing.get_by_role("listitem").first).to_contain_text("correct")
    expect(page.get_by_role("navigation", name="Lessons")).to_contain_text(
        f"1 of {len(lesson.exercises)} exercises right"
    )


def test_lesson_links_and_bad_urls(page):
    page.goto(page.base_url + "/")
    page.get_by_role("link", name=LESSONS[0].title).click()
    expect(page.get_by_role("region", name="Queue lab")).to_be_visible()
    page.get_by_role("link", name=f"Next: {LESSONS[1].title} →").first.click()
    expect(page.get_by_role("heading", name=LESSONS[1].title, level=1)).to_be_visible()
    page.get_by_role("link", name="Trace page").click()  # lesson 2 sends a student to their own trace
    expect(page.get_by_role("group", name="Trace file")).to_be_visible()
    page.go_back()
    page.get_by_role("link", name="← All lessons and labs").click()
    expect(page.get_by_role("navigation", name="Lessons")).to_be_visible()
    page.expects_404 = True
    response = page.goto(page.base_url + "/lesson?id=nope")
    assert response is not None and response.status == 404
    expect(page.get_by_role("alert")).to_contain_text("There is no lesson called nope")
    page.goto(page.base_url + f"/lesson?id={LESSONS[0].slug}&exercise=nope")
    expect(page.get_by_role("alert")).to_contain_text("no exercise called 'nope'")
    expect(page.get_by_role("region", name="Queue lab")).to_be_visible()


@pytest.mark.parametrize("width", [375, 1280])
def test_screenshot_of_a_lesson(page, width):
    lesson, exercise = CASES[0]
    page.set_viewport_size({"width": width, "height": 900})
    lab, region = open_exercise_from_index(page, lesson, exercise)
    plots_laid_out(page)
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= width + 1, f"the page scrolls sideways at {width} px ({scroll_width} px wide)"
    box_lab, box_text = lab.bounding_box(), region.bounding_box()
    if width >= 1000:
        assert box_lab["x"] > box_text["x"] + box_text["width"] - 5, "lab beside the text on a wide screen"
    else:
        assert box_lab["x"] < 40 and box_lab["width"] <= width, "stacked on a phone"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"lesson-{width}px.png"), full_page=True)


def _hover_on_the_roofline(page: Page, lab: Locator) -> Locator:
    """Move the mouse onto the roof of the roofline plot; return the roof's hover tooltips."""
    box = lab.locator(".bk-Canvas").first.bounding_box()
    page.mouse.move(box["x"] + 2, box["y"] + 2)
    page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.5, steps=4)
    return page.get_by_text("FLOP/byte: attainable")


def test_nothing_gives_the_answer_away_until_the_exercise_has_run(page):
    lesson = next(lesson for lesson in LESSONS if lesson.slug == "hidden")
    exercise = lesson.exercise("memory-bound")
    lab, region = open_exercise_from_index(page, lesson, exercise)
    lab.get_by_role("button", name="Reset").click()
    type_value(lab, "Arithmetic intensity I", "8")
    type_value(lab, "Memory bandwidth B", "100")
    status = lab.get_by_role("status").first
    expect(status).to_contain_text("attainable = ? GFLOP/s")
    expect(status).to_contain_text("ridge = ? FLOP/byte")
    text = shown_text(status)
    assert "800" not in text and "10" not in text, text  # neither the answer nor 8 GFLOP / 10 ms
    lab.scroll_into_view_if_needed()
    tooltips = _hover_on_the_roofline(page, lab)
    nothing_happens_for(page, 1.0)  # the one window: hovering shows no tooltip (it does below, once run)
    assert tooltips.count() == 0, "the roof's hover prints attainable"
    region.get_by_role("textbox", name="Your prediction").fill("800")
    region.get_by_role("button", name="Lock prediction").click()
    lab.get_by_role("combobox", name="Speed").select_option("4×")
    lab.get_by_role("button", name="Play").click()
    expect(region.get_by_role("status")).to_contain_text("Correct")
    expect(status).to_contain_text("ridge = 10 FLOP/byte")
    expect(_hover_on_the_roofline(page, lab)).to_have_count(1)  # the hover is back once the exercise has run
