"""A reload brings the running exercise back: the card says what to keep, and the server checks what returns.

The page keeps ``card.resume`` in the tab's storage and sends it back once after a reload
(``{"action": "resume", "state": ...}``); every field is checked as if typed. The browser half is
tests/browser/test_resume_browser.py.
"""

from __future__ import annotations

import pytest

from app.course.content import load_lessons
from app.course.exercise import ExerciseRunner, ExerciseSession
from app.course.progress import ProgressStore
from app.course.variants import variant_name
from labs.queue.view import QueueLab

GROWTH = next((lesson, e) for lesson in load_lessons() for e in lesson.exercises if e.id == "growth")


def fresh() -> tuple[QueueLab, ExerciseRunner]:
    """The growth exercise on a new page, started (as a deep link starts it)."""
    lesson, exercise = GROWTH
    lab = QueueLab()
    runner = ExerciseRunner(
        lab=lab, session=ExerciseSession(), progress=ProgressStore(), exercise=exercise, lesson_slug=lesson.slug
    )
    runner.start()
    return lab, runner


def test_the_card_says_what_a_reload_needs_while_the_exercise_runs():
    lab, runner = fresh()
    assert runner.card.resume == {"exercise": "growth", "variant": "", "retries": 0, "setup": False, "locked": ""}
    runner.card.receive({"action": "setup"})
    runner.card.receive({"action": "lock", "text": "2,5"})
    assert runner.card.resume["setup"] is True and runner.card.resume["locked"] == "2.5"
    runner.card.receive({"action": "retry", "seed": 99})  # new numbers before a verdict: refused, nothing changes
    runner.session.active = ""
    assert runner.card.resume == {}, "an exercise that is not running has nothing to bring back"


def test_a_resumed_page_gets_the_same_variant_setup_and_lock():
    # a verdict, then new numbers, set up and locked: what the tab keeps
    lab, runner = fresh()
    runner.card.receive({"action": "setup"})
    runner.card.receive({"action": "lock", "text": "0"})
    lab.model.t = lab.model.horizon
    assert runner.finished
    runner.card.receive({"action": "retry", "seed": 4242})
    runner.card.receive({"action": "setup"})
    runner.card.receive({"action": "lock", "text": "7"})
    kept = dict(runner.card.resume)
    assert kept["variant"] and kept["retries"] == 1 and kept["setup"] and kept["locked"] == "7"

    reloaded_lab, reloaded = fresh()
    reloaded.card.receive({"action": "resume", "state": kept})
    assert variant_name(reloaded.exercise) == kept["variant"] and reloaded.retries == 1
    assert reloaded.card.label == f"Exercise: {reloaded.exercise.title}"
    assert reloaded.locked and reloaded.card.prediction == "7" and not reloaded.finished
    values = dict(reloaded.exercise.variant)
    assert (reloaded_lab.model.arrival_rate, reloaded_lab.model.service_rate) == (
        values.get("arrival_rate", 4),
        values.get("service_rate", 3),
    )
    assert reloaded.card.feedback_html == "", "no verdict before a run"
    reloaded.card.receive({"action": "resume", "state": {**kept, "locked": "1"}})
    assert reloaded.card.prediction == "7", "resumed once: a second resume changes nothing"


@pytest.mark.parametrize(
    "state",
    [
        None,
        "variant",
        [],
        {"variant": "arrival_rate=999;service_rate=1"},
        {"variant": "x" * 10_000, "locked": "1"},
        {"variant": 5, "setup": "yes", "locked": 1},
        {"locked": "9" * 1000},
        {"locked": "nan"},
        {"retries": -3, "variant": ""},
        {"setup": 1},
    ],
)
def test_a_forged_or_stale_state_changes_nothing_it_should_not(state):
    lab, runner = fresh()
    before = (runner.exercise, runner.retries, runner.locked, lab.model.param.values())
    runner.card.receive({"action": "resume", "state": state})
    assert (runner.exercise, runner.retries, runner.locked) == before[:3]
    assert lab.model.param.values() == before[3]
