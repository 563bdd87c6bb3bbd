"""Each LMS course is its own class (headless): votes under its scope, its instructor's view and export see it alone."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.classroom import limits
from app.classroom.instructor_view import InstructorView
from app.classroom.store import ClassStore
from app.classroom.student import ClassShare, RecentReads
from app.course.content import load_lessons
from app.course.exercise import ExerciseRunner, ExerciseSession
from app.course.progress import ProgressStore
from app.lti.launches import class_scope, student_id
from labs.queue.view import QueueLab

LESSON = next(lesson for lesson in load_lessons() if lesson.slug == "overlap")
EXERCISE = LESSON.exercise("growth")
KEY = f"{LESSON.slug}/{EXERCISE.id}"
COURSE_A = class_scope("https://lms.example", "d1", "course-A")
COURSE_B = class_scope("https://lms.example", "d1", "course-B")


@pytest.fixture
def store(tmp_path):
    opened = ClassStore(f"sqlite:///{tmp_path / 'class.db'}")
    yield opened
    opened.dispose()


@pytest.fixture(autouse=True)
def fresh_limits(monkeypatch):
    monkeypatch.setattr(
        "app.classroom.student.ADDRESS_LIMIT",
        limits.WriteLimiter(limits.ADDRESS_WRITES, window_s=limits.ADDRESS_WINDOW_S),
    )
    monkeypatch.setattr("app.classroom.student.SHARED_READS", RecentReads(fresh_s=0.0))


def launched_runner(store: ClassStore, scope: str, sub: str) -> ExerciseRunner:
    share = ClassShare(store, scope=scope, student=student_id("https://lms.example", sub))
    return ExerciseRunner(
        lab=QueueLab(),
        session=ExerciseSession(),
        progress=ProgressStore(),
        exercise=EXERCISE,
        lesson_slug=LESSON.slug,
        classroom=share,
    )


def csv_of(view: InstructorView) -> str:
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, view._csv()).result().getvalue()


def test_the_scope_and_student_id_are_hashes_that_name_no_lms_id():
    assert COURSE_A != COURSE_B and COURSE_A.startswith("lti-") and COURSE_A.endswith("/")
    assert "course-A" not in COURSE_A
    assert class_scope("https://lms.example", "d2", "course-A") != COURSE_A  # another deployment: another class
    student = student_id("https://lms.example", "user-1")
    assert len(student) == 32 and "user-1" not in student
    assert student != student_id("https://other.lms", "user-1")


def test_each_lms_course_votes_in_its_own_class(store):
    launched_runner(store, COURSE_A, "u1").card.receive({"action": "lock", "text": "1"})
    launched_runner(store, COURSE_A, "u2").card.receive({"action": "lock", "text": "2"})
    launched_runner(store, COURSE_B, "u3").card.receive({"action": "lock", "text": "3"})
    assert store.rounds_of(COURSE_A + KEY)[0].predictions == (1.0, 2.0)
    assert store.rounds_of(COURSE_B + KEY)[0].predictions == (3.0,)
    assert store.rounds_of(KEY)[0].predictions == ()  # the course's own class is untouched


def test_a_student_launched_twice_still_votes_once_per_round(store):
    first = launched_runner(store, COURSE_A, "u1")
    first.card.receive({"action": "lock", "text": "1"})
    again = launched_runner(store, COURSE_A, "u1")  # a second launch, another session, the same sub
    again.card.receive({"action": "lock", "text": "4"})
    assert store.rounds_of(COURSE_A + KEY)[0].predictions == (1.0,)
    assert "You already shared a prediction in round 1" in again.card.class_html


def test_a_revealed_round_reaches_the_students_of_that_class(store):
    runner = launched_runner(store, COURSE_A, "u1")
    runner.card.receive({"action": "lock", "text": "1"})
    assert runner.classroom.keys() == [COURSE_A + KEY]
    store.reveal(COURSE_A + KEY)
    runner.classroom.poll()
    assert "class: 1 locked" in runner.card.class_html


def test_a_launched_instructor_is_signed_in_to_that_class_alone(store):
    launched_runner(store, COURSE_A, "u1").card.receive({"action": "lock", "text": "1"})
    launched_runner(store, COURSE_B, "u3").card.receive({"action": "lock", "text": "3"})
    view = InstructorView(store, scope=COURSE_A, launched=True)
    assert view.signed_in
    assert all(key.startswith(COURSE_A) for key in view.exercise.values)
    view.exercise.value = COURSE_A + KEY
    assert "locked = 1 · round 1" in view.status.text
    exported = csv_of(view).splitlines()
    assert len(exported) == 2 and exported[1].startswith(f"{KEY},1,") and ",1.0," in exported[1]
    assert "lti-" not in csv_of(view)
    assert not InstructorView(store, scope=COURSE_A).signed_in  # a scope alone signs no one in
