"""The guided-exercise runner without a browser: ticks, gating, feedback, Try again, progress."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from app.course import exercise as exercise_module
from app.course.catalog import lab_kinds
from app.course.content import load_lessons, parse_lesson
from app.course.exercise import ExerciseRunner, ExerciseSession, shown_setting
from app.course.exercise_drawing import card_fields
from app.course.progress import ProgressStore
from labs.queue.view import QueueLab
from labs.timed import format_number
from tests.headless import field, play_allowed, send, status_text

LESSON = parse_lesson(Path(__file__).parents[1] / "fixtures" / "lessons" / "02-buckets.md")
"""Queue exercises of every kind the runner handles (a reading at a time, after an edit, a stop time)."""


def type_into(lab, control, value):
    field(lab, control).input.value = str(value)


@pytest.fixture
def page():
    lab = QueueLab()
    session = ExerciseSession()
    progress = ProgressStore()
    runners = {
        e.id: ExerciseRunner(lab=lab, session=session, progress=progress, exercise=e, lesson_slug=LESSON.slug)
        for e in LESSON.exercises
    }
    return lab, session, progress, runners


def feedback(runner) -> str:
    return re.sub(r"<[^>]+>", "", runner.card.feedback_html)


def lock(runner, text):
    """What the page sends when the student presses Lock prediction with ``text`` in the field."""
    runner.card.receive({"action": "lock", "text": text})


def prepare(lab, runner, arrival, service, prediction=None):
    """Start the exercise, press Reset, type both rates and, if given, lock a prediction."""
    runner.start()
    send(lab, "reset")
    type_into(lab, "arrival_rate", arrival)
    type_into(lab, "service_rate", service)
    if prediction is not None:
        lock(runner, prediction)


def test_play_and_step_are_off_until_a_prediction_is_locked(page):
    lab, session, progress, runners = page
    runner = runners["growth"]
    assert lab.transport.allowed
    runner.start()
    assert not lab.transport.allowed
    assert lab.transport.play_button.disabled and lab.transport.step_button.disabled
    assert "lock a prediction" in lab.transport.reason
    send(lab, "step")
    assert lab.model.t == 0, "a Step sent anyway is ignored"
    lock(runner, "1")
    assert lab.transport.allowed and not lab.transport.play_button.disabled


def test_growth_exercise_ticks_in_order_and_says_correct(page):
    lab, session, progress, runners = page
    runner = runners["growth"]
    runner.start()
    type_into(lab, "arrival_rate", 4)  # before Reset: does not count
    assert runner.current == 0
    send(lab, "reset")
    assert runner.current == 1
    type_into(lab, "arrival_rate", 4)
    type_into(lab, "service_rate", 3)
    assert runner.current == 3
    lock(runner, "6")
    assert runner.current == 4 and lab.model.pause_at == 2
    send(lab, "step")
    assert not runner.finished
    send(lab, "step")
    assert runner.finished and lab.model.pause_at is None
    assert feedback(runner).startswith("Correct: you predicted 6 work units")
    assert "lab shows 6.00" in feedback(runner)
    assert progress.completed == {"buckets/growth": {"correct": True}}


def test_a_wrong_prediction_gets_not_quite_and_the_models_value(page):
    lab, session, progress, runners = page
    runner = runners["drain"]
    prepare(lab, runner, 2, 3, "2")
    send(lab, "pause", 5.5)  # Play stopped early: not far enough yet
    assert not runner.finished
    send(lab, "end", 6.0)
    assert feedback(runner).startswith("Not quite: you predicted 2 work units, and the lab shows 0.00")
    assert progress.completed["buckets/drain"] == {"correct": False}


def test_play_stops_at_the_run_steps_time(page):
    lab, session, progress, runners = page
    runner = runners["edit-keeps-time"]
    prepare(lab, runner, 2, 3, "6")
    assert lab.transport.state.stop_at == 2
    for _ in range(5):
        send(lab, "step")
    assert lab.model.t == 2
    assert not runner.finished
    type_into(lab, "arrival_rate", 4)
    assert runner.finished and runner.correct
    assert "lab shows 6.00" in feedback(runner)


def test_unparseable_prediction_is_refused(page):
    lab, session, progress, runners = page
    runner = runners["growth"]
    runner.start()
    lock(runner, "about one")
    assert runner.prediction is None and "as a number" in runner.notice
    assert not lab.transport.allowed


def test_reset_midway_sends_the_student_back_to_the_first_set(page):
    lab, session, progress, runners = page
    runner = runners["growth"]
    prepare(lab, runner, 4, 3, "1")
    send(lab, "reset")
    assert runner.current == 1 and runner.locked
    type_into(lab, "arrival_rate", 4)
    type_into(lab, "service_rate", 3)
    assert runner.current == 4


def test_a_control_changed_after_its_step_holds_back_the_feedback(page):
    lab, session, progress, runners = page
    runner = runners["growth"]
    prepare(lab, runner, 4, 3, "6")
    type_into(lab, "arrival_rate", 5)
    send(lab, "step")
    send(lab, "step")
    assert not runner.finished and "needs 4" in runner.notice
    type_into(lab, "arrival_rate", 4)
    assert runner.finished and runner.correct


def test_try_again_and_switching_exercises(page):
    lab, session, progress, runners = page
    first, second = runners["drain"], runners["growth"]
    first.start()
    lock(first, "0")
    second.start()
    assert session.active == "growth"
    assert not first.locked and first.current == 0
    assert not lab.transport.allowed
    assert first.card.start_label == "Start this exercise" and not first.card.active
    assert second.card.start_label == "" and second.card.active  # no "Try again" before a verdict
    lock(second, "1")
    assert second.card.locked and second.card.prediction == "1"
    second.card.receive({"action": "start"})
    assert not second.card.locked and second.card.prediction == ""
    assert not second.locked and not lab.transport.allowed


def test_the_card_offers_try_again_only_after_a_verdict_and_remembers_right_from_wrong(page):
    lab, session, progress, runners = page
    runner = runners["growth"]
    right = format_number(runner.exercise.answer)
    assert runner.card.start_label == "Start this exercise"
    prepare(lab, runner, 4, 3, format_number(runner.exercise.answer + 5))
    assert runner.card.start_label == ""
    send(lab, "step")
    send(lab, "step")
    assert runner.finished and not runner.correct
    assert runner.card.start_label == "Try again" and runner.card.verdict == "wrong"
    runner.card.receive({"action": "start"})
    assert "✗ Not quite last time" in runner.card.steps_html and "✓" not in runner.card.steps_html
    prepare(lab, runner, 4, 3, right)
    send(lab, "step")
    send(lab, "step")
    assert runner.correct and runner.card.verdict == "correct"
    runner.card.receive({"action": "start"})
    assert "✓ You got this right before" in runner.card.steps_html


def test_the_lab_hides_the_answer_until_the_exercise_has_run(page):
    lab, session, progress, runners = page
    runner = runners["growth"]
    assert not lab.conceal and "net rate" in status_text(lab)
    prepare(lab, runner, 4, 3, "1")
    assert lab.conceal and "net rate" not in status_text(lab)
    send(lab, "step")
    send(lab, "step")
    assert runner.finished
    assert not lab.conceal and "net rate λ − μ = +1.00" in status_text(lab)


def test_a_step_that_sets_the_optional_stop_time(page):
    lab, session, progress, runners = page
    runner = runners["exposed-tail"]
    prepare(lab, runner, 4, 3)
    assert runner.current == 3, "the stop time still reads never: not done"
    type_into(lab, "arrivals_stop", 5)
    assert runner.current == 4
    lock(runner, "8")
    assert lab.conceal and "net rate" not in status_text(lab)
    for _ in range(10):
        send(lab, "step")
    assert runner.finished and runner.correct
    assert "lab shows 8.00" in feedback(runner)


def test_clearing_the_stop_time_holds_back_the_feedback(page):
    lab, session, progress, runners = page
    runner = runners["exposed-tail"]
    prepare(lab, runner, 4, 3)
    type_into(lab, "arrivals_stop", 5)
    lock(runner, "8")
    type_into(lab, "arrivals_stop", "")
    for _ in range(10):
        send(lab, "step")
    assert not runner.finished
    assert "Arrivals stop at is never now, but this exercise needs 5" in runner.notice
    type_into(lab, "arrivals_stop", 5)
    assert runner.finished and runner.correct


def test_no_step_list_names_the_answer():
    from app.course.catalog import lab_kinds
    from app.course.exercise import describe_step

    for lesson in load_lessons():
        for exercise in lesson.exercises:
            model_class = lab_kinds()[exercise.lab].model  # an exercise may use another lab than its lesson
            # a choice is named by its text (its index, 1, would match the 1 of "M/M/1")
            answer = exercise.choice_text(exercise.answer) if exercise.choices else f"{exercise.answer:g}"
            for step in exercise.steps:
                text = describe_step(step, model_class)
                assert not re.search(rf"(?<![\d.]){re.escape(answer)}(?![\d])", text), (lesson.slug, exercise.id, text)


ALL_EXERCISES = [(lesson, exercise) for lesson in load_lessons() for exercise in lesson.exercises]


def do_steps_headless(lab, runner, prediction: float) -> None:
    """Every step as the page would deliver it: Reset and Step commands, set values, the locked text."""
    runner.start()
    for step in runner.exercise.steps:
        if step.kind == "reset":
            send(lab, "reset")
        elif step.kind == "set":
            lab.model.apply(step.control, step.value)
        elif step.kind == "predict":
            lock(runner, runner.exercise.as_entered(prediction))
        else:
            for _ in range(10_000):
                if runner.finished or (step.value is not None and lab.model.t >= step.value - 1e-9):
                    break
                send(lab, "step")
        assert not runner.notice, runner.notice


@pytest.mark.parametrize(
    ("lesson", "exercise"), ALL_EXERCISES, ids=[f"{lesson.slug}/{e.id}" for lesson, e in ALL_EXERCISES]
)
def test_every_wrong_prediction_gets_not_quite_and_the_reasoning_it_matches(lesson, exercise):
    """The browser does this for one exercise per lab (tests/browser/test_lessons_browser.py); here, for all."""
    lab = lab_kinds()[exercise.lab].lesson_view()
    runner = ExerciseRunner(
        lab=lab, session=ExerciseSession(), progress=ProgressStore(), exercise=exercise, lesson_slug=lesson.slug
    )
    slip = exercise.mistakes[0] if exercise.mistakes else None
    other_choice = (exercise.answer + 1) % max(1, len(exercise.choices))
    wrong = other_choice if exercise.choices else exercise.answer + 10 * exercise.tolerance + 3
    do_steps_headless(lab, runner, slip.answer if slip else wrong)
    said = feedback(runner)
    assert said.startswith("Not quite"), said
    assert f"the lab shows {runner.amount(exercise.answer)}." in said
    if runner.counted:  # a count reads as a whole number of things: "1 layer", "3 buckets"
        assert re.search(rf"you predicted \d+ {runner.counted}s?, and the lab shows \d+ {runner.counted}s?\.", said)
    if slip:
        assert html.escape(" ".join(slip.reasoning.split())) in " ".join(runner.card.explanation_html.split())


def set_through_the_view(lab, control: str, value: object) -> None:
    """Set a control the way the page does: its checkbox, its select, or its typed field."""
    model_class = type(lab.model)
    if control in getattr(model_class, "switch_controls", ()):
        lab.switches[control].value = bool(value)
    elif control in getattr(model_class, "choice_controls", ()):
        lab.choosers[control].value = shown_setting(control, value, model_class)
    else:  # a number, or the timeline's Layers text as typed
        field(lab, control).input.value = value if isinstance(value, str) else format_number(value)
    assert not any(f.error for f in lab.fields), [f.error for f in lab.fields if f.error]


@pytest.mark.parametrize(
    ("lesson", "exercise"), ALL_EXERCISES, ids=[f"{lesson.slug}/{e.id}" for lesson, e in ALL_EXERCISES]
)
def test_every_right_prediction_is_correct_when_done_through_the_view(lesson, exercise):
    """Each step through the lab's own widgets and commands; the browser does this for a few (test_lessons_browser)."""
    lab = lab_kinds()[exercise.lab].lesson_view()
    runner = ExerciseRunner(
        lab=lab, session=ExerciseSession(), progress=ProgressStore(), exercise=exercise, lesson_slug=lesson.slug
    )
    runner.start()
    for index, step in enumerate(exercise.steps):
        if step.kind == "reset":
            send(lab, "reset")
        elif step.kind == "set":
            set_through_the_view(lab, step.control, step.value)
        elif step.kind == "predict":
            assert not play_allowed(lab)
            lock(runner, exercise.as_entered(exercise.answer))
            assert play_allowed(lab)
        else:  # Play to the end, or to where the exercise pauses, as the page reports it
            send(lab, "end", lab.model.horizon if step.value is None else step.value)
        assert runner.current > index, (index, step, runner.notice)
    said = feedback(runner)
    assert said.startswith("Correct"), said
    assert "Why:" in runner.card.explanation_html
    assert runner.progress.completed.get(runner.key) == {"correct": True}


