"""Every retry true to its own numbers: stray numbers refused, answers apart, no answer in a step, MiB ≠ MB.

Each test runs over every variant of every exercise, through the code the page uses
(:func:`app.course.variants.variant`, :func:`~app.course.variants.run_steps`).
"""

from __future__ import annotations

from functools import cache

import pytest

from app.course.content import SpecError, load_lessons, parse_lesson
from app.course.spec import Exercise
from app.course.variant_text import literal_numbers, stray_numbers
from app.course.variants import combinations, variant
from tests.course.slips import mib_taken_as_mb
from tests.course.test_variants import SPEC as GROWTH_SPEC
from tests.course.test_variants import write

LESSONS = load_lessons()
EXERCISES = [e for lesson in LESSONS for e in lesson.exercises]
VARYING = [e for e in EXERCISES if e.vary]


@cache
def asked(exercise: Exercise) -> tuple[Exercise, ...]:
    """The exercise as written, then each of its variants as a retry asks it."""
    return (exercise, *(variant(exercise, values) for values in combinations(exercise)[1:]))


def ids(exercises):
    return [e.id for e in exercises]


# ----- the format: a number in a varying exercise is a placeholder or a declared constant --------

SPEC = (
    GROWTH_SPEC.replace("title: Growth\n", "title: Growth from {arrival_rate} in, {service_rate} out\n")
    .replace("how fast does the backlog change?", "how fast does the backlog change over 2 s?")
    .replace("    rule: arrival_rate\n", "    rule: arrival_rate\n    label: the arrival rate alone\n")
)
"""test_variants' growth spec, with a templated title, a constant in its prompt and a mistake's label."""


def test_numbers_in_prose_are_found_but_not_the_digits_of_a_word_or_a_placeholder():
    text = "bf16 halves 26,214,400 bytes: 1.75 × {ranks} in L1 at 8 ms, c10d {answer - 2}"
    assert literal_numbers(text) == [26214400, 1.75, 8]


def test_a_varying_title_is_filled_with_each_variants_numbers(tmp_path):
    (exercise,) = parse_lesson(write(tmp_path, SPEC)).exercises
    assert exercise.title == "Growth from 4 in, 3 out"
    retry = variant(exercise, {"arrival_rate": 5, "service_rate": 2})
    assert retry.title == "Growth from 5 in, 2 out" and "λ = 5 and μ = 2" in retry.prompt


@pytest.mark.parametrize(
    ("old", "new", "field", "number"),
    [
        (
            "title: Growth from {arrival_rate} in, {service_rate} out",
            "title: Four in, 4 a second",
            "title",
            "4",
        ),
        ("explanation: λ − μ = {answer}.", "explanation: λ − μ = 4 − 3 = {answer}.", "explanation", "4"),
        ("alone, not {arrival_rate}", "alone, not 4", "mistakes[0].reasoning", "4"),
        ("label: the arrival rate alone", "label: the arrival rate alone (4)", "mistakes[0].label", "4"),
        ("constants: [2]\n", "", "prediction.prompt", "2"),
    ],
)
def test_a_varying_exercise_with_a_number_a_variant_leaves_stale_stops_the_start(tmp_path, old, new, field, number):
    assert old in SPEC
    with pytest.raises(SpecError) as error:
        parse_lesson(write(tmp_path, SPEC.replace(old, new)))
    message = str(error.value)
    assert f"field '{field}'" in message and f"carries the number {number}," in message and "constants" in message


def test_a_step_value_no_variant_changes_must_be_a_constant(tmp_path):
    spec = SPEC.replace("constants: [2]\n", "").replace(" over 2 s?", "?")
    with pytest.raises(SpecError, match=r"field 'steps\[4\]': carries the number 2,"):
        parse_lesson(write(tmp_path, spec))


def test_a_fixed_exercise_may_write_its_own_numbers(tmp_path):
    fixed = SPEC.replace("vary:\n  arrival_rate: [4, 5]\n  service_rate: [2, 3]\n", "").replace("constants: [2]\n", "")
    (exercise,) = parse_lesson(
        write(tmp_path, fixed.replace("title: Growth from", "title: 4 a second; growth from"))
    ).exercises
    assert stray_numbers(exercise) == []


@pytest.mark.parametrize("raw", ["[0]", "[47]", "[1.5]", "seven", "[x]"])
def test_ideas_must_be_numbers_of_the_source_ideas(tmp_path, raw):
    with pytest.raises(SpecError, match="field 'ideas"):
        parse_lesson(write(tmp_path, SPEC.replace("constants: [2]\n", f"constants: [2]\nideas: {raw}\n")))


# ----- the course's exercises and variants --------------------------------------------------------


def test_at_least_twenty_exercises_vary():
    assert len(VARYING) >= 20, ids(VARYING)


@pytest.mark.parametrize("exercise", VARYING, ids=ids(VARYING))
def test_every_varying_exercise_asks_at_least_five_other_combinations(exercise):
    assert len(combinations(exercise)) - 1 >= 5, combinations(exercise)


@pytest.mark.parametrize("exercise", VARYING, ids=ids(VARYING))
def test_no_retry_can_be_answered_from_memory(exercise):
    every = asked(exercise)
    for index, one in enumerate(every):
        for other in every[:index]:
            apart = max(one.tolerance, other.tolerance)
            assert abs(one.answer - other.answer) > apart, (dict(one.variant), dict(other.variant), one.answer)


@pytest.mark.parametrize("exercise", VARYING, ids=ids(VARYING))
def test_every_retrys_mistakes_differ_from_its_answer_and_from_each_other(exercise):
    for one in asked(exercise):
        values = [one.answer, *(m.answer for m in one.mistakes)]
        for index, value in enumerate(values):
            assert all(abs(value - earlier) > one.tolerance for earlier in values[:index]), (dict(one.variant), values)


def step_numbers(exercise: Exercise) -> list[float]:
    """Every number the step list shows before the prediction (set values and run-until times)."""
    numbers = []
    for step in exercise.steps:
        if isinstance(step.value, int | float) and not isinstance(step.value, bool):
            numbers.append(float(step.value))
    return numbers


NUMERIC = [e for e in EXERCISES if not e.choices]


@pytest.mark.parametrize("exercise", NUMERIC, ids=ids(NUMERIC))
def test_no_step_states_the_answer(exercise):
    for one in asked(exercise):
        near = [n for n in step_numbers(one) if abs(n - one.answer) <= max(one.tolerance, 1e-9)]
        assert not near, f"{one.id} {dict(one.variant)}: a step shows {near}, the answer is {one.answer}"


TIMED = [e for e in NUMERIC if e.lab == "timeline" and e.unit == "ms"]


@pytest.mark.parametrize("exercise", TIMED, ids=ids(TIMED))
def test_mib_taken_as_mb_never_passes_as_right_and_is_named(exercise):
    for one in asked(exercise):
        slip = mib_taken_as_mb(one)
        if abs(slip - one.answer) < 1e-6:
            continue  # the answer does not depend on bytes
        where = f"{one.id} {dict(one.variant)}: MiB taken as MB gives {slip:.3f} against {one.answer:.3f}"
        assert abs(slip - one.answer) > one.tolerance, where + f" (tolerance {one.tolerance})"
        named = one.mistake_for(slip)
        assert named is not None, where + ": no mistake names it"
        assert "MB" in named.label, where + f": filed as {named.label!r}"


def test_every_exercise_names_the_ideas_it_predicts():
    assert [e.id for e in EXERCISES if not e.ideas] == []
