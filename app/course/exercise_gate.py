"""What an exercise lets its lab do: Play and Step off until the prediction is locked, and why, beside Play.

One job of the exercise (:class:`app.course.exercise.ExerciseRunner` keeps the steps and the verdict;
:mod:`app.course.exercise_drawing` says what its card shows): from the runner's state, tell the lab
whether Play and Step wait and the sentence that says why, the setup advice beside Play, whether a
press of Play is to be reported, and which quantity the lab hides while the exercise runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.course.exercise_setup import setup_advice, setup_pending
from app.course.exercise_words import describe_step, play_buttons

if TYPE_CHECKING:
    from app.course.exercise import ExerciseRunner


def gate_lab(runner: ExerciseRunner) -> None:
    """Set the lab's gate, advice, listening to Play and concealment from ``runner``'s state.

    Parameters
    ----------
    runner : ExerciseRunner
        The exercise; nothing happens before its lab is built. Its ``advice`` is set here too (the
        card repeats it).
    """
    if runner.lab is None:
        return
    reason = ""
    running = runner.active and not runner.finished
    if running:
        runs_left = any(step.kind == "run" for step in runner.exercise.steps[runner.current :])
        buttons, agree = play_buttons(runner.model_class)
        if not runner.locked:
            reason = f"{buttons} {'is' if agree else 'are'} off until you lock a prediction."
        elif not runs_left and runner.current < len(runner.exercise.steps):
            step = describe_step(runner.exercise.steps[runner.current], runner.model_class)
            reason = f"{buttons} wait{agree} while you do the exercise's next step: {step}."
        elif not runs_left:  # every step done, but a setting was changed since (_finish says which)
            reason = runner.notice or f"{buttons} wait{agree} while you do the exercise's next step."
    runner.lab.gate(reason)
    unset = running and runner.locked and setup_pending(runner.exercise, runner.current)
    buttons, _ = play_buttons(runner.model_class)
    run_words = buttons.removesuffix(" and Step")
    runner.advice = (
        setup_advice(runner.model, runner.exercise, runner.current, runner.ran_unset, run_words)
        if unset
        else runner.notice
        if running and runner.locked and runner.current == len(runner.exercise.steps)  # a setting changed since
        else ""
    )
    if runner.active or not runner.session.active:  # (another active exercise drives the lab itself)
        judged_on_play = runner.model.judged_on_play and runner.step_is("run")
        runner.lab.listen_for_play(running and not reason and (judged_on_play or unset))
        runner.lab.advise(runner.advice if runner.active else "")
        runner.lab.param.update(conceal=running, hidden_quantity=runner.exercise.quantity if running else "")
