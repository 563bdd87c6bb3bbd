"""What a student sees of the class once the round is revealed: one line starting ``class:``.

Pure text from a round's predictions (each judged on the numbers its student saw) and the
student's own; nothing here reads the database or is shown before the reveal.
"""

from __future__ import annotations

import numpy as np

from app.classroom.judging import judged, round_split
from app.classroom.store import Round, RoundVotes
from app.course.content import Exercise
from app.course.misconceptions import MISTAKE, RIGHT, amount
from app.course.variants import variant_named
from labs.timed import format_number


def class_result_text(
    exercise: Exercise,
    predictions: tuple[float, ...] | RoundVotes,
    mine: float | None,
    mine_variant: str | None = None,
) -> str:
    """The class result a student sees after the reveal, one line starting ``class:``.

    Parameters
    ----------
    exercise : Exercise
        Its answer, tolerance, unit and named mistakes (or its choices).
    predictions : tuple of float or RoundVotes
        Every prediction locked in the round (a choice exercise's are choice positions); a
        RoundVotes also says which variant each was made in.
    mine : float, optional
        This student's.
    mine_variant : str, optional
        The variant this student saw (None: the exercise as written).

    Returns
    -------
    str
        The split of the class, right first, then each named mistake someone showed with its label,
        then other answers; for example ``class: 12 locked · 8 of 12 (67%): right, within ±0.05 of
        the answer 1 ms · 4 of 12 (33%): the arrival rate alone · median 1 ms · yours 4 ms (the
        arrival rate alone)``. When anyone in the round (or this student) was given new numbers,
        each prediction is judged on its own numbers, the line says so instead of quoting one
        answer, leaves the median out, and ends with the answer to this student's numbers. A choice
        exercise counts each choice, with its label when it is a named mistake.
    """
    votes = predictions if isinstance(predictions, RoundVotes) else RoundVotes(Round(1, True), tuple(predictions))
    asked = _asked(exercise, mine_variant)  # the numbers this student was given
    if exercise.choices:
        return _choice_result_text(exercise, votes, mine, mine_variant)
    if not votes.predictions:
        answer = asked.with_unit(format_number(asked.answer))
        return f"class: nobody locked a prediction in this round · the answer is {answer}"
    values = np.asarray(votes.predictions, dtype=float)
    right, *named, other = round_split(exercise, votes)
    mixed = any(votes.variant_of(k) is not None for k in range(len(values))) or mine_variant is not None
    if mixed:  # students were asked different numbers: each was judged on their own, and a median means nothing
        rule = "each judged on the numbers they were given"
    else:
        answer = exercise.with_unit(format_number(exercise.answer))
        rule = f"within ±{format_number(exercise.tolerance)} of the answer {answer}"
    parts = [f"class: {len(values)} locked", f"{right.amount}: right, {rule}", *(s.text() for s in named if s.count)]
    if other.count:
        parts.append(other.text())
    if not mixed:
        parts.append(f"median {exercise.with_unit(format_number(float(np.median(values))))}")
    if mine is not None:
        own = _own(exercise, mine, mine_variant)
        if mixed:
            own += f"; the answer to your numbers is {asked.with_unit(format_number(asked.answer))}"
        parts.append(f"yours {exercise.with_unit(format_number(mine, exact=True))} ({own})")
    return " · ".join(parts)


def _asked(exercise: Exercise, variant: str | None) -> Exercise:
    """The exercise with the numbers of ``variant`` (the exercise as written when there is none or it is unknown)."""
    return (variant_named(exercise, variant) if variant is not None else None) or exercise


def _own(exercise: Exercise, mine: float, variant: str | None) -> str:
    """What this student's own prediction was judged: right, the mistake's label, or another answer."""
    outcome = judged(exercise, mine, variant)
    if outcome.kind == RIGHT:
        return "right"
    if outcome.kind == MISTAKE and outcome.mistake is not None:
        return exercise.mistake_label(outcome.mistake)
    return "another answer"


def _choice_result_text(exercise: Exercise, votes: RoundVotes, mine: float | None, variant: str | None) -> str:
    answer = f"“{exercise.choice_text(_asked(exercise, variant).answer)}”"
    if not votes.predictions:
        return f"class: nobody locked a prediction in this round · the answer is {answer}"
    total = len(votes.predictions)
    counts = choice_counts(exercise, votes.predictions)
    answer_index = int(exercise.answer)
    labels = {int(m.answer): exercise.mistake_label(k) for k, m in enumerate(exercise.mistakes) if m.label}
    parts = [f"class: {total} locked", f"{amount(counts[answer_index], total)}: right, {answer}"]
    for k in range(len(counts)):
        if k != answer_index and counts[k]:
            named = f", {labels[k]}" if k in labels else ""
            parts.append(f"{amount(counts[k], total)}: “{exercise.choices[k]}”{named}")
    if mine is not None:
        parts.append(f"yours “{exercise.choice_text(mine)}” ({_own(exercise, mine, variant)})")
    return " · ".join(parts)


def choice_counts(exercise: Exercise, predictions: tuple[float, ...]) -> list[int]:
    """How many predictions chose each of a choice exercise's choices, in the order of its choices."""
    return [sum(1 for p in predictions if int(p) == k) for k in range(len(exercise.choices))]
