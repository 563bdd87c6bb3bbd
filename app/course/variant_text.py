"""The numbers written into a varying exercise: each one a placeholder or a declared constant.

A variant asks the exercise with other numbers. A number typed into its title, prompt, explanation, a
mistake's label or reasoning, or one of its steps, is the written exercise's number and goes stale in
every variant ("counted in the 9" where the backlog is 12) unless it is the same in every variant: a
*constant*, which the exercise declares (``constants: [8, 2, 25]``: eight layers, 2 ms each, the 25 MiB
cap). :func:`stray_numbers` finds the others; the lesson loader refuses a varying exercise that has any.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from app.course.kinds import step_kind
from app.course.spec import Exercise

_PLACEHOLDER = re.compile(r"\{[^{}]+\}")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+)?")
"""A number as prose writes it: ``8``, ``1.75``, ``26,214,400``; not the digits of ``bf16``, ``L1`` or ``c10d``."""


def literal_numbers(text: str) -> list[float]:
    """The numbers written in ``text`` outside its ``{...}`` placeholders, in order.

    Parameters
    ----------
    text : str
        A template: prose with ``{expression}`` placeholders.

    Returns
    -------
    list of float
        Each number as written (thousands separators dropped); digits inside a word are not numbers.
    """
    bare = _PLACEHOLDER.sub(" ", text)
    return [float(match.group(0).replace(",", "")) for match in _NUMBER.finditer(bare)]


def written_texts(exercise: Exercise) -> Iterator[tuple[str, str]]:
    """Each text of the exercise as written, with the field it is in (``title``, ``mistakes[1].label``...)."""
    yield "title", exercise.title_template or exercise.title
    yield "prediction.prompt", exercise.prompt_template or exercise.prompt
    yield "explanation", exercise.explanation_template or exercise.explanation
    for index, mistake in enumerate(exercise.mistakes):
        yield f"mistakes[{index}].label", mistake.label
        yield f"mistakes[{index}].reasoning", mistake.template or mistake.reasoning


def written_step_numbers(exercise: Exercise) -> Iterator[tuple[str, float]]:
    """Each number the exercise's steps and reading time carry that no variant changes, with its field."""
    varied = {control for combo in exercise.vary for control, _ in combo}
    for index, step in enumerate(exercise.steps):
        if step.control is None or step.control not in varied:
            for number in step_kind(step).numbers(step):
                yield f"steps[{index}]", number
    if exercise.at is not None:
        yield "prediction.at", float(exercise.at)


def stray_numbers(exercise: Exercise) -> list[tuple[str, float]]:
    """The written numbers of a varying exercise that are neither placeholders nor declared constants.

    Parameters
    ----------
    exercise : Exercise
        An exercise as the lesson writes it.

    Returns
    -------
    list of (str, float)
        Each stray number with the field it is in; empty for an exercise that does not vary.
    """
    if not exercise.vary:
        return []
    constants = set(exercise.constants)
    found = [(field, number) for field, text in written_texts(exercise) for number in literal_numbers(text)]
    found += list(written_step_numbers(exercise))
    return [(field, number) for field, number in found if number not in constants]
