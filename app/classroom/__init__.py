"""The class's predictions for the instructor (peer instruction), on when a class database is set.

One :class:`~app.classroom.store.ClassStore` per process, opened from ``python -m app --class-db
URL`` (:func:`configure`) or, under ``panel serve``, from the ``CLASS_DB`` environment variable on
first use. The instructor's secret is ``INSTRUCTOR_TOKEN`` from the environment; it is compared in
constant time and never put in a page, a URL or an export.
"""

from __future__ import annotations

import hmac
import logging
import os
import re
import secrets

from app.classroom.store import ClassStore, StoreUnavailable

CLASS_DB_ENV = "CLASS_DB"
TOKEN_ENV = "INSTRUCTOR_TOKEN"
USERS_ENV = "INSTRUCTOR_USERS"
"""Comma-separated user names that Panel's own login (``--basic-auth``, ``--oauth-provider``) makes instructors."""
STUDENT_ID = re.compile(r"[0-9a-f]{32}")
"""What an anonymous student id looks like (16 random bytes in hex, made by the browser)."""

LOG = logging.getLogger(__name__)
_store: ClassStore | None = None
_configured = False


def configure(url: str | None) -> ClassStore | None:
    """Open the class database for this process (``None``: the class is off).

    Parameters
    ----------
    url : str or None
        A SQLAlchemy URL; see :class:`ClassStore`.

    Returns
    -------
    ClassStore or None
        The store every session of this process uses, its rounds older than
        :data:`~app.classroom.store.KEEP_DAYS` pruned.

    Raises
    ------
    StoreUnavailable
        If the database cannot be opened.
    """
    global _store, _configured
    if _store is not None:
        _store.dispose()
    _store = ClassStore(url) if url else None
    _configured = True
    if _store is not None:
        try:
            _store.prune()  # the store stays bounded: rounds older than KEEP_DAYS go (app.classroom.store)
        except StoreUnavailable as problem:  # another process pruning at the same moment: it does the work
            LOG.warning("old rounds were not pruned: %s", problem)
    return _store


def class_store() -> ClassStore | None:
    """The class database of this process, or None when the class is off (``CLASS_DB`` read once if unset)."""
    if not _configured:
        try:
            configure(os.environ.get(CLASS_DB_ENV) or None)
        except StoreUnavailable:
            configure(None)
    return _store


def ensure_token() -> tuple[str, bool]:
    """The instructor token, made up (and put in the environment for child processes) if none is set.

    Returns
    -------
    (str, bool)
        The token, and whether it was just made (then the caller shows it once to whoever started it).
    """
    token = os.environ.get(TOKEN_ENV, "")
    if token:
        return token, False
    token = secrets.token_urlsafe(18)
    os.environ[TOKEN_ENV] = token
    return token, True


def is_instructor(user: str | None) -> bool:
    """Whether a user Panel's authentication logged in is listed in ``INSTRUCTOR_USERS`` (never "guest")."""
    if not user or user == "guest":
        return False
    return user in {name.strip() for name in os.environ.get(USERS_ENV, "").split(",") if name.strip()}


MIN_TOKEN_LENGTH = 16
MIN_DISTINCT = 8
"""A strong ``INSTRUCTOR_TOKEN``: at least 16 characters, at least 8 of them different."""


def token_problem(token: str) -> str | None:
    """Why ``token`` is too weak to be the instructor token, in a phrase, or None when it is strong enough.

    The rule: at least :data:`MIN_TOKEN_LENGTH` characters, at least :data:`MIN_DISTINCT` of them
    different (``aaaaaaaaaaaaaaaaaaaa`` and ``abababababababab`` are refused). An empty token is
    "none set", not weak.
    """
    if not token:
        return None
    if len(token) < MIN_TOKEN_LENGTH:
        return f"it has {len(token)} characters; use at least {MIN_TOKEN_LENGTH}"
    if len(set(token)) < MIN_DISTINCT:
        return f"it has only {len(set(token))} different characters; use at least {MIN_DISTINCT}"
    return None


def token_matches(given: object) -> bool:
    """Whether ``given`` is the instructor token (False when none is set, it is weak, or ``given`` is not text).

    A weak token (:func:`token_problem`) never matches: ``python -m app`` refuses to start with one,
    and under ``panel serve`` it keeps the class's data closed rather than guessable.
    """
    token = os.environ.get(TOKEN_ENV, "")
    if not token or token_problem(token) or not isinstance(given, str) or not given:
        return False
    return hmac.compare_digest(given.encode(), token.encode())


__all__ = [
    "CLASS_DB_ENV",
    "STUDENT_ID",
    "TOKEN_ENV",
    "USERS_ENV",
    "ClassStore",
    "StoreUnavailable",
    "class_store",
    "configure",
    "ensure_token",
    "is_instructor",
    "token_matches",
    "token_problem",
]
