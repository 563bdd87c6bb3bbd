"""New numbers for an exercise: rules, templates, variants checked at load, and the runner's retry."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.course.content import SpecError, load_lessons, parse_lesson
from app.course.exercise import ExerciseRunner, ExerciseSession
from app.course.exercise_words import model_reading
from app.course.progress import ProgressStore
from app.course.variants import (
    RETRY_LABEL,
    RuleError,
    asked_with_new_numbers,
    combinations,
    evaluate,
    fill,
    next_variant,
    run_steps,
    variant,
)
from labs.numbers import format_number
from labs.queue.view import QueueLab
from tests.headless import send

LESSONS = load_lessons()
VARYING = [(lesson, e) for lesson in LESSONS for e in lesson.exercises if e.vary]
VARIANTS = [(e, values) for _, e in VARYING for values in combinations(e)[1:]]

SPEC = """---
title: Test
lab: queue
summary: A test lesson.
---

```exercise
id: growth
title: Growth
constants: [2]
steps:
  - reset
  - set: {arrival_rate: 4}
  - set: {service_rate: 3}
  - predict
  - run: {until: 2}
prediction:
  prompt: With λ = {arrival_rate} and μ = {service_rate}, how fast does the backlog change?
  quantity: net_rate
  unit: work units per second
answer: 1
tolerance: 0.05
vary:
  arrival_rate: [4, 5]
  service_rate: [2, 3]
mistakes:
  - answer: 4
    rule: arrival_rate
    reasoning: You took λ = {arrival_rate} alone, not {arrival_rate} − {service_rate}.
explanation: λ − μ = {answer}.
```
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "01-test.md"
    path.write_text(text, encoding="utf-8")
    return path


# ----- the rules' arithmetic --------------------------------------------------------------------


@given(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6))
def test_arithmetic_over_names_is_python_arithmetic(a, b):
    assert evaluate("a + b * 2 - -a", {"a": a, "b": b}) == pytest.approx(a + b * 2 + a)
    assert evaluate("max(a, b) - min(a, b)", {"a": a, "b": b}) == pytest.approx(abs(a - b))


@pytest.mark.parametrize(
    ("expression", "words"),
    [
        ("__import__('os')", "only numbers"),
        ("a.real", "only numbers"),
        ("c + 1", "unknown name 'c'"),
        ("a / 0", "division by zero"),
        ("a +", "not an arithmetic expression"),
        ("10 ** 400", "no value"),
    ],
)
def test_anything_but_arithmetic_over_known_names_is_refused(expression, words):
    with pytest.raises(RuleError, match=re.escape(words)):
        evaluate(expression, {"a": 1.0})


def test_a_template_fills_expressions_and_leaves_other_braces():
    assert fill("{a} − {b} = {a - b}; {not a name}; {}", {"a": 4, "b": 1.5}) == "4 − 1.5 = 2.5; {not a name}; {}"


# ----- the spec ---------------------------------------------------------------------------------


def test_a_varying_spec_fills_its_templates_with_its_own_numbers(tmp_path):
    (exercise,) = parse_lesson(write(tmp_path, SPEC)).exercises
    assert exercise.prompt == "With λ = 4 and μ = 3, how fast does the backlog change?"
    assert exercise.mistakes[0].reasoning == "You took λ = 4 alone, not 4 − 3."
    assert exercise.explanation == "λ − μ = 1."
    assert len(combinations(exercise)) == 4 and combinations(exercise)[0] == {"arrival_rate": 4, "service_rate": 3}


