"""The pages a launch opens: ``/lti/lesson`` (a Learner's exercise) and ``/lti/instructor`` (the class's view).

Each takes its launch code from the URL once (:mod:`app.lti.launches`). A code that is missing,
used, expired or of the other kind opens nothing of the course: the page says so. Both pages may
be framed by the registered platforms' sites (:mod:`app.web.frame_headers`).

The Learner's page is the launched exercise alone, started, with its lab (as ``/embed/lesson``),
in the LMS course's own class (its predictions under :func:`app.lti.launches.class_scope`, the
student's id a hash of the platform's ``sub``). When the launch offers a line item, the first
verdict sends the grade (:mod:`app.lti.grades`) and a status line says when the course took it.
"""

from __future__ import annotations

import html
import logging
from functools import partial
from typing import Any

import panel as pn

from app.classroom import class_store
from app.classroom.student import ClassShare
from app.course.catalog import lab_kinds
from app.course.content import Exercise, Lesson
from app.course.exercise import ExerciseRunner, ExerciseSession
from app.course.lesson_text import LessonText
from app.course.library import lessons, query_param
from app.course.progress import ProgressStore
from app.lti import LTI_LESSON
from app.lti.grades import queue_score, try_send
from app.lti.roster import RosterError, learners
from app.lti.store import PendingScore, StateUnavailable
from app.lti.tool import Tool, current_tool
from app.web.background import in_worker_thread
from app.web.shell import deferred, page

LOG = logging.getLogger("app.lti")

RECHECK_MS = 5000
"""How often a page whose score is not taken yet asks whether the server's retries got it through."""

NOT_LAUNCHED = (
    "This page opens only from your course: its launch link is missing, already used or expired. "
    "Nothing of the course is shown here. Open the exercise from your course again."
)
CLASS_OFF = (
    "The class's predictions are off on this server (it was started without a class database), so there is "
    "no class to show. Ask whoever hosts the course to start it with --class-db."
)
SENDING = "Sending your result to your course…"
SENT = "Sent to your course."
KEPT = "Not sent yet: your course did not take the result. It is kept and sent again shortly."


def _refused(title: str, text: str) -> pn.template.base.BaseTemplate:
    return page(title, pn.pane.HTML(f'<p role="alert">{html.escape(text)}</p>', sizing_mode="stretch_width"), bare=True)


def redeem(kind: str) -> dict[str, Any] | None:
    """The launch this session's URL carries (``?code=…``), taken once; None when there is none to take."""
    tool = current_tool()
    code = query_param("code")
    if tool is None or not code or len(code) > 100:
        return None
    try:
        record = tool.state.take_launch(code)
    except StateUnavailable as problem:
        LOG.error("LTI: a launch code cannot be read: %s", problem)
        return None
    if record is None or record.get("kind") != kind:
        LOG.warning("LTI page %s opened with a launch code that is unknown, used or expired", kind)
        return None
    return record


class GradeLine:
    """The status line under a launched exercise: the grade being sent, sent, or kept for later."""

    def __init__(self, tool: Tool, record: dict[str, Any]) -> None:
        self.tool = tool
        self.record = record
        self.pane = pn.pane.HTML('<p role="status" aria-live="polite"></p>', sizing_mode="stretch_width")
        self.pending: PendingScore | None = None
        self._judged = False
        self._recheck = None

    def show(self, text: str) -> None:
        """Put ``text`` in the status line."""
        self.pane.object = f'<p role="status" aria-live="polite">{html.escape(text)}</p>'

    def verdict(self, correct: bool) -> None:
        """The first verdict of the launched exercise: keep its score and send it (once per launch, in a thread)."""
        if self.pending is not None or self._judged or "lineitem" not in self.record:
            return
        self._judged = True
        self.show(SENDING)

        def work() -> bool | None:
            try:
                self.pending = queue_score(self.tool, self.record, correct)
            except StateUnavailable as problem:
                LOG.error("LTI: a score cannot be kept: %s", problem)
                return None
            return try_send(self.tool, self.pending)

        in_worker_thread(work, self._sent)

    def _sent(self, taken: bool | None) -> None:
        if taken is None:
            self.show("Your result could not be kept for your course now; do the exercise again later.")
            return
        if taken:
            self.show(SENT)
            if self._recheck is not None:
                self._recheck.stop()
                self._recheck = None
            return
        self.show(KEPT)
        doc = pn.state.curdoc
        if self._recheck is None and doc is not None and doc.session_context is not None:
            self._recheck = pn.state.add_periodic_callback(self._check, period=RECHECK_MS)

    def _check(self) -> None:
        pending = self.pending
        if pending is None:
            return

        def work() -> bool:
            try:
                return self.tool.state.is_sent(pending.id)
            except Exception:  # noqa: BLE001 (asked again at the next tick)
                return False

        in_worker_thread(work, lambda taken: self._sent(True) if taken else None)


