"""Read the lessons in ``content/``: Markdown text with front matter and exercise blocks.

A lesson file is ``NN-slug.md``. Front matter (between ``---`` lines) gives ``title``, ``lab`` and
``summary``. Each fenced block opened with three backticks and ``exercise`` holds one exercise in
YAML; ``content/README.md`` documents the fields. Every problem is reported as a
:class:`SpecError` naming the file, the exercise and the field.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

import yaml

from app.course.catalog import LabKind, lab_kinds
from app.course.kinds import PREDICTION_KINDS, STEP_KINDS, Place, PredictionKind
from app.course.kinds.fields import number as _number
from app.course.kinds.fields import numbers_list, text
from app.course.spec import Exercise, Lesson, Mistake, SpecError, Step
from app.course.spec_mistakes import parse_mistakes
from app.course.spec_numbers import parse_ideas, parse_vary, with_numbers
from app.course.variant_text import stray_numbers
from labs.timed import format_number

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


def _steps(place: Place, raw_steps: list, lab: LabKind) -> tuple[Step, ...]:
    """Read every step by its kind, then do them on a fresh model as a student would.

    A value that depends on the steps before it (a bucket number once the caps are set) is checked
    against the lab as those steps leave it, and kept as the model reads it.
    """
    parsed = []
    for index, raw in enumerate(raw_steps):
        where = f"steps[{index}]"
        if isinstance(raw, str):
            name, body = raw, None
        elif isinstance(raw, dict) and len(raw) == 1:
            ((name, body),) = raw.items()
        else:
            name, body = None, None
        kind = STEP_KINDS.get(name) if isinstance(name, str) else None
        if kind is None or kind.bare != isinstance(raw, str):
            written = " or ".join((", ".join(k.syntax for k in STEP_KINDS.values())).rsplit(", ", 1))
            raise place.error(f"unknown step {raw!r}; use {written}", where)
        parsed.append(kind.parse(body, lab, place, where))
    model = lab.model()
    return tuple(
        STEP_KINDS[step.kind].rehearse(step, model, place, f"steps[{index}]") for index, step in enumerate(parsed)
    )


def _in_order(place: Place, steps: tuple[Step, ...]) -> None:
    """Exactly one step locks the prediction, and it comes before every step that runs the lab (one at least)."""
    predicts = [i for i, step in enumerate(steps) if STEP_KINDS[step.kind].predicts]
    runs = [i for i, step in enumerate(steps) if STEP_KINDS[step.kind].runs]
    if len(predicts) != 1:
        raise place.error("needs exactly one 'predict' step", "steps")
    if not runs:
        raise place.error("needs a 'run' step after 'predict'", "steps")
    if runs[0] < predicts[0]:
        raise place.error("'predict' must come before any 'run' step", "steps")


def _prediction_kind(prediction: Mapping) -> PredictionKind:
    """The kind the ``prediction:`` mapping asks for: the last registered kind that claims it."""
    return next(kind for kind in reversed(PREDICTION_KINDS.values()) if kind.claims(prediction))


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
    place = Place(path, exercise_id)
    steps = _steps(place, raw_steps, lab)
    _in_order(place, steps)
    prediction = data["prediction"]
    if not isinstance(prediction, dict):
        raise SpecError(path, "must be a mapping with prompt, quantity and unit", exercise_id, "prediction")
    kind = _prediction_kind(prediction)
    for name in ("prompt", "quantity", *kind.required):
        if name not in prediction:
            raise SpecError(path, "is missing", exercise_id, f"prediction.{name}")
    fields = {"prompt", "quantity", "at"}.union(*(k.fields for k in PREDICTION_KINDS.values()))
    unknown = set(prediction) - fields
    if unknown:
        known = ", ".join(sorted(fields))
        raise SpecError(path, f"unknown field; known: {known}", exercise_id, f"prediction.{min(unknown)}")
    quantity = prediction["quantity"]
    if quantity not in lab.quantities:
        raise SpecError(
            path,
            f"unknown quantity {quantity!r} for the {lab.name} lab; known: {', '.join(lab.quantities)}",
            exercise_id,
            "prediction.quantity",
        )
    needs = kind.mismatch(quantity, lab)
    if needs:
        raise SpecError(path, f"{quantity!r} {needs}", exercise_id, "prediction.choices")
    at = prediction.get("at")
    if at is not None:
        at = _number(path, exercise_id, "prediction.at", at)
        if not kind.timed or not lab.model.readable_at(quantity):
            raise SpecError(path, f"{quantity!r} cannot be read at a time", exercise_id, "prediction.at")
    answer, tolerance, unit, choices = kind.parse(data, prediction, quantity, lab, place)
    prompt_text = text(path, exercise_id, "prediction.prompt", prediction["prompt"])
    explanation = text(path, exercise_id, "explanation", data["explanation"])
    title = text(path, exercise_id, "title", data["title"])
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
        mistakes=parse_mistakes(place, data.get("mistakes"), kind, (answer, tolerance, choices)),
        choices=choices,
        vary=parse_vary(path, exercise_id, data.get("vary"), steps) if kind.varies else (),
        prompt_template=prompt_text,
        explanation_template=explanation,
        title_template=title,
        constants=numbers_list(path, exercise_id, "constants", data.get("constants")),
        ideas=parse_ideas(path, exercise_id, data.get("ideas")),
        prediction_kind=kind.name,
    )
    if not kind.varies and data.get("vary") is not None:
        raise SpecError(path, "a choice exercise does not vary its numbers", exercise_id, "vary")
    for field, number in stray_numbers(exercise):
        raise SpecError(
            path,
            f"carries the number {format_number(number, exact=True)}, which a variant would leave stale: write it "
            "as a {placeholder} over the variant's numbers, or list it in constants if no variant changes it",
            exercise_id,
            field,
        )
    return with_numbers(path, exercise)


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
    source = path.read_text(encoding="utf-8")
    match = _FRONT_MATTER.match(source)
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
    body = source[match.end() :]
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
        title=text(path, None, "title", meta["title"]),
        lab=meta["lab"],
        summary=text(path, None, "summary", meta["summary"]),
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
