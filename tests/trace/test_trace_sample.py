"""The course's sample trace (content/traces/, rank 1 late) and the lab an exercise uses to ask about it."""

from __future__ import annotations

import html
import re

import pytest

from app.course.content import load_lessons
from app.course.exercise import ExerciseRunner, ExerciseSession
from app.course.exercise_drawing import steps_html
from app.course.progress import ProgressStore
from app.trace.page.lab import HIDDEN, TraceLab
from app.trace.page.sample import LATE_MS, SampleTraceReading, sample_run, sample_traces
from app.trace.page.shown import figures_text
from app.trace.page.view import PROMPT, SAMPLE_PROMPT, TraceView
from tests.browser.test_trace_browser import GLOO, readout
from tests.trace.test_trace_view import drop

TRACE_EXERCISES = [(lesson, e) for lesson in load_lessons() for e in lesson.exercises if e.lab == "trace"]


def by_rank(rank: int):
    return next(tl for tl in sample_run().timelines if tl.rank == rank)


def test_the_sample_is_two_ranks_of_one_run_with_rank_1_late_for_the_last_bucket():
    run = sample_run()
    assert run.ranks == (0, 1) and run.world_size == 2
    assert len(run.timelines[0].buckets) == 4
    assert run.last_ready_rank[-1] == 1  # the sleep sits before the last gradient
    punctual, late = by_rank(0), by_rank(1)
    # rank 1's backward holds its sleep; rank 0 waits for it inside the last all-reduce instead
    assert late.backward_end - late.backward_start > (punctual.backward_end - punctual.backward_start) + LATE_MS * 1e3
    assert punctual.buckets[-1].duration_ms > LATE_MS > late.buckets[-1].duration_ms
    assert punctual.tail_ms > LATE_MS > late.tail_ms


def test_the_sample_is_parsed_once_per_process_and_shared_by_every_session():
    first, second = TraceLab(), TraceLab()
    first.model.step()
    second.model.step()
    assert sample_traces() is sample_traces()
    assert all(a is b for a, b in zip(first.traces, second.traces, strict=True))


def test_the_model_holds_nothing_until_loaded_and_its_choices_come_from_the_trace():
    model = SampleTraceReading()
    assert not model.loaded and model.controls == ()
    model.step()
    assert model.loaded and model.at_end
    assert model.choice("last_ready_rank") == f"rank {sample_run().last_ready_rank[-1]}" == "rank 1"
    assert model.choice("longer_tail_rank") == "rank 0"
    model.reset()
    assert not model.loaded


@pytest.mark.parametrize(("lesson", "exercise"), TRACE_EXERCISES, ids=[e.id for _, e in TRACE_EXERCISES])
def test_a_trace_exercise_quotes_the_samples_own_figures(lesson, exercise):
    """The explanation's milliseconds are the parsed sample's, so a regenerated sample cannot leave them stale."""
    quoted = [float(x) for x in re.findall(r"(\d+\.\d) ms", exercise.explanation)]
    tails = sorted(round(tl.tail_ms, 1) for tl in sample_run().timelines)
    assert sorted(quoted) == tails, (quoted, tails)


def test_the_course_has_a_trace_exercise():
    assert TRACE_EXERCISES


def test_load_is_off_while_an_exercise_says_so_and_a_press_then_changes_nothing():
    lab = TraceLab()
    assert SAMPLE_PROMPT in lab.status.text and not lab.sample.disabled
    lab.gate("Load the sample trace is off until you lock a prediction.")
    assert lab.sample.disabled and "until you lock a prediction" in lab.hint.object
    assert "Press Load" not in lab.status.text and "off until you lock a prediction. Then press it" in lab.status.text
    lab.sample.clicks += 1
    assert not lab.model.loaded and lab.traces == []
    lab.gate("")
    assert not lab.sample.disabled and lab.hint.object == "" and SAMPLE_PROMPT in lab.status.text
    lab.sample.clicks += 1
    assert lab.model.loaded
    assert f"rank 1: {figures_text(by_rank(1))}" in lab.status.text and "rank 0: " in lab.status.text
    assert "rank 1" in lab.table.object and lab.figure.visible


def test_reset_unloads_and_shows_nothing_read():
    lab = TraceLab()
    lab.sample.clicks += 1
    lab.reset.clicks += 1
    assert not lab.model.loaded and lab.traces == []
    assert SAMPLE_PROMPT in lab.status.text
    assert lab.table.object == lab.summary.object == "" and not lab.figure.visible
    assert lab.steps.disabled


def test_concealed_figures_are_hidden_and_come_back_after():
    lab = TraceLab()
    lab.sample.clicks += 1
    lab.conceal = True
    assert not lab.shown.visible and html.escape(HIDDEN) in lab.status.text
    lab.conceal = False
    assert lab.shown.visible and "ranks = 2" in lab.status.text


def test_an_exercise_on_the_sample_gates_load_and_judges_from_the_parsed_trace():
    lesson, exercise = TRACE_EXERCISES[0]
    lab = TraceLab()
    lab.sample.clicks += 1  # loaded before the exercise starts: hidden until its steps are done
    runner = ExerciseRunner(
        lab=lab, session=ExerciseSession(), progress=ProgressStore(), exercise=exercise, lesson_slug=lesson.slug
    )
    runner.start()
    assert not lab.shown.visible and lab.sample.disabled
    assert "Load the sample trace is off until you lock a prediction." in lab.hint.object
    assert "Press Load the sample trace" in steps_html(runner)
    assert "Load the sample trace stays off until you lock a prediction." in steps_html(runner)
    lab.reset.clicks += 1
    assert "Press Load" not in lab.status.text and "until you lock a prediction" in lab.status.text  # issue 43
    runner.lock(exercise.choice_text(exercise.answer))
    assert not lab.sample.disabled and not runner.finished
    lab.sample.clicks += 1
    assert runner.finished and runner.correct
    assert lab.shown.visible and "ranks = 2" in lab.status.text
    assert "Correct: you predicted “rank 0”, and the lab shows “rank 0”." in runner.card.feedback_html


def test_the_trace_page_loads_the_sample_and_a_dropped_file_replaces_it():
    view = TraceView()
    assert PROMPT in view.status.text and view.sample.visible
    view.sample.clicks += 1
    assert f"rank 1: {figures_text(by_rank(1))}" in view.status.text
    drop(view, GLOO[:1])
    assert readout(GLOO[:1]) in view.status.text
