"""The class by misconception: mistakes' labels in the lesson files, and the pure rule that judges a prediction."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.classroom.judging import judge_of, labels_of, round_split
from app.classroom.store import Round, RoundVotes
from app.course.content import CONTENT_DIR, SpecError, load_lessons, parse_lesson
from app.course.misconceptions import MISTAKE, OTHER, RIGHT, SLACK, Judge, Outcome, amount, classify, split
from app.course.spec import LABEL_MAX
from tests.course.test_content import GOOD, write

EXERCISES = [(lesson, e) for lesson in load_lessons(CONTENT_DIR) for e in lesson.exercises]
IDS = [f"{lesson.slug}/{e.id}" for lesson, e in EXERCISES]


# ----- labels in the lesson files ------------------------------------------------------------------


@pytest.mark.parametrize(("lesson", "exercise"), EXERCISES, ids=IDS)
def test_every_named_mistake_has_a_short_label_of_its_own(lesson, exercise):
    labels = [m.label for m in exercise.mistakes]
    assert all(labels), f"{lesson.slug}/{exercise.id}: every mistake needs a label (the class view names it)"
    assert all(len(label) <= LABEL_MAX and "\n" not in label for label in labels)
    assert len(set(labels)) == len(labels)
    assert labels_of(exercise) == labels


@pytest.mark.parametrize(("lesson", "exercise"), EXERCISES, ids=IDS)
def test_every_named_mistake_can_be_told_apart_in_the_class(lesson, exercise):
    """The answer is right, and each mistake's own answer is that mistake, not an earlier one."""
    judge = judge_of(exercise)
    assert judge(exercise.answer) == Outcome(RIGHT)
    for k, mistake in enumerate(exercise.mistakes):
        assert judge(mistake.answer) == Outcome(MISTAKE, k)
        assert exercise.mistake_for(mistake.answer) is mistake


LABELLED = GOOD.replace("answer: 1\n", "answer: 1\nmistakes:\n  - answer: 4\n    label: LABEL\n    reasoning: Four.\n")


def test_a_label_is_read_and_may_be_left_out(tmp_path):
    (exercise,) = parse_lesson(write(tmp_path, LABELLED.replace("LABEL", "the arrival rate alone"))).exercises
    assert exercise.mistakes[0].label == "the arrival rate alone"
    (bare,) = parse_lesson(write(tmp_path, LABELLED.replace("    label: LABEL\n", ""))).exercises
    assert bare.mistakes[0].label == "" and bare.mistake_label(0) == "the answer 4 units/s"


@pytest.mark.parametrize(
    ("label", "words"),
    [
        ("x" * (LABEL_MAX + 1), f"at most {LABEL_MAX} characters (not {LABEL_MAX + 1})"),
        ("''", "must be non-empty text"),
        ("", "must be non-empty text"),
        ("3", "must be non-empty text"),
        ("|\n      two\n      lines", "on one line"),
    ],
)
def test_a_bad_label_is_named_by_file_exercise_and_field(tmp_path, label, words):
    with pytest.raises(SpecError) as error:
        parse_lesson(write(tmp_path, LABELLED.replace("LABEL", label)))
    assert str(error.value).startswith("01-test.md, exercise 'growth', field 'mistakes[0].label': ")
    assert words in str(error.value)


def test_two_mistakes_with_one_label_are_refused(tmp_path):
    twice = LABELLED.replace("LABEL", "same").replace(
        "    reasoning: Four.\n", "    reasoning: Four.\n  - answer: 7\n    label: same\n    reasoning: Seven.\n"
    )
    with pytest.raises(SpecError, match=r"field 'mistakes\[1\].label': has the same label"):
        parse_lesson(write(tmp_path, twice))


def test_an_unknown_field_in_a_mistake_is_refused(tmp_path):
    with pytest.raises(SpecError, match="may have a 'label'"):
        parse_lesson(write(tmp_path, LABELLED.replace("    label: LABEL\n", "    name: x\n")))


