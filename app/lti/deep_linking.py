"""Deep Linking 2.0: an instructor picks exercises in the LMS, and the tool answers with signed resource links.

A verified ``LtiDeepLinkingRequest`` gets :func:`deep_linking_page`: every lesson's exercises to
tick (one or several, as the platform accepts), in a plain HTML form that posts to
``/lti/deep_link``. The form carries what the answer needs (the return URL, the platform's
``data``, the registration and deployment) in a short-lived token signed by the tool (HS256 with the
login cookies' key), so nothing is kept server-side and nothing in it can be changed.
:class:`DeepLinkHandler` then signs an ``LtiDeepLinkingResponse`` with the tool's private key (RS256,
its ``kid`` in ``/lti/jwks``): a resource link per pick, with its title, its URL
(``/lesson?id=…&exercise=…``) and the custom parameter ``exercise``, and a line item of score
maximum 1 when the platform accepts line items; and the browser auto-posts it to the return URL.
"""

from __future__ import annotations

import html
import secrets
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jwt

from app.course.library import lessons
from app.lti import CLAIM, DL_CLAIM, VERSION
from app.lti.tool import Tool
from app.lti.verify import DL_SETTINGS, Launch
from app.lti.web import LtiHandler, tool_url

PICK_LIFETIME_S = 3600
"""How long the instructor may take to pick (the signed form's life)."""

RESPONSE_TYPE = "LtiDeepLinkingResponse"


def _sign_pick(tool: Tool, launch: Launch) -> str:
    settings = launch.claims[DL_SETTINGS]
    claims = {
        "purpose": "deep-link",
        "iss": launch.registration.issuer,
        "client_id": launch.registration.client_id,
        "deployment_id": launch.deployment_id,
        "return_url": settings["deep_link_return_url"],
        "data": settings.get("data"),
        "multiple": settings.get("accept_multiple", True) is not False,
        "lineitem": settings.get("accept_lineitem", True) is not False,
        "exp": int(time.time()) + PICK_LIFETIME_S,
    }
    return jwt.encode(claims, tool.secret, algorithm="HS256")


def deep_linking_page(tool: Tool, launch: Launch) -> str:
    """The page listing every lesson's exercises to pick, for a verified deep-linking request."""
    settings = launch.claims[DL_SETTINGS]
    multiple = settings.get("accept_multiple", True) is not False
    kind = "checkbox" if multiple else "radio"
    groups = []
    for lesson in lessons():
        if not lesson.exercises:
            continue
        items = "".join(
            f'<li><label><input type="{kind}" name="pick" value="{html.escape(lesson.slug)}/{html.escape(e.id)}"> '
            f"{html.escape(e.title)}</label></li>"
            for e in lesson.exercises
        )
        groups.append(
            f"<fieldset><legend>{html.escape(lesson.title)}</legend>"
            f'<ul style="list-style:none;padding-left:0">{items}</ul></fieldset>'
        )
    how = "one or several exercises" if multiple else "one exercise"
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Add Overlap Lab exercises</title>'
        '</head><body style="font-family:system-ui,sans-serif;max-width:48rem;margin:1rem auto;padding:0 1rem">'
        f"<main><h1>Add Overlap Lab exercises</h1><p>Pick {how} for your course. Each becomes a link that opens "
        "the exercise, started, for your students; finishing it sends a grade (score maximum 1) to the gradebook."
        '</p><form method="post" action="deep_link">'
        f'<input type="hidden" name="pick_token" value="{html.escape(_sign_pick(tool, launch))}">'
        f'{"".join(groups)}<p><button type="submit">Add to the course</button></p></form></main></body></html>'
    )


