"""What an exercise's card shows for the runner's state: steps, buttons, verdict, the class line.

One job of the exercise (:class:`app.course.exercise.ExerciseRunner` keeps the steps and the verdict;
:mod:`app.course.exercise_gate` tells the lab what it may do): pure functions of the runner's state
that return the escaped HTML and labels :class:`app.course.exercise_card.ExerciseCard` draws.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from app.course.exercise_setup import SETUP_LABEL, setup_pending
from app.course.exercise_words import amount_html, describe_step, play_buttons
from app.course.variants import RETRY_LABEL, variant_name

if TYPE_CHECKING:
    from app.course.exercise import ExerciseRunner


def card_fields(runner: ExerciseRunner) -> dict[str, Any]:
    """Every field of the card for ``runner``'s state now, to be sent in one message."""
    return {
        "active": runner.active,
        "steps_html": steps_html(runner),
        "locked": runner.locked,
        "start_label": start_label(runner),
        "setup_label": setup_label(runner),
        "retry_label": RETRY_LABEL if runner.active and runner.finished and runner.written.vary else "",
        "class_html": class_html(runner),
        "class_news": class_news(runner),
        "resume": resume_state(runner),
        **feedback(runner),
    }


def resume_state(runner: ExerciseRunner) -> dict[str, Any]:
    """What a reload needs to bring the running exercise back as it was; {} while it is not running.

    Parameters
    ----------
    runner : ExerciseRunner
        The exercise.

    Returns
    -------
    dict
        ``exercise`` (its id), ``variant`` (:func:`~app.course.variants.variant_name`, or ""),
        ``retries`` (how many new numbers were asked: the next retry's place in the browser's order),
        ``setup`` (its Reset and settings done) and ``locked`` (the prediction as entered, or "").
        The page sends it back after a reload; :meth:`ExerciseRunner.resume` checks every field.
    """
    if not runner.active:
        return {}
    return {
        "exercise": runner.written.id,
        "variant": variant_name(runner.exercise) or "",
        "retries": runner.retries,
        "setup": runner.lab is not None and not setup_pending(runner.exercise, runner.current),
        "locked": runner.exercise.as_entered(runner.prediction) if runner.locked else "",
    }


def start_label(runner: ExerciseRunner) -> str:
    """The card's button: "Start this exercise", then none until a verdict, then "Try again".

    A class's new round for a shared prediction offers "Try again" before the verdict too.
    """
    if not runner.active:
        return "Start this exercise"
    return "Try again" if runner.finished or runner.new_round else ""


def setup_label(runner: ExerciseRunner) -> str:
    """The card's "Set up the lab" button while the exercise's setup is not done, else '' (none)."""
    if not runner.active or runner.finished or runner.lab is None:
        return ""
    return SETUP_LABEL if setup_pending(runner.exercise, runner.current) else ""


def class_html(runner: ExerciseRunner) -> str:
    """The class line: that predictions are shared, whether this one was, and the class after a reveal."""
    if runner.classroom is None:
        return ""
    lines = [runner.class_note or ("" if runner.locked else runner.classroom.notice_text)]
    if runner.class_result:
        lines.append(runner.class_result)
    return "".join(f"<p>{html.escape(line)}</p>" for line in lines if line)


def class_news(runner: ExerciseRunner) -> str:
    """The line a docked card shows when the class moves: a new round's note, else the revealed result."""
    if runner.classroom is None:
        return ""
    return runner.class_note if runner.new_round else runner.class_result


def steps_html(runner: ExerciseRunner) -> str:
    """The heading, prompt, steps (ticked and current), and any notice, as escaped HTML."""
    spec = runner.exercise
    items = []
    for index, step in enumerate(spec.steps):
        text = html.escape(describe_step(step, runner.model_class, choice=bool(spec.choices)))
        if runner.active and index < runner.current:
            items.append(f'<li class="done">✓ {text}<span class="sr-only"> (done)</span></li>')
        elif runner.active and index == runner.current:
            items.append(f'<li class="current">{text}<span class="sr-only"> (next)</span></li>')
        else:
            items.append(f"<li>{text}</li>")
    parts = [
        f"<h{runner.heading_level}>Exercise: {html.escape(spec.title)}</h{runner.heading_level}>"
        f"<p>{html.escape(spec.prompt)}</p>",
        f'<ol class="steps" aria-label="Steps">{"".join(items)}</ol>',
    ]
    if runner.notice:
        parts.append(f'<p role="alert" class="field-error">{html.escape(runner.notice)}</p>')
    if runner.advice and runner.advice != runner.notice:  # announced beside Play; here for whoever reads the card
        parts.append(f'<p class="setup-note">{html.escape(runner.advice)}</p>')
    if runner.active and not runner.locked:
        buttons, agree = play_buttons(runner.model_class)
        parts.append(f'<p class="gate">{buttons} stay{agree} off until you lock a prediction.</p>')
    parts.append(runner.progress.card_note_html(runner.key, runner.finished))
    return "".join(parts)


def feedback(runner: ExerciseRunner) -> dict[str, str]:
    """The verdict, its style and the explanation; all empty until the exercise has finished."""
    if not runner.finished:
        return {"feedback_html": "", "verdict": "", "explanation_html": ""}
    spec = runner.exercise
    verdict = "Correct" if runner.correct else "Not quite"
    explanation = f"<strong>Why:</strong> {html.escape(spec.explanation)}"
    slip = None if runner.correct else spec.mistake_for(runner.prediction)
    if slip is not None:  # name the reasoning that gives this very number
        explanation = (
            f"<p><strong>Where that {'choice' if spec.choices else 'number'} comes from:</strong> "
            f"{html.escape(slip.reasoning)}</p>{explanation}"
        )
    predicted, shown = (
        amount_html(runner.exercise, runner.prediction, exact=True),
        amount_html(runner.exercise, runner.shown),
    )
    return {
        "feedback_html": f"{verdict}: you predicted {predicted}, and the lab shows {shown}.",
        "verdict": "correct" if runner.correct else "wrong",
        "explanation_html": explanation,
    }
