"""The instructor's histogram never fails: any data gives the selected exercise's chart or says why not.

Pure checks of the chart's plan, then the real instructor view on votes forced into a real SQLite
and PostgreSQL database past the lock's refusal (``±1.7e308``, NaN where the database keeps it).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from app.classroom.histogram import MAX_BINS, Chart, bin_edges, chart_of
from app.classroom.instructor_view import InstructorView
from app.classroom.limits import SignInLimiter
from app.classroom.store import ClassStore, Round, RoundVotes
from app.course.content import load_lessons
from app.course.exercise_range import prediction_range
from labs.timed import format_number

LESSONS = load_lessons()
LESSON = next(lesson for lesson in LESSONS if lesson.slug == "overlap")
EXERCISE = LESSON.exercise("growth")
KEY = f"{LESSON.slug}/{EXERCISE.id}"
OTHER = LESSON.exercise("drain")
OTHER_KEY = f"{LESSON.slug}/{OTHER.id}"
CHOICE_LESSON = next(lesson for lesson in LESSONS if lesson.slug == "hidden")
CHOICE = CHOICE_LESSON.exercise("overlap-slower-than-none")
TOKEN = "a-strong-token-for-the-histogram"
HUGE = 1.7e308
RANGE = " to ".join(format_number(end) for end in prediction_range(EXERCISE))  # -4000 to 4000: 1000× its mistake


def votes(*predictions: float, revealed: bool = False) -> list[RoundVotes]:
    return [RoundVotes(Round(1, revealed), tuple(predictions))]


@pytest.mark.parametrize(
    "values",
    [
        [HUGE, -HUGE],
        [HUGE],
        [-HUGE, 0.0],
        [float("nan"), 1.0],
        [float("inf"), float("-inf")],
        [4.0],
        [5e-324, 1e-323],
        list(np.random.default_rng(7).normal(1.0, 0.5, 5000)),
        list(np.random.default_rng(7).lognormal(0.0, 20.0, 5000)),
    ],
)
def test_bin_edges_never_fail_and_never_overflow(values):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow would warn first
        edges = bin_edges(np.array(values))
    assert np.all(np.isfinite(edges)) and np.all(np.diff(edges) > 0) and 2 <= len(edges) <= MAX_BINS + 1


def test_only_predictions_that_make_sense_are_drawn_and_the_rest_named():
    chart = chart_of(EXERCISE, votes(1.0, 1.2, 4.0, HUGE, -HUGE, float("nan")), revealed=False)
    assert isinstance(chart, Chart)
    assert sum(int(c.sum()) for c in chart.counts) == 3
    assert chart.note.startswith(f"3 of the 6 predictions are not drawn: outside {RANGE} work units per second")
    width = float(chart.edges[1] - chart.edges[0])
    assert chart.edges[0] <= 1.0 < chart.edges[0] + width  # the bins fit the sane votes, a bin at most around them
    assert chart.edges[-1] - width <= 4.0 < chart.edges[-1]


@pytest.mark.parametrize(
    ("values", "whole", "edges"),
    [
        ([-1.0, 1.0, 4.0], False, [-2, 0, 2, 4, 6]),  # not "-1 to 0.666667": round numbers
        ([16.8, 18.5, 22.0, 23.47], False, [15, 17.5, 20, 22.5, 25]),
        ([800.0, 1000.0, 600.0], False, [600, 800, 1000, 1200]),
        ([0.0, 3.0, 7.0], True, [-0.5, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5]),  # a bar on each count
    ],
)
def test_bins_have_round_edges_and_whole_numbers_a_bar_each(values, whole, edges):
    assert bin_edges(np.array(values), whole=whole).tolist() == edges


def test_no_prediction_that_can_be_drawn_says_why():
    assert chart_of(EXERCISE, votes(HUGE, -HUGE), revealed=True) == (
        f"None of the 2 predictions can be drawn: each is outside {RANGE} work units per second, "
        "the range that makes sense here."
    )
    assert chart_of(EXERCISE, votes(), revealed=False) == "No predictions locked yet."


def test_a_choice_exercise_counts_only_its_choices():
    chart = chart_of(CHOICE, votes(0.0, 2.0, 2.0, HUGE, 7.0, float("nan")), revealed=False)
    assert isinstance(chart, Chart) and chart.counts[0].tolist() == [1, 0, 2]
    assert chart.note == "3 of the 6 predictions are not drawn: not one of the choices."
    empty = chart_of(CHOICE, votes(), revealed=False)
    assert isinstance(empty, Chart) and empty.counts[0].tolist() == [0, 0, 0]  # a bar per choice, all zero


@pytest.fixture
def store(url):
    opened = ClassStore(url)
    yield opened
    opened.dispose()


def test_extreme_votes_forced_into_the_store_leave_a_chart_of_the_selected_exercise(store, monkeypatch):
    monkeypatch.setattr("app.classroom.signin.LIMIT", SignInLimiter())
    monkeypatch.setenv("INSTRUCTOR_TOKEN", TOKEN)
    for n, value in enumerate((1.0, 1.0, 4.0, HUGE, -HUGE, float("nan"))):  # the lock would refuse the last three
        store.lock(KEY, f"{n:032x}", value)
    stored = len(store.rounds_of(KEY)[0].predictions)  # SQLite keeps no NaN (NULL is refused); PostgreSQL does
    for n, value in enumerate((HUGE, -HUGE)):
        store.lock(OTHER_KEY, f"{n:032x}", value)
    view = InstructorView(store)
    view._try(TOKEN)
    view.exercise.value = KEY
    view.refresh()
    assert f"locked = {stored} · round 1 · answer hidden" in view.status.text
    assert sum(view.source.data["top"]) == 3
    assert f"{stored - 3} of the {stored} predictions are not drawn" in view.table.object
    assert "<caption>Predictions per range</caption>" in view.table.object
    assert 0.0 <= view.figure.x_range.start <= 1.0 and 4.0 < view.figure.x_range.end <= 6.0  # the sane votes' bins

    view.exercise.value = OTHER_KEY  # only extreme votes: no chart, and not the one before
    assert "locked = 2 · round 1 · answer hidden" in view.status.text
    assert view.source.data["top"] == [] and not view.answer_line.visible
    assert "None of the 2 predictions can be drawn" in view.table.object
    view._act(store.reveal)
    assert "(revealed)" in view.status.text and "None of the 2 predictions can be drawn" in view.table.object
    assert view.problem.object == ""
