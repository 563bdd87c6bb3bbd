"""What a step kind and a prediction kind are, and the one registry of each.

A lesson's exercise is a list of steps (``reset``, ``set: {control: value}``, ``predict``,
``run: {until: …}``) and one prediction (a number, or one of some choices). Each kind of step and
each kind of prediction is one object here that knows how to read itself from the lesson's spec,
check itself, say itself on the card and tell the lab what it allows: nothing else in the course
compares a kind's name. ``docs/architecture.md`` ("Adding a step kind", "Adding a prediction kind")
says how to add one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from app.course.spec import SpecError, Step

if TYPE_CHECKING:
    from app.course.catalog import LabKind
    from app.course.spec import Exercise
    from labs.timed import TimedModel


@dataclass(frozen=True)
class Place:
    """Where in the lesson files a spec is read: for the :class:`SpecError` of a bad field."""

    path: Path
    exercise: str

    def error(self, message: str, field: str | None = None) -> SpecError:
        """A :class:`SpecError` naming this file, this exercise and ``field``."""
        return SpecError(self.path, message, self.exercise, field)


@dataclass(frozen=True)
class StepFacts:
    """What a running exercise knows when it asks whether its next step is done.

    Attributes
    ----------
    model : TimedModel
        The lab's model as it is now.
    locked : bool
        Whether a prediction is locked.
    played : bool
        Whether Play was pressed during this very step (a lab where Play changes nothing but the clock).
    """

    model: Any
    locked: bool
    played: bool


class StepKind:
    """One kind of step: how the spec writes it, when it is done, how the card says it, what it asks of the lab.

    Subclass it, set :attr:`name`, override what differs from these defaults, and
    :func:`register_step_kind` an instance.
    """

    name: ClassVar[str] = ""
    """The word the spec writes: alone (``reset``) or as the one key of a mapping (``set: {…}``)."""
    syntax: ClassVar[str] = ""
    """How the spec writes it, for the message that lists the kinds: ``"run: {until: …}"``."""
    bare: ClassVar[bool] = True
    """Written as its word alone (``reset``); else as a mapping of its word to a body (``run: {until: 4}``)."""
    setup: ClassVar[bool] = False
    """Part of the scene before the prediction, which "Set up the lab" puts in place."""
    runs: ClassVar[bool] = False
    """Done by running the lab: Play and Step stay on while such a step is left, and the lab may pause at it."""
    by_reset: ClassVar[bool] = False
    """Ticked off by the lab's Reset itself (the runner moves past it when Reset is pressed)."""
    predicts: ClassVar[bool] = False
    """The step where the prediction is locked (an exercise has exactly one, before any running step)."""

    def parse(self, body: object, lab: LabKind, place: Place, where: str) -> Step:
        """Read the step from the spec: ``body`` is None for a bare word, else what its word maps to."""
        return Step(kind=self.name)

    def rehearse(self, step: Step, model: TimedModel, place: Place, where: str) -> Step:
        """Check the step on a model as the steps before it leave it (the spec is read); the step as kept."""
        return step

    def play(self, step: Step, model: TimedModel) -> None:
        """Do the step on a model as a student would (the answer and each variant are worked out so)."""

    def done(self, step: Step, facts: StepFacts) -> bool:
        """Whether the student has done this step (it is the next one to do)."""
        return False

    def describe(self, step: Step, model_class: type, prediction: PredictionKind) -> str:
        """What the step asks the student to do, as the card lists it."""
        raise NotImplementedError

    def pause_at(self, step: Step) -> float | None:
        """Where the lab's run stops while this is the next step (None: it does not stop)."""
        return None

    def spotlight(self, step: Step) -> str | None:
        """The control the lab brings into view when this becomes the next step, or None."""
        return None

    def wanted(self, step: Step) -> tuple[str, object] | None:
        """The setting the verdict needs the lab to still have, ``(control, value)``, or None."""
        return None

    def gap(self, step: Step, model: TimedModel) -> str | None:
        """For a setup step not yet done: what the lab lacks of it, in words; None if it has it."""
        return None

    def apply(self, step: Step, lab: Any) -> None:
        """For a setup step: do it in the lab (the "Set up the lab" button)."""

    def numbers(self, step: Step) -> tuple[float, ...]:
        """The numbers the step carries as written (a variant's text must not leave them stale)."""
        return ()


