"""What an exercise says and reads: its steps in words, a control's value as shown, the quantity with its unit.

Pure functions of an exercise's spec and its lab's model class (no session state), used by the runner
(:mod:`app.course.exercise`) and by the tests that check the page's words.
"""

from __future__ import annotations

import html
import math

from app.course.catalog import lab_kinds
from app.course.content import Exercise, Step
from labs.numbers import fixed
from labs.timed import TimedModel, format_number


def describe_step(step: Step, model_class: type, choice: bool = False) -> str:
    """Say what a step asks the student to do.

    Parameters
    ----------
    step : Step
        One step of an exercise.
    model_class : type
        The lab's model class, for control labels.
    choice : bool
        Whether the exercise's prediction is a choice (chosen, not typed).

    Returns
    -------
    str
        For example ``"Set Arrival rate λ to 4"``.
    """
    if step.kind == "reset":
        return "Press Reset in the lab"
    if step.kind == "set":
        label = model_class.param[step.control].label
        if isinstance(step.value, bool):
            return f"{'Check' if step.value else 'Uncheck'} {label}"
        return f"Set {label} to {shown_setting(step.control, step.value, model_class)}"
    if step.kind == "predict":
        return f"{'Choose' if choice else 'Type'} your prediction and press Lock prediction"
    if getattr(model_class, "run_words", ""):  # a lab whose Play is another button (the sample trace's Load)
        return model_class.run_words
    if getattr(model_class, "judged_on_play", False):
        return "Press Play (the verdict shows at once)"
    if step.value is None:
        return "Press Play and let it run to the end"
    return f"Press Play or Step until t = {format_number(step.value)} s"


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


def shown_setting(control: str, value: object, model_class: type) -> str:
    """A control's value as the lab shows it: ``4``, ``never``, ``bucket 3``, ``on``, a choice's text."""
    if value is None:
        return "never" if control not in getattr(model_class, "numbered_choices", {}) else "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    numbered = getattr(model_class, "numbered_choices", {})
    if control in numbered:
        return f"{numbered[control]} {value}"
    return value if isinstance(value, str) else format_number(value)


def same(now: object, wanted: object) -> bool:
    """Whether a control's value is the one a ``set`` step asks for (an unset optional control never is)."""
    if now is None or isinstance(wanted, bool | str) or isinstance(now, bool | str):
        return now is not None and now == wanted and type(now) is type(wanted)
    return math.isclose(now, wanted, abs_tol=1e-9)


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
    if exercise.choices:
        return f"“{html.escape(exercise.choice_text(value))}”"
    singular = counted(exercise)
    if singular is not None:
        whole = round(value)
        return f"{whole} {html.escape(singular if whole == 1 else exercise.unit)}"
    return html.escape(exercise.with_unit(format_number(value, exact=True) if exact else fixed(value)))


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
    if exercise.choices:
        shown = model.choice(exercise.quantity)
        return float(exercise.choices.index(shown) if shown in exercise.choices else len(exercise.choices))
    return model.reading(exercise.quantity, exercise.at)
