"""Which predictions make sense for an exercise: the range the lock takes, and what it says of a number outside it.

The class's histogram draws only these too (:mod:`app.classroom.histogram`), so a vote of
``1.7e308`` forced into the database past the lock cannot stretch the instructor's chart.
"""

from __future__ import annotations

from app.course.spec import Exercise
from labs.timed import format_number

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
