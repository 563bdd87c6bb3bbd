"""Which misconception a prediction shows: right, one of the exercise's named mistakes, or another answer.

Pure functions on plain values (numbers and texts, no lesson objects), so that a prediction is
judged against the numbers its student saw: the exercise as written, or later a variant of it
with its own answer, tolerance and mistakes. The rule is the exercise's own: a prediction within
the tolerance of the answer is right; otherwise it shows the first named mistake it is within the
tolerance of; otherwise it is "other". A choice exercise is the same rule on choice positions with
a tolerance of 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

SLACK = 1e-9
"""Added to the tolerance, as the exercise's verdict does, so a prediction exactly at its edge counts."""

RIGHT, MISTAKE, OTHER = "right", "mistake", "other"


@dataclass(frozen=True)
class Outcome:
    """How one prediction was judged.

    Attributes
    ----------
    kind : str
        ``"right"``, ``"mistake"`` or ``"other"``.
    mistake : int, optional
        For ``"mistake"``: the position of the named mistake in the exercise's list.
    """

    kind: str
    mistake: int | None = None


@dataclass(frozen=True)
class Judge:
    """The numbers a prediction is judged against: the answer, its tolerance and the named mistakes' answers."""

    answer: float
    tolerance: float
    mistakes: tuple[float, ...] = ()

    def __call__(self, prediction: float) -> Outcome:
        """Classify ``prediction`` (see :func:`classify`)."""
        return classify(prediction, self.answer, self.tolerance, self.mistakes)


def classify(prediction: float, answer: float, tolerance: float, mistakes: Sequence[float]) -> Outcome:
    """Judge one prediction: right, which named mistake, or other.

    Parameters
    ----------
    prediction : float
        What the student locked (a choice exercise's choice position).
    answer : float
        The answer the student's exercise had.
    tolerance : float
        How far from ``answer`` (and from each mistake) still counts, 0 or more.
    mistakes : sequence of float
        The named mistakes' answers, in the exercise's order.

    Returns
    -------
    Outcome
        ``right`` within the tolerance of the answer; else the first mistake within the tolerance of
        its answer; else ``other`` (a prediction that is not a finite number is ``other`` too).
    """
    if abs(prediction - answer) <= tolerance + SLACK:
        return Outcome(RIGHT)
    for index, wrong in enumerate(mistakes):
        if abs(prediction - wrong) <= tolerance + SLACK:
            return Outcome(MISTAKE, index)
    return Outcome(OTHER)


@dataclass(frozen=True)
class Share:
    """How many of the class one outcome holds, with the words for it.

    Attributes
    ----------
    outcome : Outcome
        What these predictions were judged to be.
    label : str
        "right", the mistake's label, or "other answers".
    count, total : int
        How many predictions showed it, out of how many.
    """

    outcome: Outcome
    label: str
    count: int
    total: int

    @property
    def percent(self) -> int:
        """The share in whole percent (0 for an empty class)."""
        return percent(self.count, self.total)

    @property
    def amount(self) -> str:
        """``4 of 12 (33%)``."""
        return amount(self.count, self.total)

    def text(self) -> str:
        """``4 of 12 (33%): the arrival rate alone``."""
        return f"{self.amount}: {self.label}"


def percent(count: int, total: int) -> int:
    """``count`` of ``total`` in whole percent, rounded half to even (0 for an empty class)."""
    return round(100 * count / total) if total else 0


def amount(count: int, total: int) -> str:
    """``4 of 12 (33%)``."""
    return f"{count} of {total} ({percent(count, total)}%)"


def split(outcomes: Iterable[Outcome], labels: Sequence[str]) -> list[Share]:
    """The class split: right, then every named mistake in the exercise's order, then other.

    Parameters
    ----------
    outcomes : iterable of Outcome
        One per locked prediction.
    labels : sequence of str
        The named mistakes' labels, in the exercise's order (one per mistake).

    Returns
    -------
    list of Share
        ``len(labels) + 2`` shares whose counts add up to the number of outcomes; a mistake nobody
        showed is listed with 0.
    """
    outcomes = list(outcomes)
    total = len(outcomes)
    right = sum(1 for o in outcomes if o.kind == RIGHT)
    other = sum(1 for o in outcomes if o.kind == OTHER)
    per_mistake = [0] * len(labels)
    for outcome in outcomes:
        if outcome.kind == MISTAKE and outcome.mistake is not None:
            per_mistake[outcome.mistake] += 1
    shares = [Share(Outcome(RIGHT), "right", right, total)]
    shares += [Share(Outcome(MISTAKE, k), label, per_mistake[k], total) for k, label in enumerate(labels)]
    shares.append(Share(Outcome(OTHER), "other answers", other, total))
    return shares


def outcome_name(outcome: Outcome, labels: Sequence[str]) -> str:
    """An outcome in one cell of the CSV export: ``right``, ``other`` or ``mistake: <label>``."""
    if outcome.kind == MISTAKE and outcome.mistake is not None:
        return f"mistake: {labels[outcome.mistake]}"
    return outcome.kind