# ----- the rule ------------------------------------------------------------------------------------

numbers = st.floats(-1e6, 1e6, allow_nan=False)
tolerances = st.floats(0, 100, allow_nan=False)


@given(numbers, tolerances, st.lists(numbers, max_size=5), numbers)
def test_an_outcome_is_what_the_exercise_would_say(answer, tolerance, mistakes, prediction):
    outcome = classify(prediction, answer, tolerance, mistakes)

    def near(target: float) -> bool:
        return abs(prediction - target) <= tolerance + SLACK

    if near(answer):
        assert outcome == Outcome(RIGHT)
    elif any(near(m) for m in mistakes):
        assert outcome.kind == MISTAKE and near(mistakes[outcome.mistake])
        assert not any(near(m) for m in mistakes[: outcome.mistake])  # the first one it matches
    else:
        assert outcome == Outcome(OTHER)
    assert Judge(answer, tolerance, tuple(mistakes))(prediction) == outcome


@given(numbers, tolerances, st.floats(-1, 1), st.integers(0, 2))
def test_a_prediction_within_the_tolerance_of_a_mistake_is_that_mistake(answer, tolerance, fraction, k):
    spacing = 3 * tolerance + 1  # mistakes further apart than two tolerances, and away from the answer
    mistakes = [answer + spacing * (n + 1) for n in range(3)]
    prediction = mistakes[k] + fraction * tolerance
    if abs(prediction - mistakes[k]) <= tolerance:  # floating point may push it past the edge by a hair
        assert classify(prediction, answer, tolerance, mistakes) == Outcome(MISTAKE, k)
    assert classify(answer + fraction * tolerance, answer, tolerance, mistakes) == Outcome(RIGHT)


def test_a_prediction_that_is_not_a_number_is_other():
    assert classify(math.nan, 1.0, 0.5, [2.0]) == Outcome(OTHER)


@given(st.lists(st.sampled_from([Outcome(RIGHT), Outcome(OTHER), Outcome(MISTAKE, 0), Outcome(MISTAKE, 1)])))
def test_the_split_counts_every_prediction_once(outcomes):
    shares = split(outcomes, ["first", "second"])
    assert [s.label for s in shares] == ["right", "first", "second", "other answers"]
    assert sum(s.count for s in shares) == len(outcomes) and all(s.total == len(outcomes) for s in shares)
    assert shares[1].count == outcomes.count(Outcome(MISTAKE, 0))


def test_the_words_of_a_share():
    shares = split([Outcome(RIGHT)] * 8 + [Outcome(MISTAKE, 0)] * 4, ["the arrival rate alone"])
    assert [s.text() for s in shares] == [
        "8 of 12 (67%): right",
        "4 of 12 (33%): the arrival rate alone",
        "0 of 12 (0%): other answers",
    ]
    assert amount(0, 0) == "0 of 0 (0%)"


# ----- the class's votes, each judged against the numbers its student saw -----------------------------

GROWTH = next(e for lesson, e in EXERCISES if lesson.slug == "overlap" and e.id == "growth")


def test_a_vote_made_in_a_variant_is_judged_against_that_variant():
    """A variant with λ = 6, μ = 3: answer 3, the arrival-rate-alone mistake 6, the sign slip −3."""

    def variants(exercise, name):
        return Judge(3.0, exercise.tolerance, (6.0, -3.0)) if name == "lambda-6" else None

    votes = RoundVotes(Round(1, True), (1.0, 4.0, 3.0, 6.0, 6.0, 9.0), (None, None, "lambda-6", "lambda-6", None, "x"))
    right, alone, swapped, other = round_split(GROWTH, votes, variants)
    assert right.count == 2  # 1 as written, 3 in the variant
    assert alone.count == 2 and alone.label == GROWTH.mistakes[0].label  # 4 as written, 6 in the variant
    assert swapped.count == 0
    assert other.count == 2  # 6 as written is nothing named; a vote in a variant nobody knows is "other"
