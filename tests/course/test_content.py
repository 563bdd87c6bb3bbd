"""Lesson files: every spec parses, every expected answer matches the model, bad specs are named."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.course.catalog import lab_kinds
from app.course.content import CONTENT_DIR, Exercise, SpecError, load_lessons, parse_lesson
from app.course.exercise import model_reading
from app.course.spec import unit_after
from app.course.variants import run_steps
from labs.timed import format_number
from tests.course.slips import mib_taken_as_mb

LESSONS = load_lessons(CONTENT_DIR)
EXERCISES = [(lesson, exercise) for lesson in LESSONS for exercise in lesson.exercises]


def played(exercise: Exercise):
    """A fresh model of the exercise's lab with the exercise's steps done: what the lab shows at the verdict."""
    return run_steps(exercise)


def run_as_written(exercise: Exercise) -> float:
    """Do the exercise's steps on a fresh model and read the quantity the feedback uses."""
    return model_reading(played(exercise), exercise)


def test_the_course_has_three_lessons_in_order():
    assert [lesson.slug for lesson in LESSONS] == ["overlap", "buckets", "hidden"]
    assert [lesson.lab for lesson in LESSONS] == ["queue", "queue", "roofline"]


def test_every_seed_exercise_is_there():
    ids = {(lesson.slug, exercise.id) for lesson, exercise in EXERCISES}
    assert {("overlap", "growth"), ("overlap", "drain")} <= ids
    assert {("buckets", "edit-keeps-time")} <= ids
    assert {("hidden", "memory-bound"), ("hidden", "compute-roof")} <= ids


@pytest.mark.parametrize(("lesson", "exercise"), EXERCISES, ids=[f"{lesson.slug}/{e.id}" for lesson, e in EXERCISES])
def test_expected_answer_is_what_the_model_shows(lesson, exercise):
    assert run_as_written(exercise) == pytest.approx(exercise.answer, abs=exercise.tolerance + 1e-9)


def test_seed_numbers():
    answers = {(lesson.slug, e.id): e.answer for lesson, e in EXERCISES}
    assert answers[("overlap", "growth")] == 1
    assert answers[("overlap", "drain")] == 4
    assert answers[("buckets", "edit-keeps-time")] == 6
    assert answers[("hidden", "memory-bound")] == 800
    assert answers[("hidden", "compute-roof")] == 1000


def test_exercises_that_need_the_model():
    """Beyond the seeds: answers that take the formula, not one subtraction of the prompt's numbers."""
    answers = {(lesson.slug, e.id): e.answer for lesson, e in EXERCISES}
    assert answers[("buckets", "exposed-tail")] == 8  # 5 + 9 / 3, arrivals stop at 5
    assert answers[("hidden", "roofline-slowdown-on-the-timeline")] == 2.55  # 7 of 8 all-reduces × 1.47 × (1 − 1/1.33)
    # the last issue (2 + 8g: the host falls behind its gaps), not 16 + g nor the step's end
    assert answers[("overlap", "host-timer")] == 22
    assert answers[("hidden", "two-knobs")] == 2.47  # one knob undone: the gap before the last 8 MiB all-reduce


def test_the_tail_exercise_uses_the_stop_time():
    lesson = next(lesson for lesson in LESSONS if lesson.slug == "buckets")
    exercise = lesson.exercise("exposed-tail")
    assert any(step.kind == "set" and step.control == "arrivals_stop" and step.value == 5 for step in exercise.steps)
    assert exercise.quantity == "drain_time"


GOOD = """---
title: A test lesson
lab: queue
summary: One line.
---

Some text.

```exercise
id: growth
title: Growth
steps:
  - reset
  - set: {arrival_rate: 4}
  - set: {service_rate: 3}
  - predict
  - run: {until: 2}
prediction:
  prompt: How fast?
  quantity: net_rate
  unit: units/s
answer: 1
tolerance: 0.05
explanation: Because.
```

More text.
"""


