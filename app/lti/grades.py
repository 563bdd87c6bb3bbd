"""The grade sent back to the LMS (LTI Assignment and Grade Services 2.0): a score on the launch's line item.

When a launched student reaches the verdict of the launched exercise, :func:`queue_score` keeps the
score in the tool's state (the class database when the class is on) and :func:`send_score` posts it:

1. an access token from the registration's ``auth_token_url`` (OAuth 2 client credentials, the
   tool authenticating with a JWT assertion signed by its private key, RFC 7523; scope
   ``.../scope/score``), cached until it expires;
2. ``POST <lineitem>/scores`` with ``application/vnd.ims.lis.v1.score+json``: ``scoreGiven`` of
   ``scoreMaximum`` 1 (1 for an exercise done, or by ``--lti-score correctness`` 1 or 0 as the first
   locked prediction was right), ``activityProgress`` Completed, ``gradingProgress`` FullyGraded,
   the student's ``userId`` (``sub``) and a ``timestamp``.

A post that fails stays kept and is tried again by :func:`send_pending` (the server looks every
:data:`RETRY_EVERY_S` seconds; the waits between one score's tries double up to an hour) until the
platform takes it; only then does the page say "Sent to your course".
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

import jwt

from app.lti import SCORE_SCOPE
from app.lti.config import Registration
from app.lti.store import PendingScore, StateUnavailable
from app.lti.tool import Tool

LOG = logging.getLogger("app.lti")

HTTP_TIMEOUT_S = 10.0
"""How long the platform's token and score endpoints may take to answer."""

RETRY_EVERY_S = 30.0
"""How often the server looks for scores whose next try is due."""

MAX_BACKOFF_S = 3600.0
"""The longest wait between two tries of one score (the waits double from :data:`RETRY_EVERY_S`)."""

CLAIM_S = 120.0
"""How long one try holds a score (longer than a try's two HTTP requests can take)."""


def backoff_s(attempts: int) -> float:
    """Seconds to wait after the ``attempts``-th failed try: 30, 60, 120, … up to an hour."""
    return min(MAX_BACKOFF_S, RETRY_EVERY_S * 2 ** max(0, min(attempts - 1, 16)))


MAX_ANSWER_BYTES = 64_000
"""The most of the platform's answer read (a token or an acknowledgement)."""

SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"


class GradeError(RuntimeError):
    """A score could not be sent; the message says why in a phrase (no token, no user id)."""


def score_body(sub: str, correct: bool, mode: str, now: float | None = None) -> dict[str, Any]:
    """The score for one finished exercise.

    Parameters
    ----------
    sub : str
        The student's id on the platform.
    correct : bool
        Whether the first locked prediction was right.
    mode : str
        ``"participation"`` (1 for an exercise done) or ``"correctness"`` (1 or 0).
    now : float, optional
        The time (``time.time()`` by default).
    """
    stamp = datetime.fromtimestamp(time.time() if now is None else now, tz=UTC).isoformat(timespec="milliseconds")
    given = 1 if mode == "participation" or correct else 0
    return {
        "userId": sub,
        "scoreGiven": given,
        "scoreMaximum": 1,
        "activityProgress": "Completed",
        "gradingProgress": "FullyGraded",
        "timestamp": stamp.replace("+00:00", "Z"),
    }


def scores_url(lineitem: str) -> str:
    """The line item's ``/scores`` endpoint (its query, if any, kept after the path)."""
    parts = urlsplit(lineitem)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


def client_assertion(registration: Registration, now: float | None = None) -> str:
    """The tool's JWT assertion for the token endpoint, signed with its private key (RS256, its ``kid``)."""
    now = time.time() if now is None else now
    claims = {
        "iss": registration.client_id,
        "sub": registration.client_id,
        "aud": registration.auth_token_url,
        "iat": int(now),
        "exp": int(now) + 300,
        "jti": secrets.token_urlsafe(16),
    }
    return jwt.encode(claims, registration.private_key, algorithm="RS256", headers={"kid": registration.kid})


def _post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT_S) as answer:  # noqa: S310 (configured URLs)
            return answer.status, answer.read(MAX_ANSWER_BYTES)
    except urllib.error.HTTPError as error:
        return error.code, error.read(MAX_ANSWER_BYTES)
    except (OSError, ValueError) as error:
        raise GradeError(f"{urlsplit(url).netloc} did not answer ({error})") from None