class LabShelf:
    """The labs a launched exercise uses, each built for the session the first time it is needed.

    As :class:`app.site.pages.lesson.LabShelf`, which this layer may not import (app.site is above it).
    """

    def __init__(self) -> None:
        self._views: dict[str, pn.viewable.Viewer] = {}

    def view(self, slug: str) -> pn.viewable.Viewer:
        """The session's view of lab ``slug``, built on first use."""
        if slug not in self._views:
            self._views[slug] = lab_kinds()[slug].lesson_view()
        return self._views[slug]


def exercise_view(
    lesson: Lesson, exercise: Exercise, progress: ProgressStore, classroom: ClassShare | None
) -> tuple[pn.viewable.Viewable, ExerciseRunner]:
    """One exercise, started, with its lab, for one session (as ``/embed/lesson`` shows it); and its runner."""
    shelf = LabShelf()
    session = ExerciseSession()
    runner = ExerciseRunner(
        lab=shelf.view(exercise.lab) if exercise.lab == lesson.lab else None,
        lab_provider=partial(shelf.view, exercise.lab),
        session=session,
        progress=progress,
        exercise=exercise,
        lesson_slug=lesson.slug,
        classroom=classroom,
        heading_level=2,
        shareable=False,
    )
    runner.start()
    lab_slot = deferred(lambda: shelf.view(session.active_lab or lesson.lab), sizing_mode="stretch_width")
    text = LessonText([runner.card], footer_html="", lab=lab_slot, sizing_mode="stretch_width")
    return text, runner


def build_lesson() -> pn.template.base.BaseTemplate:
    """``/lti/lesson?id=…&code=…``: the launched exercise for a Learner, or a page saying it cannot open.

    Every page answered under one ``id`` has that lesson's title, refused or not: the page's HTML is
    rendered once per page kind (:func:`app.site.sessions.page_key`, from a page built at start-up
    without a code), so its title and first heading must not depend on the launch.
    """
    named = next((item for item in lessons() if item.slug == query_param("id")), None)
    title = named.title if named is not None else "This exercise opens from your course"
    record = redeem("learner")
    tool = current_tool()
    if record is None or tool is None:
        return _refused(title, NOT_LAUNCHED)
    if named is None or record["lesson"] != named.slug:  # the link was changed after the launch
        LOG.warning("LTI lesson page opened with a launch code for another lesson")
        return _refused(title, NOT_LAUNCHED)
    lesson = named
    exercise = lesson.exercise(record["exercise"])
    if exercise is None:  # the course changed between the launch and the page
        return _refused(title, "The exercise this link names is no longer in the course.")
    store = class_store()
    progress = ProgressStore(height=0, margin=0, class_on=store is not None)
    classroom = ClassShare(store, scope=record["scope"], student=record["student"]) if store is not None else None
    view, runner = exercise_view(lesson, exercise, progress, classroom)
    grade = GradeLine(tool, record)

    def judged(event) -> None:
        if event.new is not None and event.old is None:
            grade.verdict(runner.correct)

    runner.param.watch(judged, "shown")
    return page(lesson.title, pn.Column(view, grade.pane, progress, sizing_mode="stretch_width"), back=False, bare=True)


def build_instructor() -> pn.template.base.BaseTemplate:
    """``/lti/instructor?code=…``: the LMS course's class for its Instructor or TeachingAssistant, signed in."""
    record = redeem("instructor")
    if record is None:  # titled as the launched page is: the page's HTML is rendered once (see build_lesson)
        return _refused("Class results", NOT_LAUNCHED)
    store = class_store()
    if store is None:
        return _refused("Class results", CLASS_OFF)
    from app.classroom.instructor_view import InstructorView

    view = InstructorView(store, scope=record["scope"], launched=True)
    wanted = f"{record['scope']}{record['lesson']}/{record['exercise']}"
    if record.get("lesson") and wanted in view.exercise.values:
        view.exercise.value = wanted  # the exercise the link names, first
    roster = pn.pane.HTML("", sizing_mode="stretch_width")
    if record.get("memberships_url"):  # Names and Roles offered: the roster's size beside the locked count
        tool = current_tool()
        roster.object = f'<p role="status">{html.escape(ROSTER_READING)}</p>'
        in_worker_thread(partial(_roster_size, tool, record), lambda text: setattr(roster, "object", text))
    return page("Class results", pn.Column(roster, view, sizing_mode="stretch_width"), back=False, bare=True)


ROSTER_READING = "Reading your course's roster…"


def _roster_size(tool: Tool | None, record: dict[str, Any]) -> str:
    """The roster line (run in a worker thread): ``Your course's roster: 25 students.``, or why it cannot be read."""
    if tool is None:
        return ""
    try:
        count = learners(tool, record)
    except RosterError as problem:
        LOG.warning("LTI roster not read: %s", problem)
        return f'<p role="status">Your course\'s roster cannot be read now ({html.escape(str(problem))}).</p>'
    noun = "student" if count == 1 else "students"
    return f'<p role="status">Your course\'s roster: {count} {noun}.</p>'


ROUTES = {LTI_LESSON: build_lesson, "/lti/instructor": build_instructor}
"""The launch's Panel pages, for ``pn.serve``."""