def write(tmp_path: Path, text: str, name: str = "01-test.md") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_good_spec_parses(tmp_path):
    lesson = parse_lesson(write(tmp_path, GOOD))
    assert lesson.slug == "test"
    assert [type(part).__name__ for part in lesson.parts] == ["str", "Exercise", "str"]
    (exercise,) = lesson.exercises
    assert [step.kind for step in exercise.steps] == ["reset", "set", "set", "predict", "run"]
    assert exercise.steps[1].control == "arrival_rate" and exercise.steps[1].value == 4


@pytest.mark.parametrize(
    ("old", "new", "field", "words"),
    [
        ("answer: 1\n", "", "answer", "missing"),
        ("answer: 1\n", "answer: one\n", "answer", "must be a number"),
        ("answer: 1\n", "answer: .nan\n", "answer", "finite"),
        ("tolerance: 0.05\n", "tolerance: -1\n", "tolerance", "0 or more"),
        ("  - set: {arrival_rate: 4}\n", "  - set: {arrival: 4}\n", "steps[1]", "unknown control 'arrival'"),
        ("  - set: {arrival_rate: 4}\n", "  - set: {arrival_rate: -4}\n", "steps[1].set.arrival_rate", "cannot be -4"),
        ("  - set: {arrival_rate: 4}\n", "  - set: {arrival_rate: fast}\n", "steps[1].set.arrival_rate", "number"),
        ("  - predict\n", "", "steps", "exactly one 'predict'"),
        ("  - run: {until: 2}\n", "  - jump\n", "steps[4]", "unknown step"),
        ("  quantity: net_rate\n", "  quantity: speed\n", "prediction.quantity", "unknown quantity 'speed'"),
        ("  unit: units/s\n", "", "prediction.unit", "missing"),
        ("explanation: Because.\n", "explanation: Because.\nhint: x\n", "hint", "unknown field"),
        ("title: Growth\n", "title: Growth\nlab: warp\n", "lab", "unknown lab 'warp'"),
        ("  unit: units/s\n", "  unit: units/s\n  at: 2\n", "prediction.at", "'net_rate' cannot be read at a time"),
    ],
)
def test_a_bad_exercise_is_named_with_its_file_exercise_and_field(tmp_path, old, new, field, words):
    assert old in GOOD
    path = write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(SpecError) as error:
        parse_lesson(path)
    message = str(error.value)
    assert message.startswith("01-test.md, exercise 'growth'"), message
    assert f"field '{field}'" in message, message
    assert words in message, message


def test_predict_after_run_is_refused(tmp_path):
    text = GOOD.replace("  - predict\n  - run: {until: 2}\n", "  - run: {until: 2}\n  - predict\n")
    with pytest.raises(SpecError, match="'predict' must come before"):
        parse_lesson(write(tmp_path, text))


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ("lab: queue\n", "lab: warp\n", "field 'lab': unknown lab 'warp'"),
        ("summary: One line.\n", "", "field 'summary': is missing"),
        ("---\ntitle", "title", "needs front matter"),
        ("id: growth\n", "id: Growth Two\n", "field 'id'"),
        ("id: growth\n", "id: growth\n  - : [\n", "not valid YAML"),
    ],
)
def test_a_bad_lesson_is_named(tmp_path, old, new, words):
    with pytest.raises(SpecError) as error:
        parse_lesson(write(tmp_path, GOOD.replace(old, new, 1)))
    assert str(error.value).startswith("01-test.md") and words in str(error.value)


def test_duplicate_exercise_ids_are_refused(tmp_path):
    block = GOOD[GOOD.index("```exercise") : GOOD.index("More text.")]
    with pytest.raises(SpecError, match="exercise 'growth', field 'id': is used twice"):
        parse_lesson(write(tmp_path, GOOD + block))


