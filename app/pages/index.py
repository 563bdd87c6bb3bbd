"""The index page (``/``): every lesson with its exercises' done marks, and both labs."""

from __future__ import annotations

import html

import panel as pn
import param

from app.library import lessons
from app.progress import ProgressStore
from app.shell import page
from labs.registry import registrations
from labs.ui.palette import inline


def course_list(progress: ProgressStore) -> str:
    """The lessons, their exercises and a done mark for each exercise finished in this browser.

    Parameters
    ----------
    progress : ProgressStore
        This browser's progress.

    Returns
    -------
    str
        HTML for the course list.
    """
    items = []
    for number, lesson in enumerate(lessons(), start=1):
        marks = []
        for exercise in lesson.exercises:
            key = f"{lesson.slug}/{exercise.id}"
            done = progress.is_done(key)
            mark = '<span aria-hidden="true">✓</span> ' if done else ""
            marks.append(
                f'<li>{mark}<a href="./lesson?id={lesson.slug}&amp;exercise={exercise.id}">'
                f"{html.escape(exercise.title)}</a>"
                f"{'<span class=done-text> done</span>' if done else ''}</li>"
            )
        finished = sum(progress.is_done(f"{lesson.slug}/{e.id}") for e in lesson.exercises)
        items.append(
            f'<li class="lesson"><h3><a href="./lesson?id={lesson.slug}">{html.escape(lesson.title)}</a></h3>'
            f"<p>Lesson {number} · {finished} of {len(lesson.exercises)} exercises done · "
            f"beside the {lesson.lab} lab</p><p>{html.escape(lesson.summary)}</p>"
            f'<ul aria-label="Exercises in {html.escape(lesson.title)}">{"".join(marks)}</ul></li>'
        )
    return (
        '<nav aria-label="Lessons"><h2>Lessons</h2><ol class="course">' + "".join(items) + "</ol></nav>"
        '<nav aria-label="Labs"><h2>Labs</h2><ul>'
        + "".join(
            f'<li><a href="./lab?id={lab.slug}">{html.escape(lab.title)}</a>: {html.escape(lab.blurb)}</li>'
            for lab in registrations()
        )
        + '<li><a href="./trace">Trace</a>: your own PyTorch profiler trace of DDP, read as the bucket '
        "timeline and put beside the model.</li>" + "</ul></nav>"
    )


def build() -> pn.template.base.BaseTemplate:
    """Build the index for one session."""
    progress = ProgressStore(height=0, margin=0)
    listing = pn.pane.HTML(
        param.bind(lambda _completed: course_list(progress), progress.param.completed),
        sizing_mode="stretch_width",
        stylesheets=[inline(".done-text{color:var(--ol-done-green);font-weight:600}")],
    )
    intro = pn.pane.HTML(
        "<p>Three short lessons on overlapping gradient communication with computation in "
        "data-parallel training. Each sits beside a lab: predict first, then run the lab and "
        "compare. Your progress stays in this browser.</p>",
        sizing_mode="stretch_width",
    )
    return page("Course", pn.Column(intro, listing, progress, sizing_mode="stretch_width"))


if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
    build().servable()