@pytest.mark.parametrize(
    ("old", "new", "field", "words"),
    [
        ("    rule: arrival_rate\n", "    rule: service_rate\n", "mistakes[0]", "its rule gives 3, not the 4 written"),
        ("    rule: arrival_rate\n", "", "mistakes[0]", "needs a rule or as_if"),
        ("    rule: arrival_rate\n", "    rule: speed\n", "mistakes", "unknown name 'speed'"),
        ("  arrival_rate: [4, 5]\n", "  initial_backlog: [4, 5]\n", "vary.initial_backlog", "varies only a number"),
        ("  service_rate: [2, 3]\n", "  service_rate: [2, -1]\n", "vary", "with arrival_rate = 4, service_rate = -1"),
    ],
)
def test_a_bad_variant_or_rule_is_named_with_its_file_exercise_and_field(tmp_path, old, new, field, words):
    assert old in SPEC
    with pytest.raises(SpecError) as error:
        parse_lesson(write(tmp_path, SPEC.replace(old, new)))
    assert f"field '{field}'" in str(error.value) and words in str(error.value)


def test_a_variant_whose_mistake_gives_the_answer_is_refused(tmp_path):
    # μ + 1 is 4 at λ = 4, μ = 3, a mistake; at λ = 5, μ = 2 it is 3, the answer itself
    spec = SPEC.replace("    rule: arrival_rate\n", "    rule: service_rate + 1\n")
    with pytest.raises(SpecError, match="with arrival_rate = 5, service_rate = 2 this mistake gives 3, within"):
        parse_lesson(write(tmp_path, spec))


# ----- the course's variants --------------------------------------------------------------------


def test_at_least_ten_numeric_exercises_vary():
    assert len(VARYING) >= 10, [e.id for _, e in VARYING]
    assert all(not e.choices for _, e in VARYING)


@pytest.mark.parametrize(
    ("exercise", "values"), VARIANTS, ids=[f"{e.id}-{'-'.join(map(format_number, v.values()))}" for e, v in VARIANTS]
)
def test_every_variant_is_answered_by_the_model_and_its_mistakes_lie_outside_the_tolerance(exercise, values):
    asked = variant(exercise, values)
    model = run_steps(asked)
    assert model_reading(model, asked) == pytest.approx(asked.answer)
    assert asked.id == exercise.id and dict(asked.variant) == values
    assert asked.tolerance >= exercise.tolerance
    for step in asked.steps:
        if step.kind == "set" and step.control in values:
            assert step.value == values[step.control] or step is not next(
                s for s in asked.steps if s.kind == "set" and s.control == step.control
            )
    for mistake in asked.mistakes:
        assert abs(mistake.answer - asked.answer) > asked.tolerance, (mistake.template, mistake.answer)
        assert asked.mistake_for(mistake.answer) == mistake
    stated = rf"(?<![\d.]){re.escape(format_number(asked.answer))} ?{re.escape(asked.unit)}"
    assert not re.search(stated, asked.prompt), "the prompt states the answer"
    for text in (asked.prompt, asked.explanation, *(m.reasoning for m in asked.mistakes)):
        assert not re.search(r"\{[^{}]*[a-z_]+[^{}]*\}", text), f"a placeholder left unfilled: {text!r}"
    caps = {s.control: s.value for s in asked.steps if s.kind == "set" and "cap" in s.control}
    assert caps.get("bucket_cap", 25) == 25 or caps.get("first_bucket_cap") == caps.get("bucket_cap")
    numbers = {format_number(v) for v in values.values()}
    assert any(re.search(rf"(?<![\d.]){re.escape(n)}(?![\d])", asked.prompt) for n in numbers), (
        "the prompt shows the new numbers"
    )


def test_a_students_retries_walk_every_variant_before_any_repeats():
    _, exercise = next((lesson, e) for lesson, e in VARYING if len(e.vary) >= 4)
    others = len(combinations(exercise)) - 1
    asked = [next_variant(exercise, 12345, attempt) for attempt in range(1, others + 1)]
    assert len({tuple(sorted(v.items())) for v in asked}) == others
    assert combinations(exercise)[0] not in asked, "new numbers are never the lesson's own"
    assert asked_with_new_numbers(exercise, 12345, 1) is asked_with_new_numbers(exercise, 12345, 1), "built once"
    assert [next_variant(exercise, 99, a) for a in (1, 2)] != asked[:2] or others < 3


