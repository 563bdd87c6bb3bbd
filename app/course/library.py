"""The course's lessons, read once per process, and the URL's query parameters."""

from __future__ import annotations

from functools import cache

import panel as pn

from app.course.content import CONTENT_DIR, Lesson, load_lessons


@cache
def lessons() -> tuple[Lesson, ...]:
    """Every lesson, validated, in course order (immutable, so one copy serves every session)."""
    return tuple(load_lessons(CONTENT_DIR))


def query_param(name: str) -> str | None:
    """The first value of query parameter ``name`` in this session's URL, or None.

    Parameters
    ----------
    name : str
        The parameter, e.g. ``"id"``.

    Returns
    -------
    str or None
        The decoded text; undecodable bytes are replaced rather than raising.
    """
    args = pn.state.session_args or {}
    values = args.get(name) or []
    if not values:
        return None
    value = values[0]
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