def test_try_again_empties_the_field_before_it_unlocks(page):
    """Emptied after unlocking, a late "" could wipe what the student types into the open field."""
    lab, _session, _progress, runners = page
    runner = runners["growth"]
    prepare(lab, runner, 3, 2, prediction="4")
    seen = []
    runner.card.param.watch(lambda event: seen.append((event.name, event.new)), ["prediction", "locked"])
    runner.start()  # what "Try again" sends
    assert ("prediction", "") in seen and ("locked", False) in seen
    assert seen.index(("prediction", "")) < seen.index(("locked", False)), seen


def test_an_exercise_on_its_own_draws_its_card_in_one_text(page):
    _lab, _session, _progress, runners = page
    runner = runners["growth"]
    alone = runner.__panel__()
    assert alone is runner.__panel__()  # built once: a second call adds no second watcher of the card
    runner.card.prediction = "3"
    assert alone.cards[0] == runner.card.shown()


def test_each_click_reaches_the_page_as_one_message_of_the_card(page):
    """Lock empties, sets and locks the field and ticks the step; the lesson text sends the cards once for it."""
    lab, _session, _progress, runners = page
    runner = runners["growth"]
    text = runner.__panel__()
    prepare(lab, runner, 4, 3)
    sent = []
    text.param.watch(lambda event: sent.append(json.loads(event.new)["0"]), "card_updates")
    lock(runner, "1")
    assert len(sent) == 1
    assert sent[0] == runner.card.shown() and runner.card.locked and runner.card.prediction == "1"
    for _ in range(50):  # each Step, the last one with its tick and the verdict: at most one message
        sent.clear()
        send(lab, "step")
        assert len(sent) <= 1
        if runner.finished:
            break
    assert runner.finished and sent == [runner.card.shown()] and runner.card.feedback_html
    sent.clear()
    runner.card.receive({"action": "start"})  # Try again: the field emptied and unlocked in the same message
    assert len(sent) == 1 and sent[0] == runner.card.shown()
    assert not runner.card.locked and runner.card.prediction == ""


def test_progress_redraws_only_the_cards_whose_exercise_it_changed(page, monkeypatch):
    lab, _session, progress, runners = page
    drawn: list[str] = []  # the cards worked out, by exercise

    def counting(runner: ExerciseRunner) -> dict:
        drawn.append(runner.exercise.id)
        return card_fields(runner)

    monkeypatch.setattr(exercise_module, "card_fields", counting)
    growth, other = runners["growth"], next(r for key, r in runners.items() if key != "growth")
    # The browser's stored progress arrives: the card it names says so, the others are not worked out again.
    progress.completed = {other.key: {"correct": True}}
    assert drawn == [other.exercise.id]
    assert "✓ You got this right before" in other.card.steps_html
    assert "right before" not in growth.card.steps_html
    drawn.clear()
    prepare(lab, growth, 4, 3, "1")
    send(lab, "step")
    send(lab, "step")
    assert growth.finished and progress.is_done(growth.key)
    assert set(drawn) == {"growth"}  # the verdict's record redraws no other card
    drawn.clear()
    progress.kept = False  # a framed page: only a judged card says its progress is not kept
    assert drawn == ["growth"] and "keeps no progress" in growth.card.steps_html
