"""An exercise's setup: the Reset and settings before its prediction, what the lab lacks of them, and applying them.

An exercise's steps start with the scene it asks about (``reset``, then ``set`` steps), then the
prediction, then the run. A student who locks a prediction and presses Play without the scene runs
the lab as it is, and the run can never be judged; the exercise then says, beside Play and in its
card, what differs (:func:`setup_advice`), and its "Set up the lab" button puts the scene in place in
one press (:func:`apply_setup`), as a PhET screen opens in its starting state.
"""

from __future__ import annotations

from app.course.content import Exercise, Step
from app.course.exercise_words import same, shown_setting
from labs.timed import TimedModel

SETUP_LABEL = "Set up the lab"
"""The card's button that applies the exercise's setup (its name for screen readers and tests too)."""


def setup_steps(exercise: Exercise) -> tuple[Step, ...]:
    """The steps before the prediction: the Reset and the settings the exercise starts from.

    Parameters
    ----------
    exercise : Exercise
        The exercise.

    Returns
    -------
    tuple of Step
        Its ``reset`` and ``set`` steps that come before its ``predict`` step, in order.
    """
    kinds = [step.kind for step in exercise.steps]
    end = kinds.index("predict") if "predict" in kinds else len(kinds)
    return tuple(step for step in exercise.steps[:end] if step.kind in ("reset", "set"))


def setup_pending(exercise: Exercise, current: int) -> bool:
    """Whether the student has not yet done every setup step (``current``: the next step to do)."""
    return current < len(setup_steps(exercise))


def setup_gaps(model: TimedModel, exercise: Exercise, current: int) -> list[str]:
    """What the lab lacks of the exercise's setup, from the next step on, in words.

    Parameters
    ----------
    model : TimedModel
        The lab's model as it is now.
    exercise : Exercise
        The exercise.
    current : int
        The index of the next step to do.

    Returns
    -------
    list of str
        For example ``["Reset not pressed", "Arrival rate λ is 1 (this exercise needs 4)"]``;
        empty when every setup step is done.
    """
    gaps: list[str] = []
    for index, step in enumerate(setup_steps(exercise)):
        if index < current:
            continue
        if step.kind == "reset":
            gaps.append("Reset not pressed")
            continue
        now = getattr(model, step.control)
        if same(now, step.value):
            continue
        label = model.param[step.control].label
        is_now, needed = (shown_setting(step.control, value, type(model)) for value in (now, step.value))
        gaps.append(f"{label} is {is_now} (this exercise needs {needed})")
    return gaps


def setup_advice(model: TimedModel, exercise: Exercise, current: int, played: bool, run_words: str) -> str:
    """The line beside Play (and in the card) while a locked exercise's setup is not done.

    Parameters
    ----------
    model : TimedModel
        The lab's model as it is now.
    exercise : Exercise
        The exercise.
    current : int
        The index of the next step to do.
    played : bool
        Whether the student has already started a run without the setup.
    run_words : str
        How the lab's run button is named (``"Play"``; the sample trace's ``"Load the sample trace"``).

    Returns
    -------
    str
        ``""`` when the setup is done; otherwise what differs and what to do.
    """
    if not setup_pending(exercise, current):
        return ""
    gaps = setup_gaps(model, exercise, current) or ["the exercise's steps are not done"]
    opening = "This run is not judged" if played else "Not set up yet"
    return f"{opening}: {'; '.join(gaps)}. Press “{SETUP_LABEL}”, then {run_words}."


def apply_setup(lab: object, exercise: Exercise) -> None:
    """Put the exercise's scene in the lab: Reset as the button does, then every setting before the prediction.

    Parameters
    ----------
    lab : LabView
        The lab the exercise drives (its ``reset_lab`` and ``model``).
    exercise : Exercise
        The exercise.
    """
    steps = setup_steps(exercise)
    if any(step.kind == "reset" for step in steps):
        lab.reset_lab()
    for step in steps:
        if step.kind == "set" and not same(getattr(lab.model, step.control), step.value):
            lab.model.param.update({step.control: step.value})
