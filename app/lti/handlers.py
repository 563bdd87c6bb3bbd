"""The LTI endpoints, Tornado handlers beside Panel's pages (``extra_patterns`` of ``python -m app``).

- ``/lti/login`` (GET and POST): the platform's third-party initiated login. Checks ``iss``,
  ``client_id`` and ``login_hint``, sets a login cookie (``SameSite=None; Secure; HttpOnly``,
  signed, bound to this browser) holding the state and nonce, and redirects to the platform's
  ``auth_login_url`` with the OIDC authentication request (through the platform's storage first
  when it offers it, :mod:`app.lti.storage`).
- ``/lti/launch`` (POST ``id_token``, ``state``): verifies the launch (:mod:`app.lti.verify`) and
  sends the browser to its page with a one-time launch code (:mod:`app.lti.launches`): a Learner
  to ``/lti/lesson``, an Instructor or TeachingAssistant to ``/lti/instructor``; a deep-linking
  request gets the page to pick exercises (:mod:`app.lti.deep_linking`, answered at ``/lti/deep_link``).
- ``/lti/jwks``: the tool's public keys (a JWK set), for the platform to check the tool's
  signatures (client assertions, deep-linking responses).
- ``/lti/config.json``: a Canvas "Paste JSON" developer-key configuration.

A refused request gets a short HTML page saying why (400 or 401, never a traceback, nothing of the
course) and a ``WARNING`` line in the log with the client's address.
"""

from __future__ import annotations

import json
import logging
import secrets
from urllib.parse import urlencode, urlsplit

import jwt
from tornado.ioloop import IOLoop

from app.lti import DEEP_LINKING, LINEITEM_SCOPE, ROSTER_SCOPE, SCORE_SCOPE
from app.lti.config import origin_of
from app.lti.deep_linking import DeepLinkHandler, deep_linking_page
from app.lti.launches import expiry, launch_record, new_code
from app.lti.storage import get_page, put_page, valid_target
from app.lti.store import StateUnavailable
from app.lti.tool import Tool
from app.lti.verify import LOGIN_COOKIE_S, LaunchRefused, cookie_name, login_cookie, verify_launch
from app.lti.web import LtiHandler, tool_url

LOG = logging.getLogger("app.lti")


class LoginHandler(LtiHandler):
    """``/lti/login``: OIDC third-party initiated login (GET or POST)."""

    def get(self) -> None:
        """The login, its parameters in the query."""
        self._login()

    def post(self) -> None:
        """The login, its parameters in a form."""
        self._login()

    def _login(self) -> None:
        issuer = self.get_argument("iss", "")
        login_hint = self.get_argument("login_hint", "")
        client_id = self.get_argument("client_id", "") or None
        target = self.get_argument("target_link_uri", "")
        if not issuer:
            self.refuse("login", "the login names no platform (no iss)")
            return
        registration = self.tool.config.find(issuer, client_id)
        if registration is None:
            self.refuse("login", "this tool is not registered with that platform and client id")
            return
        if not login_hint:
            self.refuse("login", "the login has no login_hint")
            return
        if target and urlsplit(target).scheme not in ("http", "https"):
            self.refuse("login", "the target_link_uri is not an http(s) URL")
            return
        storage = self.get_argument("lti_storage_target", "")
        if storage and not valid_target(storage):
            self.refuse("login", "the lti_storage_target names no window")
            return
        state, nonce = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        signed_login = login_cookie(state, nonce, registration, self.tool.secret)
        self.set_cookie(
            cookie_name(state),
            signed_login,
            path="/",
            secure=True,
            httponly=True,
            samesite="None",
            max_age=LOGIN_COOKIE_S,
        )
        params = {
            "scope": "openid",
            "response_type": "id_token",
            "response_mode": "form_post",
            "prompt": "none",
            "client_id": registration.client_id,
            "redirect_uri": tool_url(self, "lti/launch"),
            "login_hint": login_hint,
            "state": state,
            "nonce": nonce,
        }
        message_hint = self.get_argument("lti_message_hint", "")
        if message_hint:
            params["lti_message_hint"] = message_hint
        joiner = "&" if urlsplit(registration.auth_login_url).query else "?"
        url = registration.auth_login_url + joiner + urlencode(params)
        if storage:  # the platform keeps the login too, for a browser that drops the cookie (app.lti.storage)
            origin = origin_of(registration.auth_login_url)
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(put_page(storage, origin, cookie_name(state), signed_login, url))
            return
        self.redirect(url)


