"""The class's predictions judged as the exercise judges them: right, which named mistake, or other.

Links the pure rule (:mod:`app.course.misconceptions`) to the lessons and the stored votes: each
vote is judged against the numbers of the variant its student saw (``None``: the exercise as
written), and the counts come from predictions already read, never a query per vote.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from app.classroom.store import RoundVotes
from app.course.content import Exercise
from app.course.library import lessons
from app.course.misconceptions import OTHER, Judge, Outcome, Share, outcome_name, split
from app.course.variants import variant_named
from labs.timed import format_number

VariantJudge = Callable[[Exercise, str], Judge | None]
"""How to find a variant's numbers from its name (the value stored in ``votes.variant``)."""


def variant_judge(exercise: Exercise, variant: str) -> Judge | None:
    """The numbers of ``variant`` of ``exercise``: its answer, tolerance and mistakes' answers, recomputed.

    ``variant`` is the name stored with the vote (:func:`app.course.variants.variant_name`); only a
    combination the exercise declares is built (once per process), anything else finds nothing.
    Every caller here (the instructor's split, the students' line, the CSV and rounds.json) uses it.
    """
    asked = variant_named(exercise, variant)
    if asked is None:
        return None
    return Judge(asked.answer, asked.tolerance, tuple(m.answer for m in asked.mistakes))


def judge_of(exercise: Exercise, variant: str | None = None, variants: VariantJudge | None = None) -> Judge | None:
    """The numbers a prediction made in ``variant`` of ``exercise`` is judged against.

    Parameters
    ----------
    exercise : Exercise
        The exercise as written.
    variant : str, optional
        The variant the student saw; None for the exercise as written.
    variants : callable, optional
        ``variants(exercise, variant)``: the variant's judge (its own answer, tolerance and
        mistakes); :func:`variant_judge` by default.

    Returns
    -------
    Judge or None
        None for a variant that cannot be found (such a vote counts as "other").
    """
    if variant is None:
        return Judge(exercise.answer, exercise.tolerance, tuple(m.answer for m in exercise.mistakes))
    return (variants or variant_judge)(exercise, variant)


def labels_of(exercise: Exercise) -> list[str]:
    """The exercise's named mistakes' labels, in its order (a mistake without one named by its answer)."""
    return [exercise.mistake_label(k) for k in range(len(exercise.mistakes))]


def judged(
    exercise: Exercise, prediction: float, variant: str | None = None, variants: VariantJudge | None = None
) -> Outcome:
    """One prediction's outcome: right, which named mistake, or other."""
    judge = judge_of(exercise, variant, variants)
    return Outcome(OTHER) if judge is None else judge(prediction)


def round_split(exercise: Exercise, votes: RoundVotes, variants: VariantJudge | None = None) -> list[Share]:
    """A round's split: right, each named mistake with its label, then other (one Share each)."""
    judges: dict[str | None, Judge | None] = {}  # one per variant in the round, not one per vote
    outcomes = []
    for k, prediction in enumerate(votes.predictions):
        variant = votes.variant_of(k)
        if variant not in judges:
            judges[variant] = judge_of(exercise, variant, variants)
        judge = judges[variant]
        outcomes.append(Outcome(OTHER) if judge is None else judge(prediction))
    return split(outcomes, labels_of(exercise))


RANGE_FACTOR = 1000.0
"""A prediction is sane within this many times the largest number the exercise judges by (or 1), either sign."""


def prediction_range(exercise: Exercise) -> tuple[float, float]:
    """The predictions that make sense for ``exercise`` (the numbers its student was asked), from its judge.

    Parameters
    ----------
    exercise : Exercise
        The exercise as asked (a variant's own numbers when it is one).

    Returns
    -------
    (float, float)
        ``(-R, R)`` with ``R`` :data:`RANGE_FACTOR` times the largest of 1, the answer, the tolerance
        and the named mistakes' answers (in size): ``1e308`` is never a prediction of anything here.
    """
    scale = max(1.0, abs(exercise.answer), exercise.tolerance, *(abs(m.answer) for m in exercise.mistakes))
    return -RANGE_FACTOR * scale, RANGE_FACTOR * scale


def out_of_range_text(value: float, low: float, high: float, unit: str) -> str:
    """What the card says of a prediction outside :func:`prediction_range`, with the range to use."""
    where = f"from {format_number(low)} to {format_number(high)}" + (f" {unit}" if unit else "")
    return f"Your prediction: {format_number(value)} is far outside what this exercise can give; type a number {where}."


@cache
def _exercises() -> dict[str, Exercise]:
    return {f"{lesson.slug}/{e.id}": e for lesson in lessons() for e in lesson.exercises}


def csv_class(key: str, prediction: float, variant: str | None) -> str:
    """A vote's class for the CSV export: ``right``, ``mistake: <label>``, ``other`` ('' for an unknown exercise)."""
    exercise = _exercises().get(key)
    if exercise is None:
        return ""
    return outcome_name(judged(exercise, prediction, variant), labels_of(exercise))
