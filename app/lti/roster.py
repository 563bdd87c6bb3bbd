"""Names and Role Provisioning Services 2.0: how many students the LMS course has, beside the locked count.

Only when an instructor's launch offers the service (its ``context_memberships_url``): an access
token for ``.../scope/contextmembership.readonly`` (the same client-credentials grant as the
grades, :class:`app.lti.grades.Tokens`), then the membership container, page by page
(``Link: <…>; rel="next"``, at most :data:`MAX_PAGES`). Members are counted, never kept: no name,
e-mail or id is stored or shown.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from typing import Any

from app.lti import LEARNER_ROLE, ROSTER_SCOPE
from app.lti.grades import HTTP_TIMEOUT_S, TOKENS, GradeError, Tokens
from app.lti.tool import Tool

MEMBERSHIP_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
MAX_PAGES = 50
"""The most pages of a roster read (a platform pages by 10 to 100 members)."""
MAX_PAGE_BYTES = 2_000_000
"""The largest page of a roster read."""

_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')


class RosterError(RuntimeError):
    """The roster could not be read; the message says why in a phrase."""


def _get(url: str, token: str) -> tuple[dict[str, Any], str | None]:
    request = urllib.request.Request(url, headers={"Accept": MEMBERSHIP_TYPE, "Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT_S) as answer:  # noqa: S310 (the launch's URL)
            body = answer.read(MAX_PAGE_BYTES + 1)
            link = answer.headers.get("Link", "")
    except urllib.error.HTTPError as error:
        raise RosterError(f"the course's roster answered {error.code}") from None
    except (OSError, ValueError) as error:
        raise RosterError(f"the course's roster did not answer ({error})") from None
    if len(body) > MAX_PAGE_BYTES:
        raise RosterError("a page of the course's roster is too large")
    try:
        page = json.loads(body)
    except ValueError:
        raise RosterError("the course's roster is not JSON") from None
    found = _NEXT.search(link)
    return (page if isinstance(page, dict) else {}), (found.group(1) if found else None)


def learners(tool: Tool, record: dict[str, Any], tokens: Tokens = TOKENS) -> int:
    """How many active Learners the launch's LMS course has.

    Raises
    ------
    RosterError
        If the registration is gone, no token is granted, or the roster cannot be read.
    """
    registration = tool.config.find(record["iss"], record["client_id"])
    if registration is None:
        raise RosterError("the tool is no longer registered with that platform")
    try:
        token = tokens.token(registration, ROSTER_SCOPE)
    except GradeError as error:
        raise RosterError(str(error)) from None
    count, url, pages = 0, record["memberships_url"], 0
    while url and pages < MAX_PAGES:
        page, url = _get(url, token)
        pages += 1
        for member in page.get("members") or []:
            if not isinstance(member, dict) or member.get("status", "Active") != "Active":
                continue
            if LEARNER_ROLE in (member.get("roles") or []):
                count += 1
    return count
