"""What an exercise lets its lab do: Play and Step off until the prediction is locked, and why, beside Play.

One job of the exercise (:class:`app.course.exercise.ExerciseRunner` keeps the steps and the verdict;
:mod:`app.course.exercise_drawing` says what its card shows): from a :class:`GateState`, tell the
lab whether Play and Step wait and the sentence that says why, the setup advice beside Play, whether
a press of Play is to be reported, and which quantity the lab hides while the exercise runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.course.exercise_setup import setup_advice, setup_pending
from app.course.exercise_words import describe_step, play_buttons
from app.course.kinds import prediction_kind, step_kind
from app.course.spec import Exercise


@dataclass(frozen=True)
class GateState:
    """What the gate needs of a running exercise.

    Attributes
    ----------
    exercise : Exercise
        The exercise as asked (a variant's own numbers when it is one).
    current : int
        The index of the next step to do.
    active : bool
        Whether this exercise is the one driving the lab.
    others_idle : bool
        Whether no other exercise on the page is active (then this one may set the lab's gate too).
    finished, locked : bool
        Whether the verdict is given; whether a prediction is locked.
    notice : str
        The card's notice (a setting changed since the steps were done says which).
    ran_unset : bool
        Play was pressed after the lock with the setup not done.
    model : TimedModel
        The lab's model (whether a run is judged on Play, what the setup lacks).
    model_class : type
        The lab's model class, which names the buttons and the controls.
    """

    exercise: Exercise
    current: int
    active: bool
    others_idle: bool
    finished: bool
    locked: bool
    notice: str
    ran_unset: bool
    model: Any
    model_class: type


def gate_lab(lab: Any, state: GateState, advise: Callable[[str], None]) -> None:
    """Set the lab's gate, advice, listening to Play and concealment from ``state``.

    Parameters
    ----------
    lab : LabView
        The exercise's lab.
    state : GateState
        The exercise now.
    advise : callable
        Called with the setup advice beside Play (the card repeats it), or '' for none.
    """
    steps, current, model_class = state.exercise.steps, state.current, state.model_class
    reason = ""
    running = state.active and not state.finished
    if running:
        runs_left = any(step_kind(step).runs for step in steps[current:])
        buttons, agree = play_buttons(model_class)
        if not state.locked:
            reason = f"{buttons} {'is' if agree else 'are'} off until you lock a prediction."
        elif not runs_left and current < len(steps):
            step = describe_step(steps[current], model_class, prediction_kind(state.exercise))
            reason = f"{buttons} wait{agree} while you do the exercise's next step: {step}."
        elif not runs_left:  # every step done, but a setting was changed since (the runner says which)
            reason = state.notice or f"{buttons} wait{agree} while you do the exercise's next step."
    lab.gate(reason)
    unset = running and state.locked and setup_pending(state.exercise, current)
    buttons, _ = play_buttons(model_class)
    run_words = buttons.removesuffix(" and Step")
    advice = (
        setup_advice(state.model, state.exercise, current, state.ran_unset, run_words)
        if unset
        else state.notice
        if running and state.locked and current == len(steps)  # a setting changed since
        else ""
    )
    advise(advice)
    if state.active or state.others_idle:  # (another active exercise drives the lab itself)
        next_runs = current < len(steps) and step_kind(steps[current]).runs
        judged_on_play = state.model.judged_on_play and next_runs
        lab.listen_for_play(running and not reason and (judged_on_play or unset))
        lab.advise(advice if state.active else "")
        lab.param.update(conceal=running, hidden_quantity=state.exercise.quantity if running else "")