def test_server_refuses_to_start_on_a_bad_spec(tmp_path):
    import subprocess
    import sys

    write(tmp_path, GOOD.replace("answer: 1\n", "answer: lots\n"))
    result = subprocess.run(
        [sys.executable, "-m", "app", "--port", "0"],
        env={"OVERLAP_CONTENT_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert result.returncode != 0
    assert "01-test.md, exercise 'growth', field 'answer': must be a number" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("lesson", "exercise"), EXERCISES, ids=[f"{lesson.slug}/{e.id}" for lesson, e in EXERCISES])
def test_each_common_mistake_is_a_different_number_from_what_the_lab_shows(lesson, exercise):
    shown = run_as_written(exercise)
    for slip in exercise.mistakes:
        assert abs(slip.answer - shown) > exercise.tolerance, (slip.answer, shown)
        assert exercise.mistake_for(slip.answer) == slip and exercise.mistake_for(exercise.answer) is None


def test_what_breaks_the_overlap_is_predicted_not_just_read():
    """Lessons issue: each way of breaking the ideal schedule has an exercise that names a wrong reasoning."""
    timeline = {e.id: e for _, e in EXERCISES if e.lab == "timeline"}
    controls = {step.control for e in timeline.values() for step in e.steps if step.kind == "set"}
    assert {
        "compute_slowdown",
        "comm_slowdown",
        "launch_gap",
        "missing_event",
        "optimizer_waits",
        "sync_each",
    } <= controls
    assert {"skipped_layer", "iteration", "straggler", "latency"} <= controls
    breaking = [e for e in timeline.values() if controls & {s.control for s in e.steps if s.kind == "set"}]
    assert sum(1 for e in breaking if e.mistakes) >= 10
    latency = timeline["latency-and-small-buckets"]
    assert any(s.kind == "set" and s.control == "latency" and s.value > 0 for s in latency.steps)


TIMELINE = (
    GOOD.replace("title: Growth\n", "title: Growth\nlab: timeline\n")
    .replace(
        "  - set: {arrival_rate: 4}\n  - set: {service_rate: 3}\n",
        "  - set: {bucket_cap: 8}\n  - set: {missing_event: 7}\n",
    )
    .replace("quantity: net_rate", "quantity: read_early_count")
    .replace("answer: 1\n", "answer: 1\nmistakes:\n  - answer: 2\n    reasoning: Two.\n")
)


def test_a_choice_is_checked_against_the_lab_as_the_steps_leave_it(tmp_path):
    (exercise,) = parse_lesson(write(tmp_path, TIMELINE)).exercises
    assert exercise.steps[2].value == 7 and exercise.mistakes[0].answer == 2  # 8 buckets once the cap is 8
    with pytest.raises(SpecError, match=r"field 'steps\[2\].set.missing_event': Missing event: there is no bucket 7"):
        parse_lesson(write(tmp_path, TIMELINE.replace("  - set: {bucket_cap: 8}\n", "  - set: {bucket_cap: 25}\n")))
    switched = TIMELINE.replace("  - set: {missing_event: 7}\n", "  - set: {sync_each: true}\n")
    assert parse_lesson(write(tmp_path, switched)).exercises[0].steps[2].value is True
    with pytest.raises(SpecError, match="neither on nor off"):
        parse_lesson(write(tmp_path, switched.replace("sync_each: true", "sync_each: sometimes")))


@pytest.mark.parametrize(
    ("mistakes", "words"),
    [
        ("mistakes: 2\n", "must be a list"),
        ("mistakes:\n  - answer: 2\n", "needs exactly 'answer' and 'reasoning'"),
        ("mistakes:\n  - answer: 1.01\n    reasoning: Close.\n", "within the tolerance"),
        ("mistakes:\n  - answer: two\n    reasoning: Two.\n", "must be a number"),
    ],
)
def test_a_bad_mistake_is_named(tmp_path, mistakes, words):
    with pytest.raises(SpecError, match="field 'mistakes") as error:
        parse_lesson(write(tmp_path, GOOD.replace("answer: 1\n", "answer: 1\n" + mistakes)))
    assert words in str(error.value)


CHOICE = (
    GOOD.replace("title: Growth\n", "title: Growth\nlab: timeline\n")
    .replace("  - set: {arrival_rate: 4}\n  - set: {service_rate: 3}\n", "  - set: {optimizer_waits: false}\n")
    .replace("  - run: {until: 2}\n", "  - run: {until: end}\n")
    .replace("  quantity: net_rate\n  unit: units/s\n", "  quantity: result\n  choices: [valid, invalid]\n")
    .replace("answer: 1\ntolerance: 0.05\n", "answer: invalid\nmistakes:\n  - answer: valid\n    reasoning: Sums.\n")
)


def test_a_choice_exercise_parses_to_indices_and_is_judged_against_the_model(tmp_path):
    (exercise,) = parse_lesson(write(tmp_path, CHOICE)).exercises
    assert exercise.choices == ("valid", "invalid") and exercise.unit == "" and exercise.tolerance == 0
    assert exercise.answer == 1 and exercise.mistakes[0].answer == 0
    assert exercise.choice_text(exercise.answer) == "invalid"
    assert run_as_written(exercise) == 1  # the model shows "invalid": the optimizer read unreduced gradients
    assert exercise.mistake_for(0).reasoning == "Sums." and exercise.mistake_for(1) is None


@pytest.mark.parametrize(
    ("old", "new", "field", "words"),
    [
        ("answer: invalid\n", "answer: broken\n", "answer", "'broken' is not among the choices (valid, invalid)"),
        ("answer: invalid\n", "answer: 1\n", "answer", "1 is not among the choices"),
        ("choices: [valid, invalid]", "choices: [valid]", "prediction.choices", "two or more"),
        ("choices: [valid, invalid]", "choices: [valid, valid]", "prediction.choices", "twice"),
        ("choices: [valid, invalid]", "choices: [valid, invalid, odd]", "prediction.choices", "'odd' is not something"),
        ("  - answer: valid\n", "  - answer: invalid\n", "mistakes[0]", "is the answer, not a mistake"),
        ("  - answer: valid\n", "  - answer: maybe\n", "mistakes[0].answer", "not among the choices"),
        ("  quantity: result\n", "  quantity: step_time\n", "prediction.choices", "is a number: drop choices"),
        ("  choices: [valid, invalid]\n", "  unit: ms\n", "prediction.choices", "asked as a choice"),
        ("answer: invalid\n", "answer: invalid\ntolerance: 0.5\n", "prediction.unit", "no unit and no tolerance"),
        ("  quantity: result\n", "  quantity: result\n  at: 2\n", "prediction.at", "cannot be read at a time"),
        ("  quantity: result\n", "  quantity: result\n  hint: x\n", "prediction.hint", "unknown field"),
    ],
)
def test_a_bad_choice_exercise_is_refused_at_start_up(tmp_path, old, new, field, words):
    assert old in CHOICE
    with pytest.raises(SpecError) as error:
        parse_lesson(write(tmp_path, CHOICE.replace(old, new, 1)))
    message = str(error.value)
    assert f"field '{field}'" in message and words in message, message


def test_at_least_three_exercises_are_choices_and_each_offers_what_the_lab_can_show():
    chosen = [e for _, e in EXERCISES if e.choices]
    assert len(chosen) >= 3
    assert len({e.lab for e in chosen}) >= 2
    for exercise in chosen:
        readings = lab_kinds()[exercise.lab].choices[exercise.quantity]
        assert set(exercise.choices) <= set(readings)
        assert exercise.mistakes, f"{exercise.id}: a choice exercise names why each wrong choice is tempting"


# ----- Every exercise answerable from what came before, nothing given away (issue 34) -------------

COST_RULE = re.compile(r"2\(p − 1\)/p\s*·\s*(S|n)\s*/\s*B")
"""The ring all-reduce's payload cost as the lessons write it: 2(p − 1)/p · S / B_net."""


def text_before(lesson, exercise) -> str:
    """The lesson's prose above ``exercise`` (the exercises above it excluded)."""
    index = lesson.parts.index(exercise)
    return "\n".join(part for part in lesson.parts[:index] if isinstance(part, str))


TIMELINE_COUNTS = lab_kinds()["timeline"].counts
TIMELINE_CASES = [(lesson, e) for lesson, e in EXERCISES if e.lab == "timeline"]


@pytest.mark.parametrize(
    ("lesson", "exercise"), TIMELINE_CASES, ids=[f"{lesson.slug}/{e.id}" for lesson, e in TIMELINE_CASES]
)
def test_the_cost_rule_is_stated_before_every_timeline_exercise(lesson, exercise):
    """A timeline answer takes each all-reduce's time: the lesson states how to work it before asking."""
    assert COST_RULE.search(text_before(lesson, exercise)), f"{lesson.slug}: no cost rule before {exercise.id}"


def what_a_student_has_read(lesson, exercise) -> str:
    """Everything shown before ``exercise`` is locked: earlier lessons whole, this one's prose above it,
    and every earlier exercise's prompt, steps, explanation and mistakes (feedback shown once done)."""
    shown = []
    for earlier in LESSONS:
        for part in earlier.parts:
            if part is exercise:
                return "\n".join(shown)
            if isinstance(part, str):
                shown.append(part)
            else:
                shown += [part.prompt, part.explanation, *(m.reasoning for m in part.mistakes)]
    raise AssertionError("not found")


def written_forms(value: float, places: int) -> list[str]:
    """How a text would print ``value`` at the precision an exercise reads it (``4.40`` and ``4.4``
    at two places), kept if it has a decimal point or three digits or more: a bare 4 or 16 is in
    every paragraph and says nothing about which quantity it is."""
    fixed = f"{value:.{places}f}"
    forms = {fixed, f"{float(fixed):g}"}
    return sorted(form for form in forms if "." in form or len(form.lstrip("-")) >= 3)


def printed(form: str, text: str) -> bool:
    """Whether ``text`` prints the number ``form`` on its own (not as part of 14.40 or 4.401, nor 4.4 in 4.40)."""
    return re.search(rf"(?<![\d.,]){re.escape(form)}(?![\d]|[.,]\d)", text) is not None


def places_in(exercise) -> int:
    """The decimals an exercise reads its answer to: as many as its answer or its tolerance has
    (4.40 read to 0.06 is read to two places; 800 read to 1, to none)."""

    def decimals(x: float) -> int:
        written = f"{x:g}"
        return len(written.split(".")[1]) if "." in written and "e" not in written else 0

    return max(decimals(exercise.answer), decimals(exercise.tolerance))


def giveaway_figures(exercise) -> list[tuple[str, list[str]]]:
    """Figures from which the answer follows in one step, each with the ways a text would print it.

    The answer itself, and for some quantities the figure it is one subtraction or one comparison
    away from, computed from the lab's own model as the exercise leaves it:

    - ``exposed`` and ``step_time`` are one subtraction apart when backward still ends where it
      ends after Reset (16 ms on the default model, a figure every lesson prints): a text printing
      the step gives the tail away, and the other way round (lesson 1 printed the 27.74 ms
      no-overlap step, and 27.74 − 16 was "Everything in one bucket"'s answer);
    - ``cost_share`` is decided by the bucket size against the crossover p·α·B_net, and by the
      latency term 2(p − 1)·α: a text that works either out for the exercise's own network decides
      it (lesson 2 worked the crossover of the latency-or-payload exercise in its cost model).
    """
    if exercise.choices and exercise.quantity != "cost_share":
        return []
    model = played(exercise)
    figures = []
    if not exercise.choices:
        figures.append(("the answer", written_forms(exercise.answer, places_in(exercise))))
    if exercise.quantity in {"exposed", "step_time"}:
        reset = lab_kinds()[exercise.lab].model()
        if abs(model.backward_end - reset.backward_end) < 1e-9:
            other = "step_time" if exercise.quantity == "exposed" else "exposed"
            value = model.reading(other)
            figures.append((other, written_forms(value, places_in(exercise))))
    if exercise.quantity == "cost_share":
        crossover = model.ranks * model.latency * 1e-6 * model.bandwidth * 1e9  # bytes
        latency_ms = 2 * (model.ranks - 1) * model.latency / 1000
        mantissa = crossover / 1e6
        figures.append(
            (
                "the crossover p·α·B_net",
                [f"{crossover / 2**20:.1f} MiB", f"{mantissa:g} × 10⁶", f"{crossover:,.0f}"],
            )
        )
        figures.append(("the latency term 2(p − 1)·α", [f"{latency_ms:g} ms", f"{latency_ms * 1000:g} µs"]))
    return figures


ALLOWED = {
    ("hidden", "compute-roof", "1000"): "the answer is the device's compute roof P, which the lab shows and "
    "the lesson has to state (the source text's own exercise: predict the fixed 1000 GFLOP/s roof)",
}
"""Figures that legitimately occur before an exercise, keyed by (lesson, exercise, form), with the reason."""


@pytest.mark.parametrize(("lesson", "exercise"), EXERCISES, ids=[f"{lesson.slug}/{e.id}" for lesson, e in EXERCISES])
def test_no_text_before_an_exercise_prints_its_answer(lesson, exercise):
    """Nothing a student has read before locking prints the answer, or the figure it is one step from.

    Lesson 1's feedback once printed 4.40 and 27.74 ms before lesson 2 asked for them, and lesson 2's
    cost model worked out the very crossover "Latency or bytes?" asks about; none may now.
    """
    read = what_a_student_has_read(lesson, exercise)
    for what, forms in giveaway_figures(exercise):
        for form in forms:
            if (lesson.slug, exercise.id, form) in ALLOWED:
                continue
            assert not printed(form, read), f"{exercise.id}: {what} ({form}) is printed before it"
    if not exercise.choices:
        stated = rf"(?<![\d.]){re.escape(format_number(exercise.answer))} ?{re.escape(exercise.unit)}"
        assert not re.search(stated, exercise.prompt), (exercise.id, "the prompt states the answer")


def test_every_allowance_is_still_needed():
    """An allowance names a figure that is printed before its exercise and is one of its giveaway figures."""
    exercises = {(lesson.slug, exercise.id): (lesson, exercise) for lesson, exercise in EXERCISES}
    for (slug, exercise_id, form), reason in ALLOWED.items():
        lesson, exercise = exercises[(slug, exercise_id)]
        assert any(form in forms for _, forms in giveaway_figures(exercise)), (exercise_id, form)
        assert printed(form, what_a_student_has_read(lesson, exercise)), (exercise_id, form, "no longer printed")
        assert reason


DECIDING_CLAIMS = {
    "longer_tail_rank": [
        (r"all the late rank itself sees", "that the late rank's tail is the transfer alone"),
        (r"exposed time on the late rank", "what the late rank's own file shows"),
        (r"waiting happens inside the call", "where the early rank's wait shows up in its file"),
    ],
}
"""Sentences that decide a choice exercise by themselves, keyed by the quantity it asks about: each
once stood before "A late rank in a real trace" (in "Waiting for a late rank"'s feedback and in the
paragraph introducing the sample trace), and none may return."""


@pytest.mark.parametrize(("lesson", "exercise"), EXERCISES, ids=[f"{lesson.slug}/{e.id}" for lesson, e in EXERCISES])
def test_no_text_before_a_choice_states_what_decides_it(lesson, exercise):
    read = what_a_student_has_read(lesson, exercise)
    for pattern, what in DECIDING_CLAIMS.get(exercise.quantity, []):
        assert not re.search(pattern, read), f"{exercise.id}: the text before it states {what}"


def test_the_lab_as_it_loads_does_not_show_an_answer():
    """The queue lab opens at λ = 1, μ = 2 with its M/M/1 panel showing L: no exercise that the M/M/1
    figures answer may ask for a value within its tolerance of that L (it once asked for 0.91 ± 0.35
    while the panel read "L = 1.00")."""
    from labs.queue.text import RANDOM_HIDES_MM1

    shown = lab_kinds()["queue"].model().mm1.L
    for _, exercise in EXERCISES:
        if exercise.lab == "queue" and exercise.quantity in RANDOM_HIDES_MM1:
            assert abs(shown - exercise.answer) > exercise.tolerance, (exercise.id, shown)


def settings_of(exercise) -> tuple:
    return tuple(sorted((s.control, str(s.value)) for s in exercise.steps if s.kind == "set"))


def test_no_two_exercises_share_lab_settings_and_quantity():
    seen: dict[tuple, str] = {}
    for lesson, exercise in EXERCISES:
        key = (exercise.lab, settings_of(exercise), exercise.quantity, exercise.at)
        assert key not in seen, f"{lesson.slug}/{exercise.id} repeats {seen[key]}"
        seen[key] = f"{lesson.slug}/{exercise.id}"


def test_the_queue_lab_has_the_two_seed_runs_and_at_most_three_more():
    """At most five fluid-queue exercises: each is q0 + (λ − μ)·t worked again with other numbers.

    The limit is on recomputing that one formula, so it counts the exercises on the fluid queue
    only; an exercise that switches the random queue on (``set: {random_queue: true}``) asks
    about another model (the M/M/1 queue's run) and is not counted.
    """
    queue = [e for _, e in EXERCISES if e.lab == "queue"]
    fluid = [e for e in queue if not any(s.kind == "set" and s.control == "random_queue" and s.value for s in e.steps)]
    assert len(fluid) <= 5, [e.id for e in fluid]
    assert len(fluid) < len(queue)  # the random queue's exercises are there, and not counted
    runs = {(settings_of(e), e.quantity) for e in queue}
    assert ((("arrival_rate", "4.0"), ("service_rate", "3.0")), "net_rate") in runs  # growth from 4 at λ=4, μ=3
    assert ((("arrival_rate", "2.0"), ("service_rate", "3.0")), "drain_time") in runs  # drained at t = 4


@pytest.mark.parametrize(("lesson", "exercise"), EXERCISES, ids=[f"{lesson.slug}/{e.id}" for lesson, e in EXERCISES])
def test_every_exercise_names_its_typical_mistakes_and_long_answers_allow_one_percent(lesson, exercise):
    assert exercise.mistakes, f"{exercise.id} names no typical mistake"
    measured = exercise.lab == "timeline" and not exercise.choices and exercise.quantity not in TIMELINE_COUNTS
    if measured and exercise.answer > 5:
        # 1% of a long schedule, unless the MiB-taken-as-MB slip is nearer than 2%: then the tolerance is
        # narrowed so the slip is not judged right (tests/course/test_variant_quality.py), but never under 0.25%
        slip = abs(mib_taken_as_mb(exercise) - exercise.answer)
        floor = 0.01 if slip > 0.02 * exercise.answer else 0.0025
        assert exercise.tolerance >= floor * exercise.answer - 1e-9, (exercise.id, exercise.tolerance)


@pytest.mark.parametrize(("lesson", "exercise"), EXERCISES, ids=[f"{lesson.slug}/{e.id}" for lesson, e in EXERCISES])
def test_an_explicit_bucket_cap_caps_the_first_bucket_too(lesson, exercise):
    """DDP with bucket_cap_mb given uses it for the first bucket as well; 1 MiB first only with the default 25."""
    caps = dict((s.control, s.value) for s in exercise.steps if s.kind == "set" and "cap" in (s.control or ""))
    model = lab_kinds()["timeline"].model()
    cap = caps.get("bucket_cap", model.bucket_cap)
    first = caps.get("first_bucket_cap", model.first_bucket_cap)
    assert cap == 25 or first == cap, (exercise.id, caps)


@pytest.mark.parametrize(
    ("number", "unit", "reads"),
    [
        ("1", "work units per second", "1 work unit per second"),
        ("-1", "work units per second", "-1 work unit per second"),
        ("−1", "jobs", "−1 job"),
        ("1.00", "work units per second", "1.00 work units per second"),
        ("4", "work units", "4 work units"),
        ("1", "ms", "1 ms"),
        ("1", "s", "1 s"),
        ("1", "GFLOP/s", "1 GFLOP/s"),
        ("1", "", "1"),
    ],
)
def test_a_unit_reads_in_the_singular_after_exactly_one(number, unit, reads):
    assert f"{number} {unit_after(number, unit)}".rstrip() == reads
