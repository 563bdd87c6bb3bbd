"""The instructor's sign-in, on the page and over HTTP alike: limited, logged, and only with a strong token.

One process-wide :class:`~app.classroom.limits.SignInLimiter` counts failed tries per client
address and overall, whether they came from ``/instructor`` (the token typed on the page) or from
``/instructor/export.csv`` and ``rounds.json`` (a Bearer header). Over a limit the try is refused
unchecked, with how long to wait. Every failure is logged (``WARNING``) with the client's address,
never with what was typed.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Any

from app.classroom import TOKEN_ENV, token_matches, token_problem
from app.classroom.limits import SignInLimiter

LOG = logging.getLogger("app.classroom.signin")

LIMIT = SignInLimiter()
"""This process's failed sign-ins, per address and overall (the page and HTTP share it)."""

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


WEAK_TOKEN_TEXT = (
    "The class's data stays closed: this server's INSTRUCTOR_TOKEN is too weak to be accepted. "
    "Restart the course with a strong one (docs/hosting.md, the instructor token)."
)
"""What a try says when the server's own token is weak (under ``panel serve``; ``python -m app`` does not start)."""


@dataclass(frozen=True)
class Attempt:
    """One try's outcome: matched or not, the wait when refused unchecked, whether the server's token is weak."""

    signed_in: bool
    wait_s: int = 0
    weak_token: bool = False


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
    return Attempt(False, weak_token=bool(token_problem(os.environ.get(TOKEN_ENV, ""))))
