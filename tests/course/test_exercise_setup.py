"""An exercise's setup without a browser: no run after the lock ends in silence, and one press sets the scene."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.course.content import parse_lesson
from app.course.exercise import ExerciseRunner, ExerciseSession
from app.course.exercise_setup import SETUP_LABEL, setup_advice, setup_gaps, setup_steps
from app.course.progress import ProgressStore
from labs.queue.model import QueueModel
from labs.queue.view import QueueLab
from tests.headless import field, send

LESSON = parse_lesson(Path(__file__).parents[1] / "fixtures" / "lessons" / "02-buckets.md")
EXERCISES = {exercise.id: exercise for exercise in LESSON.exercises}


@pytest.fixture
def growth():
    lab = QueueLab()
    runner = ExerciseRunner(
        lab=lab,
        session=ExerciseSession(),
        progress=ProgressStore(),
        exercise=EXERCISES["growth"],
        lesson_slug=LESSON.slug,
    )
    return lab, runner


def lock(runner, text):
    runner.card.receive({"action": "lock", "text": text})


def beside_play(lab) -> str:
    return lab.transport.gate.text


def test_the_setup_is_the_reset_and_settings_before_the_prediction():
    steps = setup_steps(EXERCISES["edit-keeps-time"])
    assert [step.kind for step in steps] == ["reset", "set", "set"]
    assert [step.value for step in steps if step.kind == "set"] == [2, 3], "the edit after the run is the experiment"


def test_gaps_name_each_setting_that_differs_with_both_values():
    model = QueueModel()
    gaps = setup_gaps(model, EXERCISES["growth"], current=0)
    assert gaps == [
        "Reset not pressed",
        "Arrival rate λ is 1 (this exercise needs 4)",
        "Service rate μ is 2 (this exercise needs 3)",
    ]
    model.arrival_rate = 4
    assert setup_gaps(model, EXERCISES["growth"], current=1) == ["Service rate μ is 2 (this exercise needs 3)"]
    assert setup_advice(model, EXERCISES["growth"], 4, played=False, run_words="Play") == "", "setup done"


def test_lock_without_the_setup_says_beside_play_and_in_the_card_what_differs(growth):
    lab, runner = growth
    runner.start()
    assert beside_play(lab).count("lock a prediction") == 1, "before the lock: the gate's own reason"
    lock(runner, "6")
    assert lab.transport.allowed, "Play stays on: the student may explore"
    line = beside_play(lab)
    assert "Not set up yet" in line and "Arrival rate λ is 1 (this exercise needs 4)" in line
    assert SETUP_LABEL in line
    assert "Arrival rate λ is 1" in runner.card.steps_html
    assert runner.card.setup_label == SETUP_LABEL
    assert lab.transport.report_play, "the page says when Play starts, so the line can say the run is not judged"


def test_play_without_the_setup_says_at_once_that_the_run_is_not_judged(growth):
    lab, runner = growth
    runner.start()
    lock(runner, "6")
    send(lab, "play")
    assert "This run is not judged" in beside_play(lab)
    send(lab, "end", t=lab.model.horizon)
    assert lab.model.at_end and not runner.finished
    assert "This run is not judged" in beside_play(lab), "the line stays until the setup is done"


def test_set_up_the_lab_applies_reset_and_settings_and_the_run_is_judged(growth):
    lab, runner = growth
    runner.start()
    lock(runner, "6")
    send(lab, "end", t=lab.model.horizon)  # a whole run on the defaults
    runner.card.receive({"action": "setup"})
    assert lab.model.t == 0, "the setup starts from Reset"
    assert (lab.model.arrival_rate, lab.model.service_rate) == (4, 3)
    assert field(lab, "arrival_rate").input.value == "4", "the field shows what the setup set"
    assert runner.prediction == 6, "a locked prediction stays locked"
    assert runner.card.setup_label == "" and beside_play(lab) == ""
    assert runner.current == 4, "reset, both settings and the prediction are ticked"
    send(lab, "pause", t=2)
    assert runner.finished and runner.card.verdict == "correct"


def test_setup_before_the_lock_leaves_the_prediction_to_the_student(growth):
    lab, runner = growth
    runner.start()
    runner.card.receive({"action": "setup"})
    assert runner.current == 3 and not runner.locked
    assert not lab.transport.allowed, "Play waits for the prediction as always"
    assert runner.card.setup_label == ""


def test_try_again_offers_the_setup_again(growth):
    lab, runner = growth
    runner.start()
    runner.card.receive({"action": "setup"})
    lock(runner, "5")
    send(lab, "pause", t=2)
    assert runner.finished and runner.card.verdict == "wrong"
    runner.card.receive({"action": "start"})  # Try again
    lock(runner, "6")
    assert runner.card.setup_label == SETUP_LABEL and "Reset not pressed" in beside_play(lab)


def test_a_setting_changed_after_the_setup_is_said_beside_play_too(growth):
    lab, runner = growth
    runner.start()
    runner.card.receive({"action": "setup"})
    lock(runner, "6")
    send(lab, "pause", t=1)
    lab.model.arrival_rate = 5  # after its step was ticked
    send(lab, "pause", t=2)
    assert not runner.finished
    assert "Arrival rate λ is 5 now, but this exercise needs 4" in beside_play(lab)
    lab.model.arrival_rate = 4
    assert runner.finished and beside_play(lab) == ""
