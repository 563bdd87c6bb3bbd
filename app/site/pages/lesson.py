"""A lesson page (``/lesson?id=<slug>[&exercise=<id>]``): lesson text beside its lab.

``python -m app`` also serves ``/embed/lesson?id=<slug>&exercise=<id>``: one exercise with its lab,
for another site to frame (:func:`build_embed`).
"""

from __future__ import annotations

import html
from functools import cache, partial
from urllib.parse import urlencode

import panel as pn
import param

from app.classroom import class_store
from app.classroom.student import ClassShare
from app.course.catalog import lab_kinds
from app.course.content import Exercise, Lesson
from app.course.exercise import ExerciseRunner, ExerciseSession
from app.course.exercise_card import CARD_CSS, ExerciseCard
from app.course.lesson_first_paint import lesson_first_paint_html
from app.course.lesson_text import LAYOUT_CSS, PROSE_CSS, LessonText
from app.course.library import lessons, query_param
from app.course.progress import ProgressStore
from app.site.first_frames import lab_first_frame
from app.site.not_found import missing_lesson_html, shorten
from app.web.shell import deferred, page
from labs.ui.palette import ERROR_RED


class LabShelf:
    """The labs one lesson page uses, each built for the session the first time it is needed."""

    def __init__(self):
        self._views: dict[str, pn.viewable.Viewer] = {}

    def view(self, slug: str) -> pn.viewable.Viewer:
        """The session's view of lab ``slug``, built on first use.

        Parameters
        ----------
        slug : str
            A registered lab.

        Returns
        -------
        panel.viewable.Viewer
            The same view every time for this page.
        """
        if slug not in self._views:
            self._views[slug] = lab_kinds()[slug].lesson_view()
        return self._views[slug]


def _neighbours(lesson: Lesson, label: str = "Lessons") -> str:
    course = lessons()
    index = [item.slug for item in course].index(lesson.slug)
    links = []
    if index > 0:
        before = course[index - 1]
        links.append(f'<a href="./lesson?id={before.slug}" rel="prev">← Previous: {html.escape(before.title)}</a>')
    if index + 1 < len(course):
        after = course[index + 1]
        links.append(f'<a href="./lesson?id={after.slug}" rel="next">Next: {html.escape(after.title)} →</a>')
    return f'<nav aria-label="{label}" class="lesson-nav">' + " · ".join(links) + "</nav>"


def _without_title(markdown: str, title: str) -> str:
    """Drop a leading ``# title`` line: the page already shows the title as its heading."""
    lines = markdown.lstrip("\n").split("\n", 1)
    if lines[0].strip() == f"# {title}":
        return lines[1] if len(lines) > 1 else ""
    return markdown


def lesson_heading_html(lesson: Lesson, exercise_id: str | None) -> str:
    """The links to the previous and next lessons, and a notice if the URL names no such exercise.

    Parameters
    ----------
    lesson : Lesson
        The lesson shown.
    exercise_id : str, optional
        The exercise the URL asked for.

    Returns
    -------
    str
        HTML for under the page's heading (shown in the same pane as the heading).
    """
    notice = ""
    if exercise_id is not None and lesson.exercise(exercise_id) is None:
        known = ", ".join(e.id for e in lesson.exercises) or "none"
        said = (
            f"This lesson has no exercise called '{shorten(exercise_id)}'"
            if exercise_id.strip()
            else "The link names no exercise (it ends in “exercise=” with nothing after it)"
        )
        notice = (
            f'<p role="alert" style="color:{ERROR_RED};font-weight:600;margin:4px 0;overflow-wrap:anywhere">'
            f"{said}; its exercises are: {html.escape(known)}.</p>"
        )
    return _neighbours(lesson) + notice


def lesson_view(
    lesson: Lesson,
    exercise_id: str | None,
    progress: ProgressStore,
    classroom: ClassShare | None = None,
    alone: bool = False,
) -> pn.viewable.Viewable:
    """Build the lesson text, its exercises and its lab for one session.

    Parameters
    ----------
    lesson : Lesson
        The lesson to show.
    exercise_id : str, optional
        An exercise the URL points at: it starts active and scrolls into view.
    progress : ProgressStore
        This browser's progress.
    classroom : ClassShare, optional
        The session's link to the class, when a class database is on.
    alone : bool
        Only the exercise ``exercise_id`` (already started) and its lab: no prose, no links to other
        lessons (``/embed/lesson``).

    Returns
    -------
    panel.viewable.Viewable
        Text and lab side by side on a wide screen; on a phone the lab follows the active exercise.
    """
    shelf = LabShelf()
    session = ExerciseSession()
    parts: list[str | ExerciseCard] = []
    runners: list[ExerciseRunner] = []
    for part in lesson.parts:
        if alone and not (isinstance(part, Exercise) and part.id == exercise_id):
            continue
        if isinstance(part, Exercise):
            lab = shelf.view(part.lab) if part.lab == lesson.lab else None
            runner = ExerciseRunner(
                lab=lab,
                lab_provider=partial(shelf.view, part.lab),
                session=session,
                progress=progress,
                exercise=part,
                lesson_slug=lesson.slug,
                classroom=classroom,
                heading_level=2 if alone else 3,
                shareable=not alone,
            )
            runners.append(runner)
            parts.append(runner.card)
        else:
            parts.append(_without_title(part, lesson.title))
    for runner in runners:
        if runner.exercise.id == exercise_id:
            runner.card.scroll_into_view = not alone
            runner.start()
    lab_slot = deferred(lambda: shelf.view(session.active_lab or lesson.lab), sizing_mode="stretch_width")
    text = LessonText(
        parts,
        footer_html="" if alone else _neighbours(lesson, "Lessons, end of page"),
        prose_in_page=not alone,  # the lesson page's first paint holds it (lesson_first_paint)
        lab=lab_slot,
        sizing_mode="stretch_width",
    )

    def show_active_lab(event: param.parameterized.Event) -> None:
        if lab_slot.objects:  # once the page has loaded: the lab of the active exercise
            wanted = shelf.view(event.new or lesson.lab)
            if lab_slot.objects[0] not in (wanted, wanted.__panel__()):
                lab_slot.objects = [wanted]

    session.param.watch(show_active_lab, "active_lab")
    return pn.Column(text, progress, sizing_mode="stretch_width")


