"""docs/architecture.md's "Adding a step kind" and "Adding a prediction kind", followed: each toy kind is
registered here, used by a spec parsed here, exercised without a browser beside a real queue lab, and
taken out again."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from app.course.catalog import lab_kinds
from app.course.content import SpecError, parse_exercise
from app.course.exercise import ExerciseRunner, ExerciseSession
from app.course.kinds import (
    PREDICTION_KINDS,
    STEP_KINDS,
    Place,
    PredictionKind,
    StepFacts,
    StepKind,
    register_prediction_kind,
    register_step_kind,
    unregister_prediction_kind,
    unregister_step_kind,
)
from app.course.kinds.fields import number, text
from app.course.progress import ProgressStore
from app.course.spec import Step
from app.course.variants import run_steps
from labs.queue.view import QueueLab
from labs.timed import format_number
from tests.headless import field, send

PATH = Path("toy.md")


class RaiseStep(StepKind):
    """``raise: {control: value}``: raise a number control to at least ``value`` (any value above will do)."""

    name = "raise"
    syntax = "raise: {control: value}"
    bare = False

    def parse(self, body, lab, place: Place, where: str) -> Step:
        """One number control of the lab and the least value it must reach."""
        if not isinstance(body, dict) or len(body) != 1:
            raise place.error("'raise' takes one control: {name: value}", where)
        ((control, value),) = body.items()
        if control not in lab.controls:
            raise place.error(f"unknown control {control!r}", where)
        return Step(kind=self.name, control=control, value=number(place.path, place.exercise, where, value))

    def rehearse(self, step: Step, model, place: Place, where: str) -> Step:
        """Refused unless the control is a number the lab takes at this value."""
        if isinstance(getattr(model, step.control), bool | str):
            raise place.error(f"{step.control!r} is not a number to raise", where)
        model.apply(step.control, step.value)
        return step

    def play(self, step: Step, model) -> None:
        """A student raises it exactly to the value."""
        model.apply(step.control, step.value)

    def done(self, step: Step, facts: StepFacts) -> bool:
        """Done once the control is at the value or above."""
        return getattr(facts.model, step.control) >= step.value - 1e-9

    def describe(self, step: Step, model_class: type, prediction: PredictionKind) -> str:
        """Raise Arrival rate λ to 5 or more."""
        label = model_class.param[step.control].label
        return f"Raise {label} to {format_number(step.value)} or more"

    def spotlight(self, step: Step) -> str | None:
        """The control to raise."""
        return step.control


class WholePrediction(PredictionKind):
    """``prediction: {whole: true, unit: …}``: a count of things, typed as a whole number, judged exactly."""

    name = "whole"
    fields = frozenset({"whole"})
    required = ("unit",)
    noun = "count"

    def claims(self, prediction) -> bool:
        """Asked for by ``whole: true``."""
        return prediction.get("whole") is True

    def parse(self, data, prediction, quantity, lab, place: Place):
        """A whole answer, no tolerance, the unit."""
        answer = number(place.path, place.exercise, "answer", data["answer"])
        if not answer.is_integer():
            raise place.error("must be a whole number", "answer")
        return answer, 0.0, text(place.path, place.exercise, "prediction.unit", prediction["unit"]), ()

    def mistake(self, raw, ruled, answer, place: Place, where: str) -> float:
        """A whole number other than the answer."""
        wrong = number(place.path, place.exercise, f"{where}.answer", raw)
        if wrong == answer[0] or not wrong.is_integer():
            raise place.error("must be another whole number", where)
        return wrong

    def lock(self, typed: object, exercise, counted) -> float | str:
        """Digits only."""
        if not isinstance(typed, str) or not typed.strip().isdigit():
            return f"Your prediction: type a whole number of {exercise.unit}, like 3."
        return float(int(typed))

    def amount_html(self, exercise, value: float, exact: bool, counted) -> str:
        """``6 work units``."""
        return f"{round(value)} {html.escape(exercise.unit)}"


RAISE_SPEC = """
id: toy-raise
title: A faster arrival
steps:
  - reset
  - set: {service_rate: 3}
  - predict
  - run: {until: 2}
  - raise: {arrival_rate: %s}
prediction:
  prompt: What backlog will the lab show then?
  quantity: backlog
  unit: work units
answer: %s
tolerance: 0.05
explanation: The line gains the difference of the rates every second.
"""

WHOLE_SPEC = """
id: toy-whole
title: A whole backlog
steps:
  - reset
  - set: {arrival_rate: 4}
  - set: {service_rate: 3}
  - predict
  - run: {until: 2}
prediction:
  prompt: What backlog will the lab show then?
  quantity: backlog
  unit: work units
  whole: true
