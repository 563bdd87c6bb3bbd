"""What a verified resource-link launch opens, kept under a one-time code that the page redeems.

A launch is verified in the ``/lti/launch`` request; the exercise is a Panel session, built later
(when its websocket arrives, possibly in another process). Between the two the launch travels as a
one-time **launch code in the URL** (``/lti/lesson?code=…``): a random 192-bit code naming a record
kept server-side (:mod:`app.lti.store`) for :data:`CODE_LIFETIME_S` and taken once. A URL survives
the LMS's iframe whatever the browser does with third-party cookies (a cookie set inside the frame
may be blocked, partitioned or dropped on the way), it carries no identity itself (the student's
``sub`` never appears in a URL or an access log), and a copied link is worthless once used.

The record names the class (the LMS context: issuer, deployment and ``context.id``, hashed into
:func:`class_scope`), the student (a hash of issuer and ``sub``, :func:`student_id`; no name is
kept), the exercise, and the line item for the grade.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import Any
from urllib.parse import parse_qs, urlsplit

from app.course.library import lessons
from app.lti import AGS_CLAIM, INSTRUCTOR_ROLES, NRPS_CLAIM, SCORE_SCOPE
from app.lti.verify import Launch, LaunchRefused

CODE_LIFETIME_S = 120
"""How long a launch code may wait for its page (a page opens in seconds)."""


def class_scope(issuer: str, deployment_id: str, context_id: str) -> str:
    """The prefix of this LMS course's exercise keys in the class database: ``lti-<20 hex>/``.

    Issuer, deployment and context together name one course of one LMS; hashed, so no LMS id is
    written in the database and the key stays short.
    """
    digest = hashlib.sha256("\n".join((issuer, deployment_id, context_id)).encode()).hexdigest()
    return f"lti-{digest[:20]}/"


def student_id(issuer: str, sub: str) -> str:
    """The student's anonymous id in the class (32 hex digits, as a browser's): a hash of issuer and ``sub``."""
    return hashlib.sha256(f"{issuer}\n{sub}".encode()).hexdigest()[:32]


def is_instructor(roles: object) -> bool:
    """Whether the launch's roles make its user an instructor of the context (Instructor, TeachingAssistant)."""
    return isinstance(roles, list) and any(role in INSTRUCTOR_ROLES for role in roles if isinstance(role, str))


def exercise_named(launch: Launch) -> tuple[str, str]:
    """The lesson and exercise a launch opens: its custom ``exercise`` (``<lesson>/<exercise>``), else its target link.

    Raises
    ------
    LaunchRefused
        If neither names an exercise of this course (status 400).
    """
    custom = launch.claim("custom") or {}
    named = custom.get("exercise") if isinstance(custom, dict) else None
    if isinstance(named, str) and named.strip():
        lesson, _, exercise = named.strip().partition("/")
        where = f"its custom parameter exercise={named[:80]!r}"
    else:
        target = launch.claim("target_link_uri") or ""
        query = parse_qs(urlsplit(target).query) if isinstance(target, str) else {}
        lesson, exercise = (query.get("id") or [""])[0], (query.get("exercise") or [""])[0]
        where = f"its target link {str(target)[:120]!r}"
    found = next((item for item in lessons() if item.slug == lesson), None)
    if found is None or found.exercise(exercise) is None:
        raise LaunchRefused(
            f"the link names no exercise of this course ({where}); use /lesson?id=<lesson>&exercise=<exercise> "
            "or the custom parameter exercise=<lesson>/<exercise>",
            400,
        )
    return lesson, exercise


def launch_record(launch: Launch) -> dict[str, Any]:
    """What the page needs of a resource-link launch: role, class, student, exercise and line item.

    Raises
    ------
    LaunchRefused
        If a Learner's launch names no exercise of this course.
    """
    registration = launch.registration
    context = launch.claim("context") or {}
    context_id = str(context.get("id", "")) if isinstance(context, dict) else ""
    instructor = is_instructor(launch.claim("roles"))
    record: dict[str, Any] = {
        "kind": "instructor" if instructor else "learner",
        "iss": registration.issuer,
        "client_id": registration.client_id,
        "deployment_id": launch.deployment_id,
        "scope": class_scope(registration.issuer, launch.deployment_id, context_id),
        "context_title": str(context.get("title", ""))[:200] if isinstance(context, dict) else "",
    }
    try:
        record["lesson"], record["exercise"] = exercise_named(launch)
    except LaunchRefused:
        if not instructor:
            raise
        record["lesson"] = record["exercise"] = ""  # an instructor still gets the class's view
    if instructor:
        service = launch.claims.get(NRPS_CLAIM)
        if isinstance(service, dict) and isinstance(service.get("context_memberships_url"), str):
            record["memberships_url"] = service["context_memberships_url"]  # the roster's size (app.lti.roster)
        return record
    sub = launch.claims["sub"]
    record["student"] = student_id(registration.issuer, sub)
    endpoint = launch.claims.get(AGS_CLAIM)
    if (
        isinstance(endpoint, dict)
        and isinstance(endpoint.get("lineitem"), str)
        and SCORE_SCOPE in (endpoint.get("scope") or [])
    ):
        record["lineitem"] = endpoint["lineitem"]
        record["sub"] = sub  # the platform's id for the score's userId; kept only with the score to send
    return record


def new_code() -> str:
    """A fresh launch code: 24 random bytes, URL-safe."""
    return secrets.token_urlsafe(24)


def expiry(now: float | None = None) -> float:
    """When a code made now stops working."""
    return (time.time() if now is None else now) + CODE_LIFETIME_S
