"""The instructor's sign-in, on the page and over HTTP alike: limited, logged, and only with a strong token.

One process-wide :class:`~app.classroom.limits.SignInLimiter` counts failed tries per client
address and overall, whether they came from ``/instructor`` (the token typed on the page) or from
``/instructor/export.csv`` and ``rounds.json`` (a Bearer header). Over a limit the try is refused
unchecked, with how long to wait. Every failure is logged (``WARNING``) with the client's address,
never with what was typed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from app.classroom import token_matches
from app.classroom.limits import SignInLimiter

LOG = logging.getLogger("app.classroom.signin")

LIMIT = SignInLimiter()
"""This process's failed sign-ins, per address and overall (the page and HTTP share it)."""

MIN_TOKEN_LENGTH = 16
MIN_DISTINCT = 8
"""A strong ``INSTRUCTOR_TOKEN``: at least 16 characters, at least 8 of them different."""

UNKNOWN = "unknown"
"""The address of a client that could not be told (a session built without a request, headless)."""


def too_many_text(wait_s: int) -> str:
    """What a refused try says, e.g. ``Too many tries; wait 42 s.`` (the page and HTTP alike)."""
    return f"Too many tries; wait {wait_s} s."


def client_address(source: Any) -> str:
    """The address of the client behind a request, a Tornado handler, a Bokeh document or session context.

    Tornado's ``request.remote_ip``: the peer's address, or the client's own once the server trusts
    a proxy's ``X-Forwarded-For`` / ``X-Real-Ip`` (Tornado's ``xheaders``). A Bokeh session's is that
    of the request that made it (the page's or its websocket's).

    Parameters
    ----------
    source : object
        A ``tornado.httputil.HTTPServerRequest``, a ``RequestHandler``, a ``bokeh.document.Document``,
        a Bokeh session context, or None.

    Returns
    -------
    str
        The address, or ``"unknown"``.
    """
    for step in ("session_context", "request"):  # a document has a context, which (like a handler) has a request
        inner = getattr(source, step, None)
        if inner is not None:
            source = inner
    address = getattr(source, "remote_ip", None)
    return address if isinstance(address, str) and address else UNKNOWN


@dataclass(frozen=True)
class Attempt:
    """One sign-in try's outcome: whether it matched, and how long to wait when refused unchecked."""

    signed_in: bool
    wait_s: int = 0


def try_token(given: object, address: str, where: str) -> Attempt:
    """Check one try at the instructor token, within the limits, and log a failure.

    Parameters
    ----------
    given : object
        What the client sent (text, or anything else, which fails).
    address : str
        The client's address (:func:`client_address`).
    where : str
        Where the try came from, for the log (``"/instructor"``, ``"/instructor/export.csv"``).

    Returns
    -------
    Attempt
        ``signed_in`` when it matched; ``wait_s > 0`` when it was refused unchecked (over a limit).
    """
    wait = LIMIT.wait_s(address)
    if wait:
        return Attempt(False, wait)
    if token_matches(given):
        return Attempt(True)
    LIMIT.failed(address)
    LOG.warning("instructor sign-in failed from %s on %s", address, where)
    if LIMIT.wait_s(address):
        LOG.warning("instructor sign-in: too many failed tries; refusing tries from %s unchecked for a while", address)
    return Attempt(False)


def token_problem(token: str) -> str | None:
    """Why ``token`` is too weak to be the instructor token, in one sentence, or None when it is strong enough.

    The rule: at least :data:`MIN_TOKEN_LENGTH` characters, at least :data:`MIN_DISTINCT` of them
    different (``aaaaaaaaaaaaaaaaaaaa`` and ``abababababababab`` are refused).
    """
    if len(token) < MIN_TOKEN_LENGTH:
        return f"it has {len(token)} characters; use at least {MIN_TOKEN_LENGTH}"
    if len(set(token)) < MIN_DISTINCT:
        return f"it has only {len(set(token))} different characters; use at least {MIN_DISTINCT}"
    return None
