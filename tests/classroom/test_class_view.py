"""The class on a lesson and on the instructor page without a browser: sharing, limits, failures, the reveal."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from app.classroom import limits
from app.classroom.histogram import bin_edges
from app.classroom.instructor_view import SPLIT_HIDDEN, InstructorView
from app.classroom.store import ClassStore
from app.classroom.student import ClassShare, RecentReads, class_result_text
from app.course.content import load_lessons
from app.course.exercise import ExerciseRunner, ExerciseSession
from app.course.progress import ProgressStore
from app.site.pages.lesson import lesson_view
from labs.queue.view import QueueLab
from labs.timed import format_number
from labs.timeline.view import TimelineLab

LESSON = next(lesson for lesson in load_lessons() if lesson.slug == "overlap")
EXERCISE = LESSON.exercise("growth")
KEY = f"{LESSON.slug}/{EXERCISE.id}"
ME, YOU = "a" * 32, "b" * 32
RIGHT = "the-right-instructor-token"


@pytest.fixture
def store(tmp_path):
    opened = ClassStore(f"sqlite:///{tmp_path / 'class.db'}")
    yield opened
    opened.dispose()


@pytest.fixture(autouse=True)
def fresh_limit(monkeypatch):
    monkeypatch.setattr(
        "app.classroom.student.ADDRESS_LIMIT",
        limits.WriteLimiter(limits.ADDRESS_WRITES, window_s=limits.ADDRESS_WINDOW_S),
    )
    monkeypatch.setattr("app.classroom.student.SHARED_READS", RecentReads(fresh_s=0.0))  # every poll reads
    monkeypatch.setattr("app.classroom.signin.LIMIT", limits.SignInLimiter())


def runner_for(store: ClassStore, student: str = ME, lesson=LESSON, exercise=EXERCISE, lab=QueueLab) -> ExerciseRunner:
    """One student's exercise with the class on (headless: database work runs at once)."""
    share = ClassShare(store)
    share.student = student
    return ExerciseRunner(
        lab=lab(),
        session=ExerciseSession(),
        progress=ProgressStore(),
        exercise=exercise,
        lesson_slug=lesson.slug,
        classroom=share,
    )


