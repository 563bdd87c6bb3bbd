"""A lesson's first paint: its prose and each exercise's question, as HTML in the page's response.

What :class:`app.course.lesson_text.LessonText` draws as the page opens, before any exercise has
started, for every student the same: the prose parts, each exercise card's heading, prompt and steps,
with the room its "Start this exercise" button takes (not the button itself: nothing in the first
paint may look usable before the page's scripts have run), and the closing links. The page shows it
until the live lesson is drawn (:mod:`app.web.first_paint`); the live lesson takes its prose from
here rather than from the session's document (``data-prose-key``, ``data-prose``).
"""

from __future__ import annotations

import html

from app.course.catalog import lab_kinds
from app.course.content import Exercise, Lesson
from app.course.exercise_words import describe_step
from app.course.lesson_text import prose_digest, prose_html


def question_html(exercise: Exercise, heading_level: int = 3) -> str:
    """An exercise card as it opens: its heading, prompt and steps, and the room of its Start button.

    Parameters
    ----------
    exercise : Exercise
        The exercise as written (no variant chosen yet).
    heading_level : int
        Its heading's level (3 in a lesson).

    Returns
    -------
    str
        A ``<section class="exercise">`` as the live card draws it (``app/course/assets/exercise_card.css``).
    """
    model_class = lab_kinds()[exercise.lab].model
    steps = "".join(
        f"<li>{html.escape(describe_step(step, model_class, choice=bool(exercise.choices)))}</li>"
        for step in exercise.steps
    )
    title = html.escape(exercise.title)
    return (
        f'<section class="exercise" aria-label="Exercise: {title}">'
        f"<h{heading_level}>Exercise: {title}</h{heading_level}><p>{html.escape(exercise.prompt)}</p>"
        f'<ol class="steps" aria-label="Steps">{steps}</ol><div class="begin start-room"></div></section>'
    )


def lesson_first_paint_html(lesson: Lesson, prose: list[str], footer_html: str, lab_html: str = "") -> str:
    """The lesson's text as the page opens: prose and questions in the lesson's order, then the footer.

    Parameters
    ----------
    lesson : Lesson
        The lesson.
    prose : list of str
        Its prose parts' Markdown, in order, as the page shows them (its title left out).
    footer_html : str
        Trusted HTML after the text (the links to the previous and next lessons).
    lab_html : str
        Trusted HTML where the lab goes (its first frame), or ''.

    Returns
    -------
    str
        HTML laid out as :class:`~app.course.lesson_text.LessonText` lays out the live text.
    """
    texts = iter(prose)
    shown: list[str] = []  # each prose part's HTML, as LessonText holds it
    parts = []
    for part in lesson.parts:
        if isinstance(part, Exercise):
            parts.append(question_html(part))
        else:
            shown.append(prose_html(next(texts)))
            parts.append(len(shown) - 1)
    if footer_html:
        shown.append(footer_html)
        parts.append(len(shown) - 1)
    # The live text copies its prose from here, found by this digest (LessonText's prose_key)
    key = prose_digest(shown)
    parts = [
        f'<div class="prose" data-prose-key="{key}" data-prose="{part}">{shown[part]}</div>'
        if isinstance(part, int)
        else part
        for part in parts
    ]
    return (
        f'<div class="lesson with-lab"><div class="lesson-parts">{"".join(parts)}</div>'
        f'<div class="lesson-lab">{lab_html}</div></div>'
    )