class PredictionKind:
    """One kind of prediction: how the spec writes it, how a typed one is locked, how it is read and said.

    A prediction is a number in every kind (a choice's is its index), so the class database, the
    comparison with the model and the mistakes work the same for all.
    """

    name: ClassVar[str] = ""
    fields: ClassVar[frozenset[str]] = frozenset()
    """The fields of ``prediction:`` this kind takes besides ``prompt``, ``quantity`` and ``at``."""
    required: ClassVar[tuple[str, ...]] = ()
    """Of those, the ones it needs."""
    noun: ClassVar[str] = "number"
    """What the student gives, in the verdict's "Where that number comes from"."""
    verb: ClassVar[str] = "Type"
    """How the student gives it: "Type your prediction…", "Choose your prediction…"."""
    varies: ClassVar[bool] = True
    """Whether "Try it with new numbers" may ask it again with other numbers (``vary``)."""
    timed: ClassVar[bool] = True
    """Whether it may be read at a time (``at``)."""

    def claims(self, prediction: Mapping) -> bool:
        """Whether the spec's ``prediction:`` mapping asks this kind (later kinds are asked first)."""
        return False

    def mismatch(self, quantity: str, lab: LabKind) -> str | None:
        """Why ``quantity`` cannot be asked this way in ``lab`` (after the quantity's name), or None."""
        return None

    def parse(
        self, data: Mapping, prediction: Mapping, quantity: str, lab: LabKind, place: Place
    ) -> tuple[float, float, str, tuple[str, ...]]:
        """Read the answer: ``(answer, tolerance, unit, choices)``."""
        raise NotImplementedError

    def mistake(
        self, raw: object, ruled: bool, answer: tuple[float, float, tuple[str, ...]], place: Place, where: str
    ) -> float:
        """A mistake's wrong answer as a number.

        Parameters
        ----------
        raw : object
            The mistake's ``answer`` as the spec writes it.
        ruled : bool
            Whether the mistake has a ``rule`` or ``as_if``.
        answer : tuple
            ``(answer, tolerance, choices)`` as :meth:`parse` read them.
        place : Place
            The file and exercise, for errors.
        where : str
            The mistake's field (``mistakes[1]``).
        """
        raise NotImplementedError

    def lock(self, text: object, exercise: Exercise, counted: str | None) -> float | str:
        """What the student entered as a prediction, or the sentence that says why it cannot be locked."""
        raise NotImplementedError

    def read(self, model: TimedModel, exercise: Exercise) -> float:
        """The value of the exercise's quantity the model shows now: what the verdict compares with."""
        return model.reading(exercise.quantity, exercise.at)

    def amount_html(self, exercise: Exercise, value: float, exact: bool, counted: str | None) -> str:
        """A value of the quantity as the card says it, escaped HTML (``exact``: as typed)."""
        raise NotImplementedError


STEP_KINDS: dict[str, StepKind] = {}
"""Every step kind by the word the spec writes, in the order they were registered."""
PREDICTION_KINDS: dict[str, PredictionKind] = {}
"""Every prediction kind by name, in the order they were registered."""

_Kind = TypeVar("_Kind", StepKind, PredictionKind)


def _register(registry: dict[str, _Kind], kind: _Kind) -> _Kind:
    if not kind.name or kind.name in registry:
        raise ValueError(f"a kind needs a name of its own, not {kind.name!r}")
    registry[kind.name] = kind
    return kind


def register_step_kind(kind: StepKind) -> StepKind:
    """Add a step kind (its name must be new); returns it. :func:`unregister_step_kind` takes it out."""
    return _register(STEP_KINDS, kind)


def unregister_step_kind(name: str) -> None:
    """Take the step kind ``name`` out of the registry."""
    del STEP_KINDS[name]


def register_prediction_kind(kind: PredictionKind) -> PredictionKind:
    """Add a prediction kind (its name must be new); returns it."""
    return _register(PREDICTION_KINDS, kind)


def unregister_prediction_kind(name: str) -> None:
    """Take the prediction kind ``name`` out of the registry."""
    del PREDICTION_KINDS[name]


def step_kind(step: Step) -> StepKind:
    """The kind of ``step``."""
    return STEP_KINDS[step.kind]


def prediction_kind(exercise: Exercise) -> PredictionKind:
    """The kind of ``exercise``'s prediction."""
    return PREDICTION_KINDS[exercise.prediction_kind]
