"""The numbers of an exercise: its ``vary`` combinations, its filled templates and rules, its ``ideas``.

:mod:`app.course.content` reads an exercise's fields; this module reads ``vary`` and then, for an
exercise whose text has placeholders or whose mistakes have rules, works the numbers out on the lab's
model (:mod:`app.course.variants`) and checks every variant it may ask.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from pathlib import Path

from app.course import variants
from app.course.kinds import step_kind
from app.course.kinds.fields import number as _number
from app.course.kinds.fields import numbers_list as _numbers_list
from app.course.spec import Exercise, SpecError, Step
from labs.timed import InvalidInput, format_number


def parse_vary(
    path: Path, exercise: str, raw: object, steps: tuple[Step, ...]
) -> tuple[tuple[tuple[str, float], ...], ...]:
    """``vary``: the other numbers the exercise may ask with, as combinations of its settings.

    Either a mapping of each varied control to a list of values (or ``{from, to, step}``), every
    combination of which is asked, or a list of mappings, each one combination (for settings that
    must move together, such as both bucket caps).
    """
    if raw is None:
        return ()
    numbers = {step.control for step in steps if step.control is not None and step_kind(step).numbers(step)}

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


def with_numbers(path: Path, exercise: Exercise) -> Exercise:
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


IDEA_COUNT = 46
"""How many ideas ``../shared/seed-coverage.md`` numbers (1 to 46)."""


def parse_ideas(path: Path, exercise: str, raw: object) -> tuple[int, ...]:
    """``ideas``: the numbers of the source texts' ideas the exercise predicts, each 1 to :data:`IDEA_COUNT`."""
    numbers = _numbers_list(path, exercise, "ideas", raw)
    for index, number in enumerate(numbers):
        if number != int(number) or not 1 <= number <= IDEA_COUNT:
            raise SpecError(path, f"must be whole numbers from 1 to {IDEA_COUNT}", exercise, f"ideas[{index}]")
    return tuple(dict.fromkeys(int(number) for number in numbers))
