"""The checks every field of an exercise spec goes through: a number, a text, a list of numbers.

Each raises a :class:`~app.course.spec.SpecError` naming the lesson file, the exercise and the field,
so a step kind or a prediction kind reports a bad spec exactly as the rest of the reader does.
"""

from __future__ import annotations

import math
from pathlib import Path

from app.course.spec import SpecError


def number(path: Path, exercise: str, name: str, raw: object) -> float:
    """``raw`` as a finite number, or a :class:`SpecError` naming field ``name``."""
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise SpecError(path, f"must be a number, not {raw!r}", exercise, name)
    if not math.isfinite(raw):
        raise SpecError(path, f"must be a finite number, not {raw!r}", exercise, name)
    return float(raw)


def text(path: Path, exercise: str | None, name: str, raw: object) -> str:
    """``raw`` as non-empty text, stripped, or a :class:`SpecError` naming field ``name``."""
    if not isinstance(raw, str) or not raw.strip():
        raise SpecError(path, "must be non-empty text", exercise, name)
    return raw.strip()


def numbers_list(path: Path, exercise: str, name: str, raw: object) -> tuple[float, ...]:
    """A list of numbers (``constants``, ``ideas``); none when the field is left out."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise SpecError(path, f"must be a list of numbers, not {raw!r}", exercise, name)
    return tuple(number(path, exercise, f"{name}[{i}]", value) for i, value in enumerate(raw))
