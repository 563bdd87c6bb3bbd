"""What an exercise's card shows for the runner's state: steps, buttons, verdict, the class line.

One job of the exercise (:class:`app.course.exercise.ExerciseRunner` keeps the steps and the verdict;
:mod:`app.course.exercise_gate` tells the lab what it may do): pure functions of a
:class:`CardState` that return the escaped HTML and labels :class:`app.course.exercise_card.ExerciseCard` draws.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from app.course.exercise_setup import SETUP_LABEL, setup_pending
from app.course.exercise_words import amount_html, describe_step, play_buttons
from app.course.kinds import prediction_kind
from app.course.spec import Exercise
from app.course.variants import RETRY_LABEL, variant_name


@dataclass(frozen=True)
class CardState:
    """What an exercise's card shows depends on: the runner's state, taken once per drawing.

    Attributes
    ----------
    exercise, written : Exercise
        The exercise as asked (a variant) and as the lesson writes it.
    model_class : type
        The lab's model class (control labels, the buttons' names).
    key : str
        The exercise's progress key (``lesson/exercise``).
    progress : ProgressStore
        This browser's finished exercises (the note under the steps).
    classroom : ClassShare or None
        The session's class when the class is on.
    """

    exercise: Exercise
    written: Exercise
    model_class: type
    key: str
    progress: Any
    classroom: Any
    heading_level: int
    active: bool
    finished: bool
    locked: bool
    correct: bool
    current: int
    prediction: float | None
    shown: float | None
    notice: str
    advice: str
    class_note: str
    class_result: str
    new_round: bool
    retries: int
    has_lab: bool


def card_fields(state: CardState) -> dict[str, Any]:
    """Every field of the card for ``state``, to be sent in one message."""
    return {
        "active": state.active,
        "steps_html": steps_html(state),
        "locked": state.locked,
        "start_label": start_label(state),
        "setup_label": setup_label(state),
        "retry_label": RETRY_LABEL if state.active and state.finished and state.written.vary else "",
        "class_html": class_html(state),
        "class_news": class_news(state),
        "resume": resume_state(state),
        **feedback(state),
    }


def resume_state(state: CardState) -> dict[str, Any]:
    """What a reload needs to bring the running exercise back as it was; {} while it is not running.

    Parameters
    ----------
    state : CardState
        The exercise now.

    Returns
    -------
    dict
        ``exercise`` (its id), ``variant`` (:func:`~app.course.variants.variant_name`, or ""),
        ``retries`` (how many new numbers were asked: the next retry's place in the browser's order),
        ``setup`` (its Reset and settings done) and ``locked`` (the prediction as entered, or "").
        The page sends it back after a reload; :func:`app.course.exercise_resume.resume_plan` checks
        every field.
    """
    if not state.active:
        return {}
    return {
        "exercise": state.written.id,
        "variant": variant_name(state.exercise) or "",
        "retries": state.retries,
        "setup": state.has_lab and not setup_pending(state.exercise, state.current),
        "locked": state.exercise.as_entered(state.prediction) if state.locked else "",
    }


def start_label(state: CardState) -> str:
    """The card's button: "Start this exercise", then none until a verdict, then "Try again".

    A class's new round for a shared prediction offers "Try again" before the verdict too.
    """
    if not state.active:
        return "Start this exercise"
    return "Try again" if state.finished or state.new_round else ""


def setup_label(state: CardState) -> str:
    """The card's "Set up the lab" button while the exercise's setup is not done, else '' (none)."""
    if not state.active or state.finished or not state.has_lab:
        return ""
    return SETUP_LABEL if setup_pending(state.exercise, state.current) else ""


def class_html(state: CardState) -> str:
    """The class line: that predictions are shared, whether this one was, and the class after a reveal."""
    if state.classroom is None:
        return ""
    lines = [state.class_note or ("" if state.locked else state.classroom.notice_text)]
    if state.class_result:
        lines.append(state.class_result)
    return "".join(f"<p>{html.escape(line)}</p>" for line in lines if line)


def class_news(state: CardState) -> str:
    """The line a docked card shows when the class moves: a new round's note, else the revealed result."""
    if state.classroom is None:
        return ""
    return state.class_note if state.new_round else state.class_result


def steps_html(state: CardState) -> str:
    """The heading, prompt, steps (ticked and current), and any notice, as escaped HTML."""
    spec = state.exercise
    items = []
    for index, step in enumerate(spec.steps):
        text = html.escape(describe_step(step, state.model_class, prediction_kind(spec)))
        if state.active and index < state.current:
            items.append(f'<li class="done">✓ {text}<span class="sr-only"> (done)</span></li>')
        elif state.active and index == state.current:
            items.append(f'<li class="current">{text}<span class="sr-only"> (next)</span></li>')
        else:
            items.append(f"<li>{text}</li>")
    parts = [
        f"<h{state.heading_level}>Exercise: {html.escape(spec.title)}</h{state.heading_level}>"
        f"<p>{html.escape(spec.prompt)}</p>",
        f'<ol class="steps" aria-label="Steps">{"".join(items)}</ol>',
    ]
    if state.notice:
        parts.append(f'<p role="alert" class="field-error">{html.escape(state.notice)}</p>')
    if state.advice and state.advice != state.notice:  # announced beside Play; here for whoever reads the card
        parts.append(f'<p class="setup-note">{html.escape(state.advice)}</p>')
    if state.active and not state.locked:
        buttons, agree = play_buttons(state.model_class)
        parts.append(f'<p class="gate">{buttons} stay{agree} off until you lock a prediction.</p>')
    parts.append(state.progress.card_note_html(state.key, state.finished))
    return "".join(parts)


def feedback(state: CardState) -> dict[str, str]:
    """The verdict, its style and the explanation; all empty until the exercise has finished."""
    if not state.finished:
        return {"feedback_html": "", "verdict": "", "explanation_html": ""}
    spec = state.exercise
    verdict = "Correct" if state.correct else "Not quite"
    explanation = f"<strong>Why:</strong> {html.escape(spec.explanation)}"
    slip = None if state.correct else spec.mistake_for(state.prediction)
    if slip is not None:  # name the reasoning that gives this very number
        explanation = (
            f"<p><strong>Where that {prediction_kind(spec).noun} comes from:</strong> "
            f"{html.escape(slip.reasoning)}</p>{explanation}"
        )
    predicted, shown = (
        amount_html(state.exercise, state.prediction, exact=True),
        amount_html(state.exercise, state.shown),
    )
    return {
        "feedback_html": f"{verdict}: you predicted {predicted}, and the lab shows {shown}.",
        "verdict": "correct" if state.correct else "wrong",
        "explanation_html": explanation,
    }


def progress_shown(event: Any, key: str, finished: bool) -> bool:
    """Whether a change of this browser's progress changes what exercise ``key``'s card shows.

    A page has nine or so exercises and progress is one store: a verdict, or the browser's stored
    progress arriving, would otherwise have every card worked out again to show the same.

    Parameters
    ----------
    event : param.parameterized.Event
        A change of the store's ``completed`` or ``kept``.
    key : str
        The exercise's progress key.
    finished : bool
        Whether the exercise is judged (only a judged card says its progress is not kept).
    """
    if event.name == "completed":
        return (event.old or {}).get(key) != (event.new or {}).get(key)
    return event.name != "kept" or finished