def csv_of(view: InstructorView) -> str:
    """What Export CSV downloads (its callback is a coroutine; run on a loop of its own, beside any running one)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, view._csv()).result().getvalue()


def lock(runner: ExerciseRunner, text: str) -> None:
    runner.card.receive({"action": "lock", "text": text})


def test_without_a_class_nothing_is_said_or_shared():
    runner = ExerciseRunner(
        lab=QueueLab(), session=ExerciseSession(), progress=ProgressStore(), exercise=EXERCISE, lesson_slug="overlap"
    )
    lock(runner, "1")
    assert runner.card.class_html == ""


def test_a_locked_prediction_is_shared_once_and_the_class_shown_only_after_the_reveal(store):
    mine, yours = runner_for(store, ME), runner_for(store, YOU)
    assert "shared anonymously" in mine.card.class_html
    lock(mine, "1")
    lock(yours, "2,5")
    assert "Shared anonymously with the instructor (round 1)." in mine.card.class_html
    assert store.rounds_of(KEY)[0].predictions == (1.0, 2.5)
    mine.classroom.poll()
    assert "class:" not in mine.card.class_html  # not revealed: nothing about the class
    store.reveal(KEY)
    mine.classroom.poll()
    assert "class: 2 locked · 1 of 2 (50%): right, within ±" in mine.card.class_html
    assert "1 of 2 (50%): other answers" in mine.card.class_html and "yours 1 work unit per second (right)" in (
        mine.card.class_html
    )
    assert mine.card.start_label == ""  # locked, not yet run: no Try again
    store.new_round(KEY)
    mine.classroom.poll()
    assert "Round 2 is open" in mine.card.class_html
    assert mine.card.start_label == "Try again"  # a new round: the student may predict again before running
    mine.card.receive({"action": "start"})
    assert not mine.card.locked and mine.card.start_label == ""


def test_the_same_student_locking_again_in_a_round_replaces_nothing(store):
    runner = runner_for(store)
    lock(runner, "1")
    runner.start()
    lock(runner, "3")
    assert "You already shared a prediction in round 1 (1 work unit per second); it stays" in runner.card.class_html
    assert store.rounds_of(KEY)[0].predictions == (1.0,)


def test_a_bad_prediction_is_refused_and_stored_nowhere(store):
    runner = runner_for(store)
    for text in ("nan", "abc", "1e999", ""):
        lock(runner, text)
        assert runner.prediction is None
    assert store.rounds_of(KEY)[0].predictions == ()


def test_a_flood_from_one_session_is_cut_off_and_others_are_not(store):
    flood = runner_for(store, ME)
    flood.classroom._writes = limits.WriteLimiter(per_second=2, keys=1)
    for _ in range(5):
        flood.start()
        lock(flood, "1")
    assert "Not shared: too many predictions at once" in flood.card.class_html
    other = runner_for(store, YOU)
    lock(other, "2")
    assert "Shared anonymously" in other.card.class_html
    assert sorted(store.rounds_of(KEY)[0].predictions) == [1.0, 2.0]


def test_a_database_that_is_down_leaves_the_exercise_working(store):
    runner = runner_for(store)
    runner.classroom.store = _Down()
    lock(runner, "1")
    assert "could not be shared with the instructor" in runner.card.class_html
    assert runner.locked and runner.lab.transport.allowed  # Play and Step are on: the exercise goes on


class _Down:
    """A class database that is not answering."""

    def __getattr__(self, name):
        from app.classroom.store import StoreUnavailable

        def refuse(*_args, **_kwargs):
            raise StoreUnavailable("the class database cannot be written (connection refused)")

        return refuse


def test_the_instructor_sees_nothing_without_the_token(store, monkeypatch):
    monkeypatch.setenv("INSTRUCTOR_TOKEN", RIGHT)
    view = InstructorView(store)
    for _ in range(3):  # Sign in, Enter and leaving the field send the same text: one try
        view._try("wrong")
    assert not view.signed_in and "not the instructor token" in view.alert.object
    assert [type(o).__name__ for o in view.layout.objects] == ["NamedRegion"]  # the sign-in only
    assert csv_of(view) == ""
    view._try(RIGHT)
    assert view.signed_in
    store.lock(KEY, ME, 1.0)
    view.exercise.value = KEY
    view.refresh()
    assert "locked = 1 · round 1 · answer hidden" in view.status.text
    view._act(store.reveal)
    assert "(revealed)" in view.status.text and view.answer_line.visible
    assert csv_of(view).count(KEY) == 1


def test_bins_and_the_class_line():
    assert len(bin_edges(np.array([4.0, 4.0]))) == 2  # one bin around a single value
    assert len(bin_edges(np.linspace(0, 1000, 500))) - 1 <= 12
    assert class_result_text(EXERCISE, (), None).startswith("class: nobody locked")


def test_a_user_panel_logged_in_and_listed_needs_no_token(store, monkeypatch):
    monkeypatch.setenv("INSTRUCTOR_USERS", "alice, bob")
    assert InstructorView(store, user="alice").signed_in
    assert not InstructorView(store, user="carol").signed_in
    monkeypatch.setenv("INSTRUCTOR_USERS", "guest")
    assert not InstructorView(store, user="guest").signed_in  # every guest of --oauth-guest-endpoints


def test_a_hall_of_pages_asking_for_the_reveal_is_one_read_a_second(store, monkeypatch):
    monkeypatch.setattr("app.classroom.student.SHARED_READS", RecentReads(fresh_s=60.0))
    runners = [runner_for(store, f"{n:032x}") for n in range(1, 21)]
    for runner in runners:
        lock(runner, "1")
    reads = []
    current_round = store.current_round
    monkeypatch.setattr(store, "current_round", lambda key: reads.append(key) or current_round(key))
    for runner in runners:
        runner.classroom.poll()
    assert reads == [KEY]  # twenty pages asked; the database was read once


CHOICE_LESSON = next(lesson for lesson in load_lessons() if lesson.slug == "hidden")
CHOICE = CHOICE_LESSON.exercise("overlap-slower-than-none")
CHOICE_KEY = f"{CHOICE_LESSON.slug}/{CHOICE.id}"


def test_a_choice_is_shared_as_its_position_and_the_class_counted_per_choice(store, monkeypatch):
    assert CHOICE.choices == ("shorter", "as long", "longer")
    students = [runner_for(store, f"{k:032x}", CHOICE_LESSON, CHOICE, TimelineLab) for k in range(4)]
    refused = students[0]
    lock(refused, "faster")  # not one of the choices: refused, nothing shared
    assert refused.prediction is None and "choose one of the answers" in refused.notice
    for runner, text in zip(students, ("longer", "shorter", "longer", "as long"), strict=True):
        lock(runner, text)
        assert runner.card.prediction == text and runner.locked
    assert store.rounds_of(CHOICE_KEY)[0].predictions == (2.0, 0.0, 2.0, 1.0)
    students[1].start()
    lock(students[1], "longer")
    assert "You already shared a prediction in round 1 (“shorter”)" in students[1].card.class_html
    store.reveal(CHOICE_KEY)
    students[0].classroom.poll()
    shorter, as_long = (CHOICE.mistake_label(k) for k in range(2))
    assert (
        f"class: 4 locked · 2 of 4 (50%): right, “longer” · 1 of 4 (25%): “shorter”, {shorter} · "
        f"1 of 4 (25%): “as long”, {as_long} · yours “longer” (right)"
    ) in students[0].card.class_html

    monkeypatch.setenv("INSTRUCTOR_TOKEN", RIGHT)
    view = InstructorView(store)
    view._try(RIGHT)
    view.exercise.value = CHOICE_KEY
    view.refresh()
    assert "answer “longer” (revealed)" in view.status.text
    assert view.source.data["x"] == [0.0, 1.0, 2.0] and view.source.data["top"] == [1, 1, 2]  # a bar per choice
    axis = view.figure.xaxis[0]
    assert axis.ticker.ticks == [0, 1, 2] and axis.major_label_overrides == {0: "shorter", 1: "as long", 2: "longer"}
    assert "<caption>Predictions per choice</caption>" in view.table.object
    assert '<th scope="row">as long</th><td>1</td>' in view.table.object
    assert view.answer_line.visible and view.answer_line.location == 2
    view.exercise.value = KEY  # back to a number: a histogram with a numeric axis again
    view.refresh()
    assert view.figure.xaxis[0].major_label_overrides == {} and view.figure.xaxis[0].ticker is view.range_ticker


def test_an_embedded_exercise_shares_its_prediction_with_the_class_as_the_lesson_page_does(store):
    share = ClassShare(store)
    share.student = ME
    view = lesson_view(LESSON, EXERCISE.id, ProgressStore(), share, alone=True)
    (card,) = view.objects[0]._cards
    assert "shared anonymously" in card.class_html
    card.receive({"action": "lock", "text": "1"})
    assert "Shared anonymously with the instructor (round 1)." in card.class_html
    assert store.rounds_of(KEY)[0].predictions == (1.0,)


def test_the_class_by_misconception_for_the_instructor_and_after_the_reveal_for_students(store, monkeypatch):
    """Twelve students, eight right and four with the exercise's first named mistake."""
    import sqlalchemy as sa

    alone = EXERCISE.mistakes[0]
    runners = [runner_for(store, f"{n:032x}") for n in range(1, 13)]
    for n, runner in enumerate(runners):
        lock(runner, format_number(alone.answer) if n < 4 else format_number(EXERCISE.answer))
    monkeypatch.setenv("INSTRUCTOR_TOKEN", RIGHT)
    view = InstructorView(store)
    view._try(RIGHT)
    view.exercise.value = KEY
    statements: list[str] = []
    sa.event.listen(store.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    view.refresh()
    assert "locked = 12 · round 1 · answer hidden" in view.status.text
    assert len(statements) == 2  # the rounds and the votes, one read whatever the size of the class
    assert view.split.object == SPLIT_HIDDEN and view.show_split.visible  # it would name the answer
    view.show_split.value = True
    assert view.show_split.label == "Hide the split"
    assert f"<li>8 of 12 (67%): right</li><li>4 of 12 (33%): {alone.label}</li>" in view.split.object
    for k, other in enumerate(EXERCISE.mistakes[1:], start=1):
        assert f"<li>0 of 12 (0%): {EXERCISE.mistake_label(k)}</li>" in view.split.object, other
    assert "<li>0 of 12 (0%): other answers</li>" in view.split.object

    student = runners[0]
    student.classroom.poll()
    assert alone.label not in student.card.class_html  # nothing about the class before the reveal
    view._act(store.reveal)
    assert not view.show_split.visible and f"4 of 12 (33%): {alone.label}" in view.split.object
    student.classroom.poll()
    assert f"· 4 of 12 (33%): {alone.label} ·" in student.card.class_html
    assert f"yours {EXERCISE.with_unit(format_number(alone.answer))} ({alone.label})" in student.card.class_html
    assert "other answers" not in student.card.class_html  # nobody gave another answer: not listed

    csv = csv_of(view).splitlines()
    assert csv[0].endswith(",variant,class")
    assert sum(line.endswith(f",,mistake: {alone.label}") for line in csv) == 4
    assert sum(line.endswith(",,right") for line in csv) == 8

    view.exercise.value = CHOICE_KEY  # another exercise: its split hidden again until revealed or asked for
    assert not view.show_split.value and view.split.object == SPLIT_HIDDEN


def test_a_student_given_new_numbers_reads_the_answer_to_their_own_numbers_after_the_reveal():
    """The class line quotes the variant's answer, not the written exercise's, and no median of unlike numbers."""
    from app.classroom.store import Round, RoundVotes
    from app.course.variants import asked_with_new_numbers, variant_name

    written = next(e for lesson in load_lessons() for e in lesson.exercises if e.vary and not e.choices)
    asked = asked_with_new_numbers(written, seed=7, attempt=1)
    name = variant_name(asked)
    assert name is not None and asked.answer != written.answer
    votes = RoundVotes(Round(1, True), (written.answer, asked.answer), (None, name))
    line = class_result_text(written, votes, asked.answer, name)
    assert "2 of 2 (100%): right, each judged on the numbers they were given" in line
    assert f"the answer to your numbers is {written.with_unit(format_number(asked.answer))}" in line
    assert "median" not in line and f"of the answer {format_number(written.answer)}" not in line
    # a round where everyone had the numbers as written reads as before
    plain = class_result_text(written, RoundVotes(Round(1, True), (written.answer,), (None,)), written.answer, None)
    assert f"of the answer {written.with_unit(format_number(written.answer))}" in plain and "median" in plain
    assert class_result_text(written, RoundVotes(Round(1, True), ()), None, name).endswith(
        f"the answer is {written.with_unit(format_number(asked.answer))}"
    )
