"""What a lesson file holds once read: the lesson, its exercises, their steps and typical mistakes.

:mod:`app.course.content` reads ``content/*.md`` into these; a mistake in a file is a :class:`SpecError`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from app.course.misconceptions import classify
from labs.timed import format_number

LABEL_MAX = 60
"""The longest a mistake's ``label`` may be: a phrase that fits one line of the instructor's view."""


def unit_after(number: str, unit: str) -> str:
    """``unit`` as it reads after ``number``: its noun in the singular after exactly one.

    Parameters
    ----------
    number : str
        The number as written (``"1"``, ``"-1"``, ``"1.00"``, ``"4"``).
    unit : str
        The exercise's unit as the lesson writes it, in the plural (``"work units per second"``).

    Returns
    -------
    str
        ``"work unit per second"`` after ``"1"`` or ``"−1"``; the unit as written after any other
        number (``"1.00 work units"`` reads as a plural in English) and for a symbol (``ms``, ``s``,
        ``GFLOP/s``), which has no plural.
    """
    if number.lstrip("+-−") != "1":
        return unit
    head, per, tail = unit.partition(" per ")
    words = head.split(" ")
    noun = words[-1]
    if len(noun) <= 2 or "/" in noun or not noun.endswith("s") or noun.endswith("ss"):
        return unit
    return " ".join([*words[:-1], noun[:-1]]) + per + tail


class SpecError(ValueError):
    """A lesson or exercise spec is malformed; the message names the file, exercise and field."""

    def __init__(self, path: Path, message: str, exercise: str | None = None, field: str | None = None):
        where = path.name
        if exercise:
            where += f", exercise {exercise!r}"
        if field:
            where += f", field {field!r}"
        super().__init__(f"{where}: {message}")
        self.path, self.exercise, self.field = path, exercise, field


@dataclass(frozen=True)
class Step:
    """One thing the student does in the lab.

    Attributes
    ----------
    kind : str
        The name of its kind in :data:`app.course.kinds.STEP_KINDS`: ``"reset"``, ``"set"``,
        ``"predict"`` or ``"run"`` in the course, each an object that reads, checks and says it.
    control : str, optional
        For ``set``: the control's parameter name.
    value : float, bool or str, optional
        For ``set``: the value as the model reads it (a number; on or off for a checkbox; a choice's
        text, or a bucket or layer number); for ``run``: the time to reach (None means the end).
    """

    kind: str
    control: str | None = None
    value: float | bool | str | None = None


@dataclass(frozen=True)
class Mistake:
    """A common wrong answer and the line of reasoning that leads to it.

    Attributes
    ----------
    answer : float
        The number that reasoning gives (in a choice exercise, the choice's index).
    reasoning : str
        What the student probably thought, said to them when their prediction matches it.
    label : str
        The misconception in a short phrase (at most :data:`LABEL_MAX` characters), for the class's
        split ("4 of 12 (33%): the arrival rate alone"); empty when the lesson gives none.
    """

    answer: float
    reasoning: str
    label: str = ""
    rule: str = ""
    """How the number follows from the exercise's numbers: an expression (:mod:`app.course.variants`)."""
    as_if: tuple[tuple[str, str], ...] = ()
    """Or: the lab's own reading with these settings changed, each ``(control, expression)``."""
    template: str = ""
    """The reasoning as written, with ``{...}`` placeholders for a variant's numbers."""


@dataclass(frozen=True)
class Exercise:
    """A guided predict-then-play exercise, exactly as the lesson file declares it.

    A choice exercise (``choices`` not empty) keeps its answer and its mistakes as indices into
    ``choices``, with a tolerance of 0: a prediction is a number either way, for the class database
    and for the comparison with the model.
    """

    id: str
    title: str
    lab: str
    steps: tuple[Step, ...]
    prompt: str
    quantity: str
    unit: str
    at: float | None
    answer: float
    tolerance: float
    explanation: str
    mistakes: tuple[Mistake, ...] = ()
    choices: tuple[str, ...] = ()
    vary: tuple[tuple[tuple[str, float], ...], ...] = ()
    """The other numbers "Try it with new numbers" may ask with: combinations of ``(control, value)``."""
    prompt_template: str = ""
    """The prompt as written, with ``{...}`` placeholders (``prompt`` is it filled for these numbers)."""
    explanation_template: str = ""
    """The explanation as written, with placeholders."""
    variant: tuple[tuple[str, float], ...] = ()
    """For a variant, the varied controls' values; empty for the exercise as the lesson writes it."""
    title_template: str = ""
    """The title as written, with ``{...}`` placeholders (``title`` is it filled for these numbers)."""
    constants: tuple[float, ...] = ()
    """The numbers a varying exercise's text may carry as written: the same in every variant."""
    ideas: tuple[int, ...] = ()
    """The source texts' ideas this exercise asks the student to predict (``../shared/seed-coverage.md``)."""
    prediction_kind: str = "number"
    """How the student predicts: the name of a kind in :data:`app.course.kinds.PREDICTION_KINDS`."""

    def choice_text(self, value: float) -> str:
        """The text of the choice with index ``value`` (a choice exercise's prediction or reading)."""
        index = int(value)
        return self.choices[index] if 0 <= index < len(self.choices) else "none of these"

    def as_entered(self, value: float) -> str:
        """A prediction as the student enters it: the choice's text, or the number as typed."""
        return self.choice_text(value) if self.choices else format_number(value, exact=True)

    def mistake_for(self, prediction: float) -> Mistake | None:
        """The common mistake a wrong prediction matches (within the tolerance), if any."""
        outcome = classify(prediction, self.answer, self.tolerance, [m.answer for m in self.mistakes])
        return None if outcome.mistake is None else self.mistakes[outcome.mistake]

    def mistake_label(self, index: int) -> str:
        """The short label of mistake ``index``; without one, the wrong answer itself ("the answer 4 ms")."""
        mistake = self.mistakes[index]
        if mistake.label:
            return mistake.label
        if self.choices:
            return f"the choice “{self.choice_text(mistake.answer)}”"
        return f"the answer {self.with_unit(format_number(mistake.answer))}".rstrip()

    def with_unit(self, number: str) -> str:
        """``number`` (as written) followed by the exercise's unit, in the singular after exactly one."""
        return f"{number} {unit_after(number, self.unit)}".rstrip()


@dataclass(frozen=True)
class Lesson:
    """One lesson: its text split around its exercises."""

    slug: str
    path: Path
    title: str
    lab: str
    summary: str
    parts: tuple[str | Exercise, ...] = field(default_factory=tuple)

    @property
    def exercises(self) -> tuple[Exercise, ...]:
        """The lesson's exercises, in reading order."""
        return tuple(part for part in self.parts if isinstance(part, Exercise))

    def exercise(self, exercise_id: str) -> Exercise | None:
        """The exercise with this id, or None."""
        return next((e for e in self.exercises if e.id == exercise_id), None)
