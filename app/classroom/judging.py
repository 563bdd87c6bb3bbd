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


@cache
def _exercises() -> dict[str, Exercise]:
    return {f"{lesson.slug}/{e.id}": e for lesson in lessons() for e in lesson.exercises}


def csv_class(key: str, prediction: float, variant: str | None) -> str:
    """A vote's class for the CSV export: ``right``, ``mistake: <label>``, ``other`` ('' for an unknown exercise)."""
    exercise = _exercises().get(key)
    if exercise is None:
        return ""
    return outcome_name(judged(exercise, prediction, variant), labels_of(exercise))