class Tokens:
    """Access tokens per registration and scope, kept until shortly before they expire."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[tuple[str, str, str], tuple[float, str]] = {}

    def token(self, registration: Registration, scope: str = SCORE_SCOPE) -> str:
        """An access token for ``scope``, fetched when none is held.

        Raises
        ------
        GradeError
            If the token endpoint refuses or does not answer.
        """
        key = (registration.issuer, registration.client_id, scope)
        with self._lock:
            held = self._held.get(key)
        if held is not None and held[0] > time.monotonic():
            return held[1]
        form = urlencode(
            {
                "grant_type": "client_credentials",
                "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                "client_assertion": client_assertion(registration),
                "scope": scope,
            }
        ).encode()
        status, body = _post(
            registration.auth_token_url,
            form,
            {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
        )
        if status != 200:
            raise GradeError(f"the token endpoint answered {status}")
        try:
            answer = json.loads(body)
            token = answer["access_token"]
            lifetime = float(answer.get("expires_in", 3600))
        except (ValueError, KeyError, TypeError):
            raise GradeError("the token endpoint's answer has no access_token") from None
        if not isinstance(token, str) or not token:
            raise GradeError("the token endpoint's answer has no access_token")
        with self._lock:
            self._held[key] = (time.monotonic() + max(0.0, lifetime - 60), token)
        return token

    def forget(self, registration: Registration, scope: str = SCORE_SCOPE) -> None:
        """Drop a token the platform no longer accepts."""
        with self._lock:
            self._held.pop((registration.issuer, registration.client_id, scope), None)


TOKENS = Tokens()


def send_score(tool: Tool, pending: PendingScore, tokens: Tokens = TOKENS) -> None:
    """Post one kept score; mark it sent when the platform took it (2xx).

    Raises
    ------
    GradeError
        If it was not taken (the registration is gone, no token, or the platform refused); it stays kept.
    """
    record = pending.record
    registration = tool.config.find(record["iss"], record["client_id"])
    if registration is None:
        raise GradeError("the tool is no longer registered with that platform")
    token = tokens.token(registration)
    body = json.dumps(record["score"]).encode()
    headers = {"Content-Type": SCORE_TYPE, "Authorization": f"Bearer {token}"}
    status, _answer = _post(scores_url(record["lineitem"]), body, headers)
    if status == 401:
        tokens.forget(registration)
    if not 200 <= status < 300:
        raise GradeError(f"the platform answered {status} to the score")
    tool.state.score_sent(pending.id)


def try_send(tool: Tool, pending: PendingScore, now: float | None = None) -> bool:
    """Claim one score and send it, recording a failure (logged, tried again later); whether it was taken.

    A score another process is trying right now is left to it (False here). ``now``: the time
    (``time.time()`` by default).
    """
    now = time.time() if now is None else now
    try:
        if not tool.state.claim(pending.id, now + CLAIM_S, now=now):
            return False
        send_score(tool, pending)
        return True
    except (GradeError, StateUnavailable) as problem:
        attempts = pending.attempts + 1
        LOG.warning("LTI score %s not sent yet (try %s): %s", pending.id, attempts, problem)
        try:
            tool.state.score_failed(pending.id, str(problem), now + backoff_s(attempts))
        except StateUnavailable:
            pass  # kept all the same; the claim runs out and the next round tries again
        return False


def queue_score(tool: Tool, record: dict[str, Any], correct: bool) -> PendingScore:
    """Keep the score for a launched student's verdict, ready to send.

    Parameters
    ----------
    tool : Tool
        This process's tool.
    record : dict
        The launch's record (:func:`app.lti.launches.launch_record`), with ``lineitem`` and ``sub``.
    correct : bool
        Whether the first locked prediction was right.

    Raises
    ------
    StateUnavailable
        If it cannot be kept.
    """
    kept = {
        "iss": record["iss"],
        "client_id": record["client_id"],
        "lineitem": record["lineitem"],
        "score": score_body(record["sub"], correct, tool.score_mode),
    }
    return PendingScore(tool.state.add_score(kept), kept, 0)


def send_pending(tool: Tool, now: float | None = None) -> int:
    """Try once every score whose next try is due by ``now`` (the server's retry round); how many were taken."""
    now = time.time() if now is None else now
    try:
        pending = tool.state.pending_scores(now=now)
    except StateUnavailable as problem:
        LOG.warning("LTI scores cannot be read for a retry: %s", problem)
        return 0
    return sum(try_send(tool, score, now) for score in pending)


def start_retries(tool: Tool) -> None:
    """Every :data:`RETRY_EVERY_S` seconds, on the running server's event loop, send the scores kept (in a thread)."""
    from tornado.ioloop import IOLoop, PeriodicCallback

    loop = IOLoop.current()

    def round_of_retries() -> None:
        loop.run_in_executor(None, send_pending, tool)

    PeriodicCallback(round_of_retries, RETRY_EVERY_S * 1000).start()