def content_item(base: str, lesson_slug: str, exercise_id: str, lineitem: bool) -> dict[str, Any]:
    """One resource link: its title, its URL on the tool, the custom parameter ``exercise`` and a line item."""
    lesson = next(item for item in lessons() if item.slug == lesson_slug)
    exercise = lesson.exercise(exercise_id)
    title = f"{lesson.title}: {exercise.title}"
    item: dict[str, Any] = {
        "type": "ltiResourceLink",
        "title": title,
        "url": base.rstrip("/") + "/lesson?" + urlencode({"id": lesson_slug, "exercise": exercise_id}),
        "custom": {"exercise": f"{lesson_slug}/{exercise_id}"},
    }
    if lineitem:
        item["lineItem"] = {"scoreMaximum": 1, "label": title, "resourceId": f"{lesson_slug}/{exercise_id}"}
    return item


def response_token(tool: Tool, pick: dict[str, Any], items: list[dict[str, Any]]) -> str:
    """The ``LtiDeepLinkingResponse`` JWT, signed with the registration's private key (RS256, its ``kid``)."""
    registration = tool.config.find(pick["iss"], pick["client_id"])
    if registration is None:
        raise LookupError("the tool is no longer registered with that platform")
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": registration.client_id,
        "aud": registration.issuer,
        "iat": now,
        "exp": now + 600,
        "nonce": secrets.token_urlsafe(16),
        CLAIM + "deployment_id": pick["deployment_id"],
        CLAIM + "message_type": RESPONSE_TYPE,
        CLAIM + "version": VERSION,
        DL_CLAIM + "content_items": items,
    }
    if pick.get("data") is not None:
        claims[DL_CLAIM + "data"] = pick["data"]
    return jwt.encode(claims, registration.private_key, algorithm="RS256", headers={"kid": registration.kid})


AUTO_POST_JS = (Path(__file__).parent / "assets" / "auto_post.js").read_text(encoding="utf-8")
"""Posts the response's form at once."""


def auto_post_page(return_url: str, token: str) -> str:
    """The page that posts the response to the platform (its one script carries the page's nonce from the transform)."""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Adding to your course…</title></head>'
        f'<body><main><form id="response" method="post" action="{html.escape(return_url)}">'
        f'<input type="hidden" name="JWT" value="{html.escape(token)}">'
        '<p>Adding the exercises to your course… <button type="submit">Continue</button></p></form></main>'
        f"<script>{AUTO_POST_JS}</script></body></html>"
    )


class DeepLinkHandler(LtiHandler):
    """``/lti/deep_link`` (POST): the instructor's picks, answered with the signed response auto-posted to the LMS."""

    def post(self) -> None:
        """Check the signed form and the picks, then hand the browser the response to post."""
        try:
            pick = jwt.decode(
                self.get_body_argument("pick_token", ""),
                self.tool.secret,
                algorithms=["HS256"],
                options={"require": ["exp", "return_url", "iss", "client_id", "deployment_id"]},
            )
        except jwt.ExpiredSignatureError:
            self.refuse("deep link", "the page was open too long; add the exercises from your course again")
            return
        except jwt.InvalidTokenError:
            self.refuse("deep link", "the form did not come from this tool's deep-linking page", 401)
            return
        if pick.get("purpose") != "deep-link":
            self.refuse("deep link", "the form did not come from this tool's deep-linking page", 401)
            return
        known = {f"{lesson.slug}/{e.id}" for lesson in lessons() for e in lesson.exercises}
        picked = list(dict.fromkeys(self.get_body_arguments("pick")))
        if not picked or any(key not in known for key in picked):
            self.refuse("deep link", "no exercise of this course was picked; go back and tick at least one")
            return
        if not pick.get("multiple") and len(picked) > 1:
            self.refuse("deep link", "your course takes one exercise at a time here")
            return
        base = tool_url(self, "")
        items = [content_item(base, *key.split("/", 1), bool(pick.get("lineitem"))) for key in picked]
        try:
            token = response_token(self.tool, pick, items)
        except LookupError as error:
            self.refuse("deep link", str(error), 401)
            return
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(auto_post_page(pick["return_url"], token))