@cache
def lesson_first_paint(slug: str) -> str:
    """What lesson ``slug``'s page shows before its scripts have run: its text and questions, once per process.

    Parameters
    ----------
    slug : str
        A lesson of the course.

    Returns
    -------
    str
        HTML (:func:`app.course.lesson_first_paint.lesson_first_paint_html`).
    """
    lesson = next(item for item in lessons() if item.slug == slug)
    prose = [_without_title(part, lesson.title) for part in lesson.parts if not isinstance(part, Exercise)]
    frame = lab_first_frame(lesson.lab, in_lesson=True)
    return lesson_first_paint_html(lesson, prose, _neighbours(lesson, "Lessons, end of page"), frame)


def _progress_and_class() -> tuple[ProgressStore, ClassShare | None]:
    """The browser's progress, and the session's link to the class when a class database is on."""
    store = class_store()
    progress = ProgressStore(height=0, margin=0, class_on=store is not None)
    classroom = None
    if store is not None:
        classroom = ClassShare(store)
        progress.param.watch(lambda event: setattr(classroom, "student", event.new), "student")
    return progress, classroom


def build() -> pn.template.base.BaseTemplate:
    """Build the lesson page the URL asks for, or a clear message if there is no such lesson."""
    slug = query_param("id")
    lesson = next((item for item in lessons() if item.slug == slug), None)
    if lesson is None:  # under panel serve; python -m app answers these with a 404 page (app.site.urls)
        return page("No such lesson", pn.pane.HTML(missing_lesson_html(slug), sizing_mode="stretch_width"))
    progress, classroom = _progress_and_class()
    exercise_id = query_param("exercise")
    return page(
        lesson.title,
        lesson_view(lesson, exercise_id, progress, classroom),
        extra_html=lesson_heading_html(lesson, exercise_id),
        first_paint=lesson_first_paint(lesson.slug),
        first_paint_until="lesson",
        first_paint_css=(PROSE_CSS, CARD_CSS, LAYOUT_CSS),
        first_paint_extra=lesson_heading_html(lesson, None),  # without a notice about this URL's exercise
    )


def embed_link_html(lesson: Lesson, exercise: Exercise) -> str:
    """The embedded exercise's link to the same exercise in its lesson, in a new tab.

    Parameters
    ----------
    lesson : Lesson
        The lesson.
    exercise : Exercise
        One of its exercises.

    Returns
    -------
    str
        ``<a href="../lesson?id=…&exercise=…" target="_blank">Open in Overlap Lab</a>``: relative, so it
        holds behind a proxy serving the course under a path of its own; a new tab, so the site that
        frames the exercise stays where it is.
    """
    query = urlencode({"id": lesson.slug, "exercise": exercise.id})
    return f'<a href="../lesson?{html.escape(query)}" target="_blank" rel="noopener">Open in Overlap Lab</a>'


def build_embed() -> pn.template.base.BaseTemplate:
    """Build ``/embed/lesson?id=<slug>&exercise=<id>``: one exercise, started, with its lab, in a bare frame.

    Progress and predictions are kept as on the lesson page (the same browser storage, the same class);
    a link names no exercise of a lesson (``python -m app`` answers that with a 404 page first,
    :mod:`app.site.urls`): the message says so, as on a lesson page.
    """
    slug = query_param("id")
    exercise_id = query_param("exercise")
    lesson = next((item for item in lessons() if item.slug == slug), None)
    if lesson is None:
        return page("No such lesson", pn.pane.HTML(missing_lesson_html(slug), sizing_mode="stretch_width"), bare=True)
    exercise = lesson.exercise(exercise_id) if exercise_id is not None else None
    if exercise is None:
        notice = lesson_heading_html(lesson, exercise_id or "")
        return page(lesson.title, pn.pane.HTML(notice, sizing_mode="stretch_width"), bare=True)
    progress, classroom = _progress_and_class()
    return page(
        lesson.title,
        lesson_view(lesson, exercise.id, progress, classroom, alone=True),
        extra_html=embed_link_html(lesson, exercise),
        back=False,
        bare=True,
    )


if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
    build().servable()
