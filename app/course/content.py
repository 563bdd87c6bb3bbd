"""Read the lessons in ``content/``: Markdown text with front matter and exercise blocks.

A lesson file is ``NN-slug.md``. Front matter (between ``---`` lines) gives ``title``, ``lab`` and
``summary``. Each fenced block opened with three backticks and ``exercise`` holds one exercise in
YAML; ``content/README.md`` documents the fields. Every problem is reported as a
:class:`SpecError` naming the file, the exercise and the field.
"""

from __future__ import annotations

import itertools
import math
import os
import re
from dataclasses import replace
from pathlib import Path

import param
import yaml

from app.course import variants
from app.course.catalog import LabKind, lab_kinds
from app.course.spec import LABEL_MAX, Exercise, Lesson, Mistake, SpecError, Step
from app.course.variant_text import stray_numbers
from labs.timed import InvalidInput, format_number

CONTENT_DIR = Path(os.environ.get("OVERLAP_CONTENT_DIR", Path(__file__).resolve().parents[2] / "content"))

_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.DOTALL)
_EXERCISE_BLOCK = re.compile(r"^```exercise[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

__all__ = [
    "CONTENT_DIR",
    "Exercise",
    "Lesson",
    "Mistake",
    "SpecError",
    "Step",
    "load_lessons",
    "parse_exercise",
    "parse_lesson",
    "slug_of",
]


def _number(path: Path, exercise: str, name: str, raw: object) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise SpecError(path, f"must be a number, not {raw!r}", exercise, name)
    if not math.isfinite(raw):
        raise SpecError(path, f"must be a finite number, not {raw!r}", exercise, name)
    return float(raw)


def _text(path: Path, exercise: str | None, name: str, raw: object) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise SpecError(path, "must be non-empty text", exercise, name)
    return raw.strip()


def _checked(path: Path, exercise: str, steps: tuple[Step, ...], lab: LabKind) -> tuple[Step, ...]:
    """Do the steps on a fresh model, as a student would: each value must be one the lab takes then.

    A choice that depends on the steps before it (a bucket number once the caps are set) is checked
    against the lab as those steps leave it. Each value is kept as the model reads it.
    """
    model = lab.model()
    checked = []
    for index, step in enumerate(steps):
        if step.kind == "reset":
            model.reset()
        elif step.kind == "set":
            try:
                step = Step(kind="set", control=step.control, value=model.apply(step.control, step.value))
            except InvalidInput as refusal:
                raise SpecError(path, str(refusal), exercise, f"steps[{index}].set.{step.control}") from None
        checked.append(step)
    return tuple(checked)


def _choice(path: Path, exercise: str, name: str, raw: object, choices: tuple[str, ...]) -> float:
    """The index of the choice ``raw`` names; refused unless it is one of ``choices``, as written."""
    if not isinstance(raw, str) or raw not in choices:
        raise SpecError(path, f"{raw!r} is not among the choices ({', '.join(choices)})", exercise, name)
    return float(choices.index(raw))


def _choices(path: Path, exercise: str, raw: object, quantity: str, lab: LabKind) -> tuple[str, ...]:
    """A choice exercise's choices: two or more texts, each one the model can read for ``quantity``."""
    readings = lab.choices[quantity]
    if not isinstance(raw, list) or len(raw) < 2 or not all(isinstance(c, str) for c in raw):
        raise SpecError(path, "must be a list of two or more texts", exercise, "prediction.choices")
    if len(set(raw)) != len(raw):
        raise SpecError(path, "lists a choice twice", exercise, "prediction.choices")
    for choice in raw:
        if choice not in readings:
            raise SpecError(
                path,
                f"{choice!r} is not something the {lab.name} lab can show for {quantity!r}; "
                f"it shows one of: {', '.join(readings)}",
                exercise,
                "prediction.choices",
            )
    return tuple(raw)


def _mistakes(
    path: Path, exercise: str, raw: object, answer: float, tolerance: float, choices: tuple[str, ...] = ()
) -> tuple[Mistake, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise SpecError(path, "must be a list of {answer, label, reasoning}", exercise, "mistakes")
    found = []
    for index, item in enumerate(raw):
        where = f"mistakes[{index}]"
        if not isinstance(item, dict) or not {"answer", "reasoning"} <= set(item) <= _MISTAKE_FIELDS:
            raise SpecError(
                path,
                "needs exactly 'answer' and 'reasoning', and may have a 'label' and a 'rule' or 'as_if'",
                exercise,
                where,
            )
        rule, as_if = _rule(path, exercise, where, item)
        if choices and (rule or as_if):
            raise SpecError(path, "a choice's mistake has no rule", exercise, where)
        if choices:
            wrong = _choice(path, exercise, f"{where}.answer", item["answer"], choices)
            if wrong == answer:
                raise SpecError(path, f"{item['answer']!r} is the answer, not a mistake", exercise, where)
        else:
            wrong = _number(path, exercise, f"{where}.answer", item["answer"])
            if abs(wrong - answer) <= tolerance:
                raise SpecError(path, f"{format_number(wrong)} is within the tolerance of the answer", exercise, where)
        if any(m.answer == wrong for m in found):
            raise SpecError(path, "names the same wrong answer as an earlier mistake", exercise, where)
        label = _label(path, exercise, f"{where}.label", item["label"]) if "label" in item else ""
        if label and any(m.label == label for m in found):
            raise SpecError(path, "has the same label as an earlier mistake", exercise, f"{where}.label")
        reasoning = _text(path, exercise, f"{where}.reasoning", item["reasoning"])
        found.append(
            Mistake(answer=wrong, reasoning=reasoning, label=label, rule=rule, as_if=as_if, template=reasoning)
        )
    return tuple(found)


def _label(path: Path, exercise: str, name: str, raw: object) -> str:
    """A mistake's label: one line of text of at most LABEL_MAX characters."""
    label = _text(path, exercise, name, raw)
    if "\n" in label or len(label) > LABEL_MAX:
        words = f"must be one short phrase on one line, at most {LABEL_MAX} characters (not {len(label)})"
        raise SpecError(path, words, exercise, name)
    return label


_MISTAKE_FIELDS = {"answer", "reasoning", "label", "rule", "as_if"}


def _rule(path: Path, exercise: str, where: str, item: dict) -> tuple[str, tuple[tuple[str, str], ...]]:
    """A mistake's ``rule`` (an expression) or ``as_if`` ({control: expression}), as written."""
    if "rule" in item and "as_if" in item:
        raise SpecError(path, "give 'rule' or 'as_if', not both", exercise, where)
    if "rule" in item:
        raw = item["rule"]
        if isinstance(raw, bool) or not isinstance(raw, str | int | float):
            raise SpecError(path, "must be an expression, e.g. arrival_rate - service_rate", exercise, f"{where}.rule")
        return str(raw), ()
    if "as_if" in item:
        raw = item["as_if"]
        if not isinstance(raw, dict) or not raw or not all(isinstance(v, str | int | float) for v in raw.values()):
            raise SpecError(path, "must map controls to values, e.g. {arrival_rate: 0}", exercise, f"{where}.as_if")
        return "", tuple((str(control), str(value)) for control, value in raw.items())
    return "", ()


def _vary(path: Path, exercise: str, raw: object, steps: tuple[Step, ...]) -> tuple[tuple[tuple[str, float], ...], ...]:
    """``vary``: the other numbers the exercise may ask with, as combinations of its settings.

    Either a mapping of each varied control to a list of values (or ``{from, to, step}``), every
    combination of which is asked, or a list of mappings, each one combination (for settings that
    must move together, such as both bucket caps).
    """
    if raw is None:
        return ()
    numbers = {step.control for step in steps if step.kind == "set" and not isinstance(step.value, bool | str)}

    def values_of(control: object, values: object, where: str) -> tuple[float, ...]:
        if control not in numbers:
            raise SpecError(path, "varies only a number the exercise's steps set", exercise, where)
        if isinstance(values, dict) and set(values) == {"from", "to", "step"}:
            start, stop, step = (_number(path, exercise, f"{where}.{k}", values[k]) for k in ("from", "to", "step"))
            if step <= 0 or stop < start or (stop - start) / step > 50:
                raise SpecError(path, "needs from ≤ to and a step above 0 (at most 50 values)", exercise, where)
            values = [round(start + i * step, 10) for i in range(int(round((stop - start) / step)) + 1)]
        if not isinstance(values, list) or not values:
            values = [values]
        return tuple(_number(path, exercise, where, v) for v in values)

    if isinstance(raw, dict) and raw:
        lists = [(str(control), values_of(control, values, f"vary.{control}")) for control, values in raw.items()]
        combos = [
            tuple(sorted(zip([c for c, _ in lists], chosen, strict=True)))
            for chosen in itertools.product(*(v for _, v in lists))
        ]
    elif isinstance(raw, list) and raw and all(isinstance(item, dict) and item for item in raw):
        combos = []
        for index, item in enumerate(raw):
            where = f"vary[{index}]"
            if set(item) != set(raw[0]):
                raise SpecError(path, "every combination must name the same controls", exercise, where)
            combos.append(tuple(sorted((str(c), values_of(c, v, f"{where}.{c}")[0]) for c, v in item.items())))
    else:
        raise SpecError(path, "must map controls to lists of values, or list combinations of them", exercise, "vary")
    if len(combos) > 60:
        raise SpecError(path, f"gives {len(combos)} combinations; at most 60", exercise, "vary")
    return tuple(dict.fromkeys(combos))


def _with_numbers(path: Path, exercise: Exercise) -> Exercise:
    """Fill the exercise's templates, check its mistakes' rules, and check every variant it may ask.

    An exercise without placeholders, rules or ``vary`` is returned as it is (nothing runs).
    """
    needs_model = (
        exercise.vary
        or any(m.rule or m.as_if for m in exercise.mistakes)
        or any(
            "{" in text
            for text in (
                exercise.title,
                exercise.prompt,
                exercise.explanation,
                *(m.reasoning for m in exercise.mistakes),
            )
        )
    )
    if not needs_model:
        return exercise
    try:
        model = variants.run_steps(exercise)
        names = variants.names_of(exercise, model, exercise.answer)
        mistakes = []
        for index, mistake in enumerate(exercise.mistakes):
            if mistake.rule or mistake.as_if:
                ruled = variants.mistake_value(mistake, exercise, names)
                if abs(ruled - mistake.answer) > max(0.006, 0.005 * abs(mistake.answer), exercise.tolerance / 2):
                    raise SpecError(
                        path,
                        f"its rule gives {format_number(ruled)}, not the {format_number(mistake.answer)} written",
                        exercise.id,
                        f"mistakes[{index}]",
                    )
            elif exercise.vary:
                needs = "an exercise that varies needs a rule or as_if for each mistake"
                raise SpecError(path, needs, exercise.id, f"mistakes[{index}]")
            filled = variants.fill(mistake.template, {**names, "mistake": mistake.answer})
            mistakes.append(replace(mistake, reasoning=filled))
        exercise = replace(
            exercise,
            title=variants.fill(exercise.title, names),
            prompt=variants.fill(exercise.prompt, names),
            explanation=variants.fill(exercise.explanation, names),
            mistakes=tuple(mistakes),
        )
    except variants.RuleError as error:
        raise SpecError(path, str(error), exercise.id, "mistakes") from None
    for values in variants.combinations(exercise)[1:]:
        _check_variant(path, exercise, values)
    return exercise


def _check_variant(path: Path, exercise: Exercise, values: dict[str, float]) -> None:
    """One variant must be answerable, and each of its mistakes outside the tolerance and apart from the rest."""
    where = ", ".join(f"{control} = {format_number(value)}" for control, value in values.items())
    try:
        shown = variants.variant(exercise, values)
    except (InvalidInput, variants.RuleError, ValueError, ArithmeticError) as error:
        raise SpecError(path, f"with {where}: {error}", exercise.id, "vary") from None
    if not math.isfinite(shown.answer):
        raise SpecError(path, f"with {where} the lab shows no answer", exercise.id, "vary")
    for index, mistake in enumerate(shown.mistakes):
        if abs(mistake.answer - shown.answer) <= shown.tolerance:
            raise SpecError(
                path,
                f"with {where} this mistake gives {format_number(mistake.answer)}, within the tolerance of the "
                f"answer {format_number(shown.answer)}",
                exercise.id,
                f"mistakes[{index}]",
            )
        if any(abs(mistake.answer - other.answer) <= shown.tolerance for other in shown.mistakes[:index]):
            same = f"with {where} this mistake gives the same number as an earlier one"
            raise SpecError(path, same, exercise.id, f"mistakes[{index}]")


def _step(path: Path, exercise: str, index: int, raw: object, lab: LabKind) -> Step:
    where = f"steps[{index}]"
    if raw in ("reset", "predict"):
        return Step(kind=str(raw))
    if isinstance(raw, dict) and len(raw) == 1:
        ((kind, body),) = raw.items()
        if kind == "set":
            if not isinstance(body, dict) or len(body) != 1:
                raise SpecError(path, "'set' takes one control: {name: value}", exercise, where)
            ((control, value),) = body.items()
            if control not in lab.controls:
                raise SpecError(
                    path,
                    f"unknown control {control!r} for the {lab.name} lab; known: {', '.join(lab.controls)}",
                    exercise,
                    where,
                )
            if not isinstance(value, bool | str):  # on/off and choices as they are; the rest a number
                value = _number(path, exercise, f"{where}.set.{control}", value)
                if value.is_integer() and isinstance(lab.model.param[control], param.Integer):
                    value = int(value)  # a bucket or a layer by its number
            return Step(kind="set", control=control, value=value)
        if kind == "run":
            until = body.get("until") if isinstance(body, dict) else None
            if until == "end":
                return Step(kind="run", value=None)
            value = _number(path, exercise, f"{where}.run.until", until)
            if value <= 0:
                raise SpecError(path, "must be a time above 0 or 'end'", exercise, f"{where}.run.until")
            return Step(kind="run", value=value)
    raise SpecError(
        path,
        f"unknown step {raw!r}; use reset, predict, set: {{control: value}} or run: {{until: …}}",
        exercise,
        where,
    )


def parse_exercise(path: Path, raw_yaml: str, lesson_lab: str, kinds: dict[str, LabKind]) -> Exercise:
    """Validate one exercise block.

    Parameters
    ----------
    path : pathlib.Path
        The lesson file, for messages.
    raw_yaml : str
        The block's YAML text.
    lesson_lab : str
        The lesson's lab, used when the exercise names none.
    kinds : dict of str to LabKind
        The labs exercises may use.

    Returns
    -------
    Exercise
        The validated exercise.

    Raises
    ------
    SpecError
        Naming the file, the exercise and the field at fault.
    """
    try:
        data = yaml.safe_load(raw_yaml)
    except yaml.YAMLError as error:
        raise SpecError(path, f"the exercise block is not valid YAML ({error})") from None
    if not isinstance(data, dict):
        raise SpecError(path, "an exercise block must be a YAML mapping of fields")
    exercise_id = data.get("id")
    if not isinstance(exercise_id, str) or not _ID.match(exercise_id):
        raise SpecError(path, f"needs lowercase-with-dashes text, not {exercise_id!r}", None, "id")
    required = ("title", "steps", "prediction", "answer", "explanation")
    for name in required:
        if name not in data:
            raise SpecError(path, "is missing", exercise_id, name)
    known = {"id", "lab", "mistakes", "tolerance", "vary", "constants", "ideas", *required}
    for name in data:
        if name not in known:
            raise SpecError(path, f"unknown field; known: {', '.join(sorted(known))}", exercise_id, name)
    lab_name = data.get("lab", lesson_lab)
    if lab_name not in kinds:
        raise SpecError(path, f"unknown lab {lab_name!r}; known: {', '.join(kinds)}", exercise_id, "lab")
    lab = kinds[lab_name]
    raw_steps = data["steps"]
    if not isinstance(raw_steps, list) or not raw_steps:
        raise SpecError(path, "must be a list of steps", exercise_id, "steps")
    steps = _checked(
        path, exercise_id, tuple(_step(path, exercise_id, i, raw, lab) for i, raw in enumerate(raw_steps)), lab
    )
    kinds_in_order = [s.kind for s in steps]
    if kinds_in_order.count("predict") != 1:
        raise SpecError(path, "needs exactly one 'predict' step", exercise_id, "steps")
    first_run = kinds_in_order.index("run") if "run" in kinds_in_order else None
    if first_run is None:
        raise SpecError(path, "needs a 'run' step after 'predict'", exercise_id, "steps")
    if first_run < kinds_in_order.index("predict"):
        raise SpecError(path, "'predict' must come before any 'run' step", exercise_id, "steps")
    prediction = data["prediction"]
    if not isinstance(prediction, dict):
        raise SpecError(path, "must be a mapping with prompt, quantity and unit", exercise_id, "prediction")
    is_choice = "choices" in prediction
    for name in ("prompt", "quantity") if is_choice else ("prompt", "quantity", "unit"):
        if name not in prediction:
            raise SpecError(path, "is missing", exercise_id, f"prediction.{name}")
    unknown = set(prediction) - {"prompt", "quantity", "unit", "at", "choices"}
    if unknown:
        raise SpecError(
            path, "unknown field; known: at, choices, prompt, quantity, unit", exercise_id, f"prediction.{min(unknown)}"
        )
    quantity = prediction["quantity"]
    if quantity not in lab.quantities:
        raise SpecError(
            path,
            f"unknown quantity {quantity!r} for the {lab.name} lab; known: {', '.join(lab.quantities)}",
            exercise_id,
            "prediction.quantity",
        )
    if is_choice != (quantity in lab.choices):
        needs = "is asked as a choice: give prediction.choices" if not is_choice else "is a number: drop choices"
        raise SpecError(path, f"{quantity!r} {needs}", exercise_id, "prediction.choices")
    at = prediction.get("at")
    if at is not None:
        at = _number(path, exercise_id, "prediction.at", at)
        if is_choice or not lab.model.readable_at(quantity):
            raise SpecError(path, f"{quantity!r} cannot be read at a time", exercise_id, "prediction.at")
    if is_choice:
        choices = _choices(path, exercise_id, prediction["choices"], quantity, lab)
        if "unit" in prediction or data.get("tolerance", 0) != 0:
            raise SpecError(path, "a choice has no unit and no tolerance", exercise_id, "prediction.unit")
        answer, tolerance, unit = _choice(path, exercise_id, "answer", data["answer"], choices), 0.0, ""
    else:
        choices = ()
        if "tolerance" not in data:
            raise SpecError(path, "is missing", exercise_id, "tolerance")
        tolerance = _number(path, exercise_id, "tolerance", data["tolerance"])
        if tolerance < 0:
            raise SpecError(path, "must be 0 or more", exercise_id, "tolerance")
        answer = _number(path, exercise_id, "answer", data["answer"])
        unit = _text(path, exercise_id, "prediction.unit", prediction["unit"])
    prompt_text = _text(path, exercise_id, "prediction.prompt", prediction["prompt"])
    explanation = _text(path, exercise_id, "explanation", data["explanation"])
    title = _text(path, exercise_id, "title", data["title"])
    exercise = Exercise(
        id=exercise_id,
        title=title,
        lab=lab_name,
        steps=steps,
        prompt=prompt_text,
        quantity=quantity,
        unit=unit,
        at=at,
        answer=answer,
        tolerance=tolerance,
        explanation=explanation,
        mistakes=_mistakes(path, exercise_id, data.get("mistakes"), answer, tolerance, choices),
        choices=choices,
        vary=() if is_choice else _vary(path, exercise_id, data.get("vary"), steps),
        prompt_template=prompt_text,
        explanation_template=explanation,
        title_template=title,
        constants=_numbers_list(path, exercise_id, "constants", data.get("constants")),
        ideas=_ideas(path, exercise_id, data.get("ideas")),
    )
    if is_choice and data.get("vary") is not None:
        raise SpecError(path, "a choice exercise does not vary its numbers", exercise_id, "vary")
    for field, number in stray_numbers(exercise):
        raise SpecError(
            path,
            f"carries the number {format_number(number, exact=True)}, which a variant would leave stale: write it "
            "as a {placeholder} over the variant's numbers, or list it in constants if no variant changes it",
            exercise_id,
            field,
        )
    return _with_numbers(path, exercise)


def _numbers_list(path: Path, exercise: str, name: str, raw: object) -> tuple[float, ...]:
    """A list of numbers (``constants``); none when the field is left out."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise SpecError(path, f"must be a list of numbers, not {raw!r}", exercise, name)
    return tuple(_number(path, exercise, f"{name}[{i}]", value) for i, value in enumerate(raw))


IDEA_COUNT = 46
"""How many ideas ``../shared/seed-coverage.md`` numbers (1 to 46)."""


def _ideas(path: Path, exercise: str, raw: object) -> tuple[int, ...]:
    """``ideas``: the numbers of the source texts' ideas the exercise predicts, each 1 to :data:`IDEA_COUNT`."""
    numbers = _numbers_list(path, exercise, "ideas", raw)
    for index, number in enumerate(numbers):
        if number != int(number) or not 1 <= number <= IDEA_COUNT:
            raise SpecError(path, f"must be whole numbers from 1 to {IDEA_COUNT}", exercise, f"ideas[{index}]")
    return tuple(dict.fromkeys(int(number) for number in numbers))


def slug_of(path: Path) -> str:
    """The URL name of a lesson file: ``01-overlap.md`` → ``overlap``."""
    return re.sub(r"^\d+[-_]", "", path.stem)


def parse_lesson(path: Path, kinds: dict[str, LabKind] | None = None) -> Lesson:
    """Read and validate one lesson file.

    Parameters
    ----------
    path : pathlib.Path
        A Markdown file with front matter.
    kinds : dict of str to LabKind, optional
        The labs lessons may use; all of them by default.

    Returns
    -------
    Lesson
        The lesson with its text and exercises in reading order.

    Raises
    ------
    SpecError
        If the front matter or any exercise is malformed.
    """
    kinds = lab_kinds() if kinds is None else kinds
    text = path.read_text(encoding="utf-8")
    match = _FRONT_MATTER.match(text)
    if not match:
        raise SpecError(path, "needs front matter between '---' lines at the top")
    try:
        meta = yaml.safe_load(match.group(1))
    except yaml.YAMLError as error:
        raise SpecError(path, f"front matter is not valid YAML ({error})") from None
    if not isinstance(meta, dict):
        raise SpecError(path, "front matter must be a YAML mapping")
    for name in ("title", "lab", "summary"):
        if name not in meta:
            raise SpecError(path, "is missing from the front matter", None, name)
    if meta["lab"] not in kinds:
        raise SpecError(path, f"unknown lab {meta['lab']!r}; known: {', '.join(kinds)}", None, "lab")
    body = text[match.end() :]
    parts: list[str | Exercise] = []
    seen: set[str] = set()
    position = 0
    for block in _EXERCISE_BLOCK.finditer(body):
        parts.append(body[position : block.start()])
        exercise = parse_exercise(path, block.group(1), meta["lab"], kinds)
        if exercise.id in seen:
            raise SpecError(path, "is used twice in this lesson", exercise.id, "id")
        seen.add(exercise.id)
        parts.append(exercise)
        position = block.end()
    parts.append(body[position:])
    return Lesson(
        slug=slug_of(path),
        path=path,
        title=_text(path, None, "title", meta["title"]),
        lab=meta["lab"],
        summary=_text(path, None, "summary", meta["summary"]),
        parts=tuple(p for p in parts if not isinstance(p, str) or p.strip()),
    )


def load_lessons(directory: Path = CONTENT_DIR) -> list[Lesson]:
    """Read every lesson in ``directory``, ordered by file name.

    Parameters
    ----------
    directory : pathlib.Path
        The content folder; ``README.md`` there is documentation, not a lesson.

    Returns
    -------
    list of Lesson
        The lessons in course order.

    Raises
    ------
    SpecError
        On the first malformed file.
    """
    kinds = lab_kinds()
    paths = sorted(p for p in directory.glob("*.md") if p.name.lower() != "readme.md")
    lessons = [parse_lesson(path, kinds) for path in paths]
    slugs = [lesson.slug for lesson in lessons]
    for lesson in lessons:
        if slugs.count(lesson.slug) > 1:
            raise SpecError(lesson.path, f"another lesson has the same URL name {lesson.slug!r}")
    return lessons
