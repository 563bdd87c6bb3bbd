"""The index page (``/``): every lesson with its exercises' done marks, and both labs."""

from __future__ import annotations

import html
from functools import cache
from pathlib import Path

import panel as pn

from app.course.library import lessons
from app.course.progress import ProgressStore
from app.web.first_paint import scoped
from app.web.shell import page
from labs.registry import registrations
from labs.ui import stylesheet

INDEX_CSS = stylesheet(Path(__file__).parents[1] / "assets" / "index.css")
"""The index's own look, the same before and after the browser's progress arrives.

Panel draws an HTML pane's first text and a later one under different stylesheets (the second
under Bootstrap's: headings 32 px, other link colours); every size and colour is set here.
"""


def course_list(progress: ProgressStore) -> str:
    """The lessons, their exercises, and whether each was last done right or wrong in this browser.

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
        right = again = 0
        for exercise in lesson.exercises:
            key = f"{lesson.slug}/{exercise.id}"
            mark = state = ""
            if progress.was_correct(key):
                right += 1
                mark, state = '<span aria-hidden="true">✓</span> ', "<span class=done-text> correct</span>"
            elif progress.is_done(key):
                again += 1
                mark = '<span aria-hidden="true">✗</span> '
                state = "<span class=again-text> not quite, try again</span>"
            marks.append(
                f'<li>{mark}<a href="./lesson?id={lesson.slug}&amp;exercise={exercise.id}">'
                f"{html.escape(exercise.title)}</a>{state}</li>"
            )
        tally = f"{right} of {len(lesson.exercises)} exercises right" + (f", {again} to try again" if again else "")
        items.append(
            f'<li class="lesson"><h3><a href="./lesson?id={lesson.slug}">{html.escape(lesson.title)}</a></h3>'
            f"<p>Lesson {number} · {tally} · "
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


INTRO_HTML = (
    "<p>Three short lessons on overlapping gradient communication with computation in "
    "data-parallel training. Each sits beside a lab: predict first, then run the lab and "
    "compare. Your progress stays in this browser.</p>"
)
"""The index's first lines, above the course list."""

FIRST_PAINT_INDEX_CSS = stylesheet(Path(__file__).parents[1] / "assets" / "index_first_paint.css")
"""The intro and the list in the first paint: where their panes stand in the live page (each with a
pane's margins, one under the other), at the index's line height."""


@cache
def index_first_paint() -> str:
    """What the index shows before its scripts have run: the intro and the course list without marks.

    Returns
    -------
    str
        HTML, built once per process: a browser's progress arrives with the live page.
    """
    listing = course_list(ProgressStore(height=0, margin=0))
    return f'<div class="index intro">{INTRO_HTML}</div><div class="index">{listing}</div>'


def build() -> pn.template.base.BaseTemplate:
    """Build the index for one session."""
    progress = ProgressStore(height=0, margin=0)
    listing = pn.pane.HTML(course_list(progress), sizing_mode="stretch_width", stylesheets=[INDEX_CSS])
    # watched by name: the app's objects share their class's Parameters (app.upstream.lean_params), so a
    # Parameter object (progress.param.completed) would name the class, not this session's store
    progress.param.watch(lambda _event: setattr(listing, "object", course_list(progress)), "completed")
    intro = pn.pane.HTML(INTRO_HTML, sizing_mode="stretch_width", stylesheets=[INDEX_CSS])
    return page(
        "Course",
        pn.Column(intro, listing, progress, sizing_mode="stretch_width"),
        back=False,
        first_paint=index_first_paint(),
        first_paint_css=(scoped(INDEX_CSS, "#first-paint .index"), FIRST_PAINT_INDEX_CSS),
    )


if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
    build().servable()