# ----- the runner -------------------------------------------------------------------------------


@pytest.fixture
def growth():
    lesson, exercise = next((lesson, e) for lesson, e in VARYING if e.id == "growth")
    lab = QueueLab()
    progress = ProgressStore()
    runner = ExerciseRunner(
        lab=lab, session=ExerciseSession(), progress=progress, exercise=exercise, lesson_slug=lesson.slug
    )
    return lab, runner, progress


def judge(lab, runner, prediction: str) -> None:
    runner.card.receive({"action": "setup"})
    runner.card.receive({"action": "lock", "text": prediction})
    send(lab, "end", t=lab.model.horizon)


def test_new_numbers_are_offered_after_a_verdict_and_ask_the_same_question_again(growth):
    lab, runner, progress = growth
    runner.start()
    assert runner.card.retry_label == ""
    judge(lab, runner, "4")
    assert runner.card.verdict == "wrong" and runner.card.retry_label == RETRY_LABEL
    before = runner.card.steps_html
    runner.card.receive({"action": "retry", "seed": 777})
    asked = runner.exercise
    assert asked.variant and runner.active and not runner.locked and runner.card.retry_label == ""
    assert runner.card.steps_html != before and html_text(asked.prompt) in runner.card.steps_html
    assert runner.card.label == f"Exercise: {asked.title}" and html_text(asked.title) in runner.card.steps_html
    wanted = dict(asked.variant)
    assert runner.card.setup_label, "the setup is offered again, with the new numbers"
    runner.card.receive({"action": "setup"})
    assert (lab.model.arrival_rate, lab.model.service_rate) == (wanted["arrival_rate"], wanted["service_rate"])
    runner.card.receive({"action": "lock", "text": format_number(asked.answer)})
    send(lab, "end", t=lab.model.horizon)
    assert runner.card.verdict == "correct", runner.card.feedback_html
    assert progress.completed[runner.key] == {"correct": True}, "a right variant counts the exercise right"


def test_a_wrong_variant_names_the_variants_own_mistake(growth):
    lab, runner, _ = growth
    runner.start()
    judge(lab, runner, "1")
    runner.card.receive({"action": "retry", "seed": 5})
    asked = runner.exercise
    judge(lab, runner, format_number(asked.mistakes[0].answer))
    assert runner.card.verdict == "wrong"
    assert html_text(asked.mistakes[0].reasoning) in runner.card.explanation_html


def test_a_retry_message_with_a_bad_seed_still_asks_new_numbers_and_nothing_breaks(growth):
    lab, runner, _ = growth
    runner.start()
    judge(lab, runner, "1")
    for seed in (None, "x", -1, 2**60, True, 3.5):
        runner.card.receive({"action": "retry", "seed": seed})
        assert runner.exercise.variant and runner.active


def html_text(text: str) -> str:
    import html

    return html.escape(text)


def test_a_variant_is_stored_by_name_and_the_class_is_judged_against_its_numbers():
    from app.classroom.judging import judge_of
    from app.course.variants import variant_name, variant_named

    _, exercise = next((lesson, e) for lesson, e in VARYING if e.id == "growth")
    asked = asked_with_new_numbers(exercise, 4242, 1)
    name = variant_name(asked)
    assert name and variant_name(exercise) is None
    assert variant_named(exercise, name) is asked
    judge = judge_of(exercise, name)
    assert judge.answer == asked.answer and judge.tolerance == asked.tolerance
    assert judge.mistakes == tuple(m.answer for m in asked.mistakes)
    for stored in ("arrival_rate=1000;service_rate=2", "", "x", "arrival_rate=4;service_rate=3"):
        assert judge_of(exercise, stored) is None, stored  # only the exercise's own combinations are built
