"""Asking an exercise again: with new numbers ("Try it with new numbers"), or as a reload left it.

Pure functions of what the page sent and the exercise as the lesson writes it: what the runner
(:class:`app.course.exercise.ExerciseRunner`) should ask, or None when the message asks for nothing
this exercise can be.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.course.spec import Exercise
from app.course.variants import asked_with_new_numbers, variant_named

MAX_RESUME_TEXT = 200
"""The longest variant name or locked prediction a resumed page may send back (a forged one is ignored)."""
MAX_RETRIES = 10_000
"""The most retries a resumed page may claim (it only orders the next variants)."""


def retried(written: Exercise, seed: object, attempt: int) -> Exercise | None:
    """The exercise asked with new numbers for the ``attempt``-th retry, or None if it does not vary.

    Parameters
    ----------
    written : Exercise
        The exercise as the lesson writes it.
    seed : object
        The browser's seed (a whole number kept in its localStorage): each student meets the
        variants in an order of their own. Anything else counts as 0.
    attempt : int
        Which retry this is (1 for the first).
    """
    if not written.vary:
        return None
    whole = seed if isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 2**53 else 0
    return asked_with_new_numbers(written, whole, attempt)


@dataclass(frozen=True)
class Resumed:
    """What a reload interrupted, checked: the variant to ask (None: as written), and what to redo."""

    variant: Exercise | None
    retries: int
    setup: bool
    locked: str


def resume_plan(state: object, written: Exercise) -> Resumed | None:
    """Check what a reloaded page sent back (:func:`~app.course.exercise_drawing.resume_state`).

    Everything is checked as if typed: a variant only by a name this exercise declares; the setup
    and the prediction are then done as the button and :meth:`ExerciseRunner.lock` do them.

    Parameters
    ----------
    state : object
        ``{"variant": str, "retries": int, "setup": bool, "locked": str}`` as the page stored it.
    written : Exercise
        The exercise as the lesson writes it.

    Returns
    -------
    Resumed or None
        None for anything that is not such a mapping, or names a variant this exercise does not have.
    """
    if not isinstance(state, dict):
        return None
    name, retries, variant = state.get("variant"), state.get("retries"), None
    if isinstance(name, str) and name:
        variant = variant_named(written, name[:MAX_RESUME_TEXT])
        if variant is None:
            return None  # not one of this exercise's variants (an old page, or a forged message)
        whole = isinstance(retries, int) and not isinstance(retries, bool) and 1 <= retries <= MAX_RETRIES
        retries = retries if whole else 1
    text = state.get("locked")
    locked = text if isinstance(text, str) and len(text) <= MAX_RESUME_TEXT else ""
    return Resumed(variant, retries if variant is not None else 0, state.get("setup") is True, locked)