class LaunchHandler(LtiHandler):
    """``/lti/launch``: the platform's form post of the id_token; verified, then sent on with a launch code."""

    async def post(self) -> None:
        """Verify the launch and redirect its browser to the exercise or the instructor's view."""
        id_token = self.get_body_argument("id_token", "") or None
        state = self.get_body_argument("state", "") or None
        if self.get_body_argument("error", ""):
            self.refuse("launch", f"the platform answered the login with {self.get_body_argument('error')[:60]!r}")
            return
        cookie = self.get_cookie(cookie_name(state)) if state else None
        tool = self.tool
        if cookie is None and state and id_token:  # no cookie: the login the platform's storage kept, if any
            kept = self.get_body_argument("lti_login", "")
            storage = self.get_body_argument("lti_storage_target", "")
            if kept:
                cookie = kept  # verified exactly as the cookie: signed by the tool, this state, this nonce
            elif storage and valid_target(storage):
                origin = _platform_origin(tool, id_token)
                if origin:
                    self.set_header("Content-Type", "text/html; charset=utf-8")
                    self.finish(get_page(storage, origin, cookie_name(state), id_token, state))
                    return
        loop = IOLoop.current()
        try:
            launch = await loop.run_in_executor(
                None, verify_launch, tool.config, tool.keys, tool.state, id_token, state, cookie, tool.secret
            )
            if launch.message_type == DEEP_LINKING:
                self.clear_cookie(cookie_name(state or ""), path="/", secure=True, samesite="None")
                self.set_header("Content-Type", "text/html; charset=utf-8")
                self.finish(deep_linking_page(tool, launch))
                return
            record = launch_record(launch)
            code = new_code()
            await loop.run_in_executor(None, tool.state.put_launch, code, record, expiry())
        except LaunchRefused as refused:
            self.refuse("launch", refused.reason, refused.status)
            return
        except StateUnavailable as problem:
            LOG.error("LTI: a launch cannot be kept: %s", problem)
            self.refuse("launch", "the tool cannot keep this launch now; try again in a moment", 503)
            return
        self.clear_cookie(cookie_name(state or ""), path="/", secure=True, samesite="None")
        LOG.info("LTI launch accepted: %s", record["kind"])
        # relative (/lti/<page>), behind a proxy too; a Learner's names the lesson, whose title its page's HTML has
        if record["kind"] == "instructor":
            self.redirect(f"instructor?{urlencode({'code': code})}", status=303)
        else:
            self.redirect(f"lesson?{urlencode({'id': record['lesson'], 'code': code})}", status=303)


def _platform_origin(tool: Tool, id_token: str) -> str:
    """The origin of the login URL of the platform an (unverified) id_token names, or ``""``."""
    try:
        issuer = jwt.decode(id_token, options={"verify_signature": False}).get("iss", "")
    except jwt.InvalidTokenError:
        return ""
    found = tool.config.registrations.get(str(issuer), ())
    return origin_of(found[0].auth_login_url) if found else ""


class JwksHandler(LtiHandler):
    """``/lti/jwks``: the tool's public keys."""

    def get(self) -> None:
        """The JWK set."""
        self.set_header("Cache-Control", "max-age=300")
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(self.tool.config.public_keys()))


class CanvasConfigHandler(LtiHandler):
    """``/lti/config.json``: the tool as Canvas's "Paste JSON" developer key takes it."""

    def get(self) -> None:
        """The configuration, with this server's addresses."""
        launch = tool_url(self, "lti/launch")
        placements = [
            {"placement": "link_selection", "message_type": DEEP_LINKING, "target_link_uri": launch},
            {"placement": "assignment_selection", "message_type": DEEP_LINKING, "target_link_uri": launch},
        ]
        body = {
            "title": "Overlap Lab",
            "description": "Predict-then-play exercises on communication-computation overlap in data-parallel "
            "training.",
            "oidc_initiation_url": tool_url(self, "lti/login"),
            "target_link_uri": launch,
            "public_jwk_url": tool_url(self, "lti/jwks"),
            "scopes": [SCORE_SCOPE, LINEITEM_SCOPE, ROSTER_SCOPE],
            "extensions": [
                {
                    "domain": urlsplit(launch).hostname or "",
                    "platform": "canvas.instructure.com",
                    "privacy_level": "anonymous",
                    "settings": {"placements": placements},
                }
            ],
            "custom_fields": {},
        }
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(body, indent=2))


ROUTES = [
    (r"/lti/login", LoginHandler),
    (r"/lti/deep_link", DeepLinkHandler),
    (r"/lti/launch", LaunchHandler),
    (r"/lti/jwks", JwksHandler),
    (r"/lti/config\.json", CanvasConfigHandler),
]
"""The LTI endpoints, for ``pn.serve(extra_patterns=...)``."""
