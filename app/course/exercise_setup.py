"""An exercise's setup: the Reset and settings before its prediction, what the lab lacks of them, and applying them.

An exercise's steps start with the scene it asks about (``reset``, then ``set`` steps: the kinds
whose :attr:`~app.course.kinds.StepKind.setup` is true), then the prediction, then the run. A student
who locks a prediction and presses Play without the scene runs the lab as it is, and the run can
never be judged; the exercise then says, beside Play and in its card, what differs
(:func:`setup_advice`), and its "Set up the lab" button puts the scene in place in one press
(:func:`apply_setup`), as a PhET screen opens in its starting state.
"""

from __future__ import annotations

from app.course.kinds import same, shown_setting, step_kind
from app.course.spec import Exercise, Step
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
        Its setup steps that come before the step that locks the prediction, in order.
    """
    steps = exercise.steps
    end = next((i for i, step in enumerate(steps) if step_kind(step).predicts), len(steps))
    return tuple(step for step in steps[:end] if step_kind(step).setup)


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
    gaps = (step_kind(step).gap(step, model) for step in setup_steps(exercise)[current:])
    return [gap for gap in gaps if gap]


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
    resets = [step for step in steps if step_kind(step).by_reset]
    for step in [*resets[:1], *(step for step in steps if not step_kind(step).by_reset)]:
        step_kind(step).apply(step, lab)


def changed_setting(model: TimedModel, exercise: Exercise) -> str:
    """At the verdict: the first setting the steps asked for that the lab no longer has, in words, or ''.

    Parameters
    ----------
    model : TimedModel
        The lab's model once every step is done.
    exercise : Exercise
        The exercise (the last step to set each control is the value it needs).

    Returns
    -------
    str
        For example "Arrival rate λ is 2 now, but this exercise needs 4. Set it back to see the comparison."
    """
    wanted: dict[str, object] = {}
    for step in exercise.steps:
        setting = step_kind(step).wanted(step)
        if setting is not None:
            wanted[setting[0]] = setting[1]
    for control, value in wanted.items():
        now = getattr(model, control)
        if not same(now, value):
            label = model.param[control].label
            is_now, needed = (shown_setting(control, v, type(model)) for v in (now, value))
            return f"{label} is {is_now} now, but this exercise needs {needed}. Set it back to see the comparison."
    return ""