answer: 6
explanation: The line gains the difference of the rates every second.
"""


@pytest.fixture
def raise_kind():
    kind = register_step_kind(RaiseStep())
    yield kind
    unregister_step_kind(kind.name)


@pytest.fixture
def whole_kind():
    kind = register_prediction_kind(WholePrediction())
    yield kind
    unregister_prediction_kind(kind.name)


def runner_beside(exercise) -> tuple[QueueLab, ExerciseRunner]:
    lab = QueueLab()
    runner = ExerciseRunner(
        lab=lab, session=ExerciseSession(), progress=ProgressStore(), exercise=exercise, lesson_slug="toy"
    )
    return lab, runner


def words(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def test_a_step_kind_added_as_the_guide_says_is_parsed_checked_said_gated_and_ticked(raise_kind):
    kinds = lab_kinds()
    written = parse_exercise(PATH, RAISE_SPEC % (5, 0), "queue", kinds)
    assert [step.kind for step in written.steps] == ["reset", "set", "predict", "run", "raise"]
    answer = run_steps(written).reading("backlog", None)  # the kind's play() works the answer out
    exercise = parse_exercise(PATH, RAISE_SPEC % (5, answer), "queue", kinds)
    with pytest.raises(SpecError, match=r"'raise' takes one control"):
        parse_exercise(PATH, RAISE_SPEC.replace("raise: {arrival_rate: %s}", "raise: 5") % answer, "queue", kinds)
    lab, runner = runner_beside(exercise)
    runner.start()
    assert "Raise Arrival rate λ to 5 or more" in words(runner.card.steps_html)  # the card says it
    send(lab, "reset")
    field(lab, "service_rate").input.value = "3"
    runner.card.receive({"action": "lock", "text": format_number(answer)})
    send(lab, "step")
    send(lab, "step")
    assert runner.current == 4 and not runner.finished and not lab.transport.allowed  # the gate waits for it
    assert "next step: Raise Arrival rate λ to 5 or more" in lab.transport.reason  # and says what for
    assert "Raise Arrival rate λ to 5 or more (next)" in words(runner.card.steps_html)
    field(lab, "arrival_rate").input.value = "4"
    assert runner.current == 4 and not runner.finished  # below the value: not done
    field(lab, "arrival_rate").input.value = "5"
    assert runner.finished and runner.correct  # done once the model has it
    assert words(runner.card.feedback_html).startswith("Correct")


def test_a_step_kind_taken_out_is_an_unknown_step_again(raise_kind):
    unregister_step_kind(raise_kind.name)
    try:
        with pytest.raises(SpecError, match=r"unknown step \{'raise'.*use reset, predict, set: .* or run: "):
            parse_exercise(PATH, RAISE_SPEC % (5, 1), "queue", lab_kinds())
    finally:
        register_step_kind(raise_kind)
    assert "raise" in STEP_KINDS


def test_a_step_kind_checks_itself_on_the_model_as_the_steps_before_leave_it(raise_kind):
    with pytest.raises(SpecError, match=r"unknown control 'speed'"):
        parse_exercise(PATH, RAISE_SPEC.replace("arrival_rate", "speed") % (5, 1), "queue", lab_kinds())


def test_a_prediction_kind_added_as_the_guide_says_locks_judges_and_says_its_own_way(whole_kind):
    exercise = parse_exercise(PATH, WHOLE_SPEC, "queue", lab_kinds())
    assert exercise.prediction_kind == "whole" and exercise.tolerance == 0
    with pytest.raises(SpecError, match=r"field 'answer': must be a whole number"):
        parse_exercise(PATH, WHOLE_SPEC.replace("answer: 6", "answer: 6.5"), "queue", lab_kinds())
    lab, runner = runner_beside(exercise)
    runner.start()
    send(lab, "reset")
    field(lab, "arrival_rate").input.value = "4"
    field(lab, "service_rate").input.value = "3"
    runner.card.receive({"action": "lock", "text": "6.0"})
    assert not runner.locked and "type a whole number of work units" in runner.notice  # the kind refuses it
    runner.card.receive({"action": "lock", "text": "6"})
    assert runner.locked and runner.card.prediction == "6"
    send(lab, "step")
    send(lab, "step")
    assert words(runner.card.feedback_html) == "Correct: you predicted 6 work units, and the lab shows 6 work units."


def test_without_the_prediction_kind_its_field_is_unknown(whole_kind):
    unregister_prediction_kind(whole_kind.name)
    try:
        with pytest.raises(SpecError, match=r"field 'prediction.whole': unknown field"):
            parse_exercise(PATH, WHOLE_SPEC, "queue", lab_kinds())
    finally:
        register_prediction_kind(whole_kind)
    assert "whole" in PREDICTION_KINDS


def test_the_registries_hold_the_course_kinds_and_refuse_a_name_twice():
    assert list(STEP_KINDS) == ["reset", "predict", "set", "run"]
    assert list(PREDICTION_KINDS) == ["number", "choice"]
    with pytest.raises(ValueError, match="a name of its own"):
        register_step_kind(STEP_KINDS["run"])
