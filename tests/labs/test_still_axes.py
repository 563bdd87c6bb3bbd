"""Issue 43, part 5, headless: the axes and the readout's room are functions of the controls alone.

Neither t, nor whether an exercise conceals its answer, nor which quantity it asks for, nor (for the
random queue) the seed's run enters a range: so the concealed axes are the axes the reveal shows, and
they tell nothing of the answer. The rule is written in ``labs/queue/figures.py`` and
``labs/timeline/figures.py``.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from app.course.content import load_lessons
from labs.queue.text import axis_top, readout_room
from labs.queue.view import QueueLab
from labs.timeline.view import TimelineLab
from tests.headless import send

EXERCISES = [exercise for lesson in load_lessons() for exercise in lesson.exercises]
QUEUE_EXERCISES = [e for e in EXERCISES if e.lab == "queue"]
TIMELINE_EXERCISES = [e for e in EXERCISES if e.lab == "timeline"]


def set_up(lab, exercise) -> None:
    """The exercise's steps up to its prediction, done on ``lab``'s model."""
    for step in exercise.steps:
        if step.kind == "predict":
            break
        if step.kind == "reset":
            lab.model.reset()
        elif step.kind == "set":
            lab.model.apply(step.control, step.value)


def queue_ranges(lab: QueueLab) -> tuple:
    fig = lab.figure
    return fig.x_range.start, fig.x_range.end, fig.y_range.start, fig.y_range.end


def timeline_ranges(lab: TimelineLab) -> tuple:
    gantt, sweep = lab.gantt, lab.sweep
    return (
        gantt.x_range.start,
        gantt.x_range.end,
        tuple(gantt.y_range.factors),
        sweep.x_range.start,
        sweep.x_range.end,
        sweep.y_range.start,
        sweep.y_range.end,
        sweep.visible,
    )


@pytest.mark.parametrize("exercise", QUEUE_EXERCISES, ids=[e.id for e in QUEUE_EXERCISES])
def test_a_queue_exercise_draws_the_same_axes_concealed_and_revealed_at_every_t(exercise):
    lab = QueueLab()
    lab.__panel__()
    set_up(lab, exercise)
    lab.param.update(conceal=True, hidden_quantity=exercise.quantity)
    first = queue_ranges(lab)
    seen = {first}
    for t in (0.25 * lab.model.horizon, lab.model.horizon):
        send(lab, "pause", t)
        seen.add(queue_ranges(lab))
    lab.param.update(conceal=False, hidden_quantity="")  # the verdict reveals the answer
    seen.add(queue_ranges(lab))
    assert seen == {first}
    m = lab.model
    fluid = m.fluid_trajectory()["backlog"]
    assert first[3] >= float(fluid.max()), "the fluid path fits under the axis"
    if m.random_queue:
        assert first[3] >= m.random_peak_at(m.horizon), "this seed's run fits under the axis"


@pytest.mark.parametrize(
    "settings",
    [
        {"random_queue": True},
        {"random_queue": True, "arrival_rate": 0.9, "service_rate": 1},
        {"random_queue": True, "arrival_rate": 3},
        {"random_queue": True, "initial_backlog": 0, "arrival_rate": 0.5},
    ],
)
def test_the_random_queues_axis_does_not_depend_on_the_seed_and_seldom_cuts_a_run(settings):
    lab = QueueLab()
    lab.__panel__()
    for name, value in settings.items():
        lab.model.apply(name, value)
    tops, cut = set(), 0
    for seed in range(40):
        lab.model.apply("seed", seed)
        tops.add(lab.figure.y_range.end)
        cut += lab.model.random_peak_at(lab.model.horizon) > lab.figure.y_range.end
    assert len(tops) == 1 and tops == {axis_top(lab.model)}
    assert cut <= 2, f"{cut} of 40 runs pass the axis's end"


def test_arrivals_that_stop_leave_the_axis_as_if_they_went_on():
    lab = QueueLab()
    lab.__panel__()
    lab.model.param.update(arrival_rate=4.0, service_rate=3.0)
    without = queue_ranges(lab)
    for stop in ("2", "5", "8"):
        lab.model.apply("arrivals_stop", stop)
        assert queue_ranges(lab) == without  # the stop time moves the peak, never the axis


@pytest.mark.parametrize("exercise", TIMELINE_EXERCISES, ids=[e.id for e in TIMELINE_EXERCISES])
def test_a_timeline_exercise_draws_the_same_axes_concealed_and_revealed_at_every_t(exercise):
    lab = TimelineLab()
    set_up(lab, exercise)
    lab.param.update(conceal=True, hidden_quantity=exercise.quantity)
    first = timeline_ranges(lab)
    seen = {first}
    for t in (0.5 * lab.model.horizon, lab.model.horizon):
        send(lab, "pause", t)
        seen.add(timeline_ranges(lab))
    lab.param.update(conceal=False, hidden_quantity="")
    seen.add(timeline_ranges(lab))
    assert seen == {first}
    m = lab.model
    assert m.display_end <= first[1], "everything drawn on the Gantt fits in its time axis"
    steps = [s for s in m.step_time_sweep().step if math.isfinite(s)]
    assert all(step <= first[6] for step in steps), "every cap's step fits under the sweep's axis"
    assert first[3] <= m.bucket_cap <= first[4]


def test_the_timeline_axes_do_not_move_with_what_only_the_schedule_gives():
    """Two settings that differ only in the missing event (an answer's cause) draw the same axes."""
    one, two = TimelineLab(), TimelineLab()
    two.model.apply("missing_event", 3)
    assert one.model.step_time != two.model.step_time
    assert timeline_ranges(one) == timeline_ranges(two)


def test_the_readout_keeps_the_room_of_its_longest_text_and_the_room_tells_nothing():
    lab = QueueLab()
    lab.__panel__()
    lab.model.param.update(arrival_rate=4.0, service_rate=3.0)
    room = readout_room(lab.model)
    assert set(re.findall(r"\d", room)) == {"0"} and not re.search(r"[-−]\d", room)  # no figure, no sign
    lab.model.param.update(arrival_rate=2.0, service_rate=3.0)  # the net rate's sign flips: the room does not
    assert readout_room(lab.model) == room
    before = re.search(r'data-room="([^"]*)"', lab.transport.status.text).group(1)
    lab.param.update(conceal=True, hidden_quantity="net_rate")
    send(lab, "end", lab.model.horizon)
    assert re.search(r'data-room="([^"]*)"', lab.transport.status.text).group(1) == before
    assert f'data-room="{before}"' in lab.transport.state.template  # the page plays it with the same room
    timeline = TimelineLab()
    texts = {timeline.transport.status.text.split(">")[0]}
    timeline.param.update(conceal=True, hidden_quantity="exposed")
    send(timeline, "end", timeline.model.horizon)
    texts.add(timeline.transport.status.text.split(">")[0])
    assert len(texts) == 1, "the timeline's room is one fixed text"


def test_the_timeline_readout_plays_back_the_step_from_t_0():
    lab = TimelineLab()
    m = lab.model
    columns = {k: np.asarray(v) for k, v in lab.transport.state.trajectory.items()}
    at = {t: {k: float(np.interp(t, columns["t"], v)) for k, v in columns.items()} for t in (0.0, 18.0, m.horizon)}
    assert at[0.0]["step_ms"] == at[0.0]["exposed_ms"] == at[0.0]["backward_ms"] == 0
    assert at[18.0]["exposed_ms"] == pytest.approx(18.0 - m.backward_end)  # the tail so far
    assert at[m.horizon]["step_ms"] == pytest.approx(m.step_time)
    assert at[m.horizon]["exposed_ms"] == pytest.approx(m.exposed)
    assert at[m.horizon]["backward_ms"] == pytest.approx(m.backward_end)


def test_the_queue_titles_come_in_lines_a_phone_shows_whole():
    """Bokeh cuts a title at the plot's edge: no line longer than the plain title, which a 390 px phone shows."""
    from labs.queue.text import TITLE, TITLE_RANDOM, TITLE_WITH_STOP

    for title in (TITLE_RANDOM, TITLE_WITH_STOP):
        assert max(len(line) for line in title.split("\n")) <= len(TITLE), title
