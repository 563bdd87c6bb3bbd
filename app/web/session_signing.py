"""The key every Bokeh session id and token is signed with, so that a forged token is refused.

Unsigned, a session token is plain base64 JSON: whoever learns a session id (a shared HAR file, a
screen-shared devtools window) can write a token for it and join that session, the instructor's
signed-in page and its Reveal button included (security review v6, M4). Bokeh's documented remedy
is ``sign_sessions`` with a ``secret_key``: ids and tokens then carry an HMAC, and the websocket
handshake refuses a token whose signature does not match.

The key comes from ``BOKEH_SECRET_KEY`` (Bokeh's own setting) when it is set, and must then be at
least :data:`MIN_LENGTH` characters. Otherwise one is generated at start, before any worker is
forked, so ``--num-procs`` shares it; ``deploy/cluster.py`` generates one for all its processes.
Replicas behind a load balancer without affinity (compose, Kubernetes) must be given the same key:
a page built by one replica opens its websocket on another (docs/hosting.md).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping

SECRET_ENV = "BOKEH_SECRET_KEY"
"""Bokeh's setting for the key (``bokeh.settings.settings.secret_key``)."""

MIN_LENGTH = 32
"""Fewest characters a given key may have: 32 random URL-safe characters are 192 bits."""


class WeakSecret(ValueError):
    """``BOKEH_SECRET_KEY`` is too short; the message says what to use instead."""


def new_secret() -> str:
    """A fresh random key (256 bits, URL-safe text).

    Returns
    -------
    str
        43 characters.
    """
    return secrets.token_urlsafe(32)


def session_secret(environ: Mapping[str, str] = os.environ) -> tuple[bytes, bool]:
    """The key to sign sessions with, and whether it was generated here.

    Parameters
    ----------
    environ : mapping
        Where ``BOKEH_SECRET_KEY`` is looked up (the process environment by default).

    Returns
    -------
    (bytes, bool)
        The key, and True when none was given and a new one was made.

    Raises
    ------
    WeakSecret
        When the given key is shorter than :data:`MIN_LENGTH` characters.
    """
    given = environ.get(SECRET_ENV, "")
    if not given:
        return new_secret().encode(), True
    if len(given) < MIN_LENGTH:
        raise WeakSecret(
            f"{SECRET_ENV} has {len(given)} characters; use at least {MIN_LENGTH} random ones "
            "(python -c 'import secrets; print(secrets.token_urlsafe(32))'), or leave it unset to generate one"
        )
    return given.encode(), False


def serve_options(secret: bytes) -> dict[str, object]:
    """The ``pn.serve`` keywords that turn signing on (passed through to Bokeh's ``BokehTornado``).

    Parameters
    ----------
    secret : bytes
        From :func:`session_secret`.

    Returns
    -------
    dict
        ``sign_sessions`` and ``secret_key``.
    """
    return {"sign_sessions": True, "secret_key": secret}
