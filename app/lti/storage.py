"""The LTI platform-storage flow (LTI Client Side postMessages): the login kept by the LMS's page, not in a cookie.

A browser that blocks third-party cookies (Safari, Firefox's strict mode, Chrome's private windows)
drops the login cookie the tool sets inside the LMS's frame. A platform that offers storage names
its window in the login (``lti_storage_target``: ``_parent`` or the name of a frame of the parent).
Then:

- ``/lti/login`` answers with :func:`put_page` instead of a redirect: the page sends the signed
  login (the cookie's value) to that window as ``lti.put_data`` under the key
  ``lti1p3-state-<…>``, addressed to the origin of the platform's ``auth_login_url`` alone, waits
  for ``lti.put_data.response`` (or :data:`WAIT_MS`), and only then goes to the platform's login;
- ``/lti/launch``, finding no cookie but ``lti_storage_target`` in the platform's post, answers with
  :func:`get_page`: the page asks the window for the key (``lti.get_data``), checks the answer came
  from that origin, and posts the launch again with the login as ``lti_login``, verified exactly as
  the cookie would be (signed by the tool, its state and nonce those of the token).

The cookie is still set: a browser that keeps it needs none of this.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

WAIT_MS = 10000
"""How long a page waits for the platform's window to answer before going on without it. A platform
that offers its storage (``lti_storage_target``) answers in milliseconds; the wait is for a phone or a
machine too busy to run the two windows' scripts at once, where 3 s missed an answer that came and
refused a good launch (seen under load in tests/browser/test_lti_browser.py)."""

TARGET = re.compile(r"_parent|[A-Za-z0-9_\-]{1,64}")
"""What ``lti_storage_target`` may be: ``_parent``, or a frame's name (nothing a script could be made of)."""


def valid_target(target: str) -> bool:
    """Whether ``target`` names a window the pages may address."""
    return bool(TARGET.fullmatch(target))


SCRIPT = (Path(__file__).parent / "assets" / "platform_storage.js").read_text(encoding="utf-8")
"""Sends one message to the platform's window, then goes on with its answer (or none): the page's JSON says how."""


def _page(title: str, settings: dict, body: str = "") -> str:
    """A page that runs :data:`SCRIPT` with ``settings`` (data, as JSON)."""
    data = json.dumps({**settings, "wait": WAIT_MS}).replace("<", "\\u003c")  # no "</script>" in the data
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title></head><body><main><p>{html.escape(title)}</p>{body}</main>"
        f'<script id="lti-storage" type="application/json">{data}</script>'
        f"<script>{SCRIPT}</script></body></html>"
    )


def put_page(target: str, origin: str, key: str, value: str, next_url: str) -> str:
    """The login's page: keep ``value`` under ``key`` in the platform's storage, then go to ``next_url``."""
    settings = {
        "target": target,
        "origin": origin,
        "key": key,
        "value": value,
        "subject": "lti.put_data",
        "next": next_url,
    }
    return _page("Signing in to Overlap Lab…", settings)


def get_page(target: str, origin: str, key: str, id_token: str, state: str) -> str:
    """The launch's page: read the login kept under ``key`` and post the launch again with it."""
    settings = {"target": target, "origin": origin, "key": key, "subject": "lti.get_data"}
    form = (
        '<form id="launch" method="post" action="launch">'
        f'<input type="hidden" name="id_token" value="{html.escape(id_token)}">'
        f'<input type="hidden" name="state" value="{html.escape(state)}">'
        '<input type="hidden" name="lti_login" value=""></form>'
    )
    return _page("Opening Overlap Lab…", settings, form)
