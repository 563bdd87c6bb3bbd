"""What an exercise says and reads: its steps in words, a control's value as shown, the quantity with its unit.

Pure functions of an exercise's spec and its lab's model class (no session state), used by the runner
(:mod:`app.course.exercise`) and by the tests that check the page's words.
"""

from __future__ import annotations

from app.course.catalog import lab_kinds
from app.course.kinds import PREDICTION_KINDS, PredictionKind, prediction_kind, same, shown_setting, step_kind
from app.course.spec import Exercise, Step
from labs.timed import TimedModel

__all__ = ["amount_html", "counted", "describe_step", "model_reading", "play_buttons", "same", "shown_setting"]


def describe_step(step: Step, model_class: type, choice: bool | PredictionKind = False) -> str:
    """Say what a step asks the student to do (its kind says it).

    Parameters
    ----------
    step : Step
        One step of an exercise.
    model_class : type
        The lab's model class, for control labels.
    choice : bool or PredictionKind
        The exercise's prediction kind (``True`` for the choice kind, ``False`` for a number).

    Returns
    -------
    str
        For example ``"Set Arrival rate λ to 4"``.
    """
    prediction = choice if isinstance(choice, PredictionKind) else PREDICTION_KINDS["choice" if choice else "number"]
    return step_kind(step).describe(step, model_class, prediction)


def play_buttons(model_class: type) -> tuple[str, str]:
    """The buttons that run a lab, as an exercise names them, and the verb's ending that agrees with them.

    Parameters
    ----------
    model_class : type
        The lab's model class; one whose Play is another button names it in ``play_words``.

    Returns
    -------
    tuple of str
        ``("Play and Step", "")`` for the timed labs (so "Play and Step stay off"); the sample
        trace's ``("Load the sample trace", "s")`` ("… stays off").
    """
    words = getattr(model_class, "play_words", "")
    return (words, "s") if words else ("Play and Step", "")


def counted(exercise: Exercise) -> str | None:
    """The singular of what ``exercise`` counts (``"bucket"``), or None for a measured quantity."""
    return lab_kinds()[exercise.lab].counts.get(exercise.quantity)


def amount_html(exercise: Exercise, value: float, exact: bool = False) -> str:
    """A value of the exercise's quantity with its unit, as escaped HTML: ``4.40 ms``, ``1 bucket``.

    Parameters
    ----------
    exercise : Exercise
        The exercise whose quantity and unit these are.
    value : float
        The value.
    exact : bool
        Write a measured value as typed (a prediction) rather than to two decimals (the lab's).

    Returns
    -------
    str
        A choice's text in quotation marks; a count as a whole number with its noun in the singular or plural; anything
        else with its unit.
    """
    return prediction_kind(exercise).amount_html(exercise, value, exact, counted(exercise))


def model_reading(model: TimedModel, exercise: Exercise) -> float:
    """Read the exercise's quantity from the model: the value the feedback compares against.

    Parameters
    ----------
    model : TimedModel
        The lab's model.
    exercise : Exercise
        The exercise naming the quantity (and, optionally, the time to read it at).

    Returns
    -------
    float
        For example ``model.net_rate`` or ``model.backlog_at(4)``; for a choice exercise, the index of
        the choice the model shows (``len(choices)`` if it shows none of them).
    """
    return prediction_kind(exercise).read(model, exercise)
