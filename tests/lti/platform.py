"""A small but real LTI 1.3 platform (an LMS's side) on PyJWT and Tornado, for the tests.

It has its own RSA key and publishes it at ``/jwks``; answers the tool's OIDC authentication
request at ``/auth`` with an auto-submitting ``form_post`` of a signed id_token (the claims of the
launch the test prepared under the login hint); issues access tokens at ``/token`` only for a
client assertion that verifies against the tool's own ``/lti/jwks``; records every score posted
to ``/lineitems/<id>/scores`` with a valid token; takes deep-linking responses at ``/deep_link_return``
(verified against the tool's keys); and serves ``/course?hint=…``, a course page that frames the
tool's ``/lti/login``, as an LMS does.

The platform's registration of the tool has the same fields docs/hosting.md asks for in Canvas and
Moodle: client id, deployment id, the tool's login URL, redirect (launch) URL and public keys URL.
"""

from __future__ import annotations

import html
import json
import secrets
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from tornado.web import RequestHandler

from app.lti import CLAIM, DEEP_LINKING, RESOURCE_LINK, ROSTER_SCOPE, SCORE_SCOPE
from app.lti.config import origin_of, public_jwk
from app.lti.keys import make_key_pair
from tests.tornado_thread import serving

LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
CLIENT_ID = "overlap-lab-test-client"
DEPLOYMENT_ID = "deployment-1"


@dataclass
class Platform:
    """The platform's state: its key, the tool's registration, the launches prepared, what it received."""

    url: str = ""
    tool_url: str = ""
    client_id: str = CLIENT_ID
    deployment_id: str = DEPLOYMENT_ID
    key: rsa.RSAPrivateKey = field(
        default_factory=lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048)
    )
    launches: dict[str, dict[str, Any]] = field(default_factory=dict)
    scores: list[dict[str, Any]] = field(default_factory=list)
    deep_link_responses: list[dict[str, Any]] = field(default_factory=list)
    tokens: set[str] = field(default_factory=set)
    refused: list[str] = field(default_factory=list)
    storage: set[str] = field(default_factory=set)
    """The login hints whose course page offers platform storage (``lti_storage_target``)."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    members: list[dict[str, Any]] = field(
        default_factory=lambda: [
            {"user_id": "s1", "roles": [LEARNER], "status": "Active"},
            {"user_id": "s2", "roles": [LEARNER]},
            {"user_id": "s3", "roles": [LEARNER], "status": "Inactive"},
            {"user_id": "t1", "roles": [INSTRUCTOR], "status": "Active"},
            {"user_id": "s4", "roles": [LEARNER], "status": "Active"},
        ]
    )
    """The course's roster, served two members a page."""
    fail_scores: int = 0
    """How many score posts to refuse (503) before taking them: a platform that is down for a while."""

    @property
    def issuer(self) -> str:
        """The platform's ``iss``: its own URL."""
        return self.url

    @property
    def kid(self) -> str:
        """Its key's id."""
        return public_jwk(self.key.public_key())["kid"]

    def jwks(self) -> dict[str, Any]:
        """Its public keys."""
        return {"keys": [public_jwk(self.key.public_key())]}

    def lineitem(self, name: str = "1") -> str:
        """The URL of one of its line items."""
        return f"{self.url}/lineitems/{name}"

    def claims(
        self,
        sub: str = "student-1",
        roles: tuple[str, ...] = (LEARNER,),
        target: str = "",
        context: str = "course-1",
        message_type: str = RESOURCE_LINK,
        custom: dict[str, str] | None = None,
        lineitem: str | None = "1",
        roster: bool = False,
    ) -> dict[str, Any]:
        """The LTI claims of one launch (without nonce and times, which the login adds)."""
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "aud": self.client_id,
            "sub": sub,
            CLAIM + "message_type": message_type,
            CLAIM + "version": "1.3.0",
            CLAIM + "deployment_id": self.deployment_id,
            CLAIM + "roles": list(roles),
            CLAIM + "context": {"id": context, "title": f"Course {context}"},
            CLAIM + "target_link_uri": target or f"{self.tool_url}/lti/launch",
        }
        if message_type == RESOURCE_LINK:
            claims[CLAIM + "resource_link"] = {"id": f"link-{secrets.token_hex(4)}"}
            if lineitem is not None:
                claims["https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"] = {
                    "scope": [SCORE_SCOPE],
                    "lineitem": self.lineitem(lineitem),
                }
        if message_type == DEEP_LINKING:
            claims["https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"] = {
                "deep_link_return_url": f"{self.url}/deep_link_return",
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe", "window"],
                "accept_multiple": True,
                "accept_lineitem": True,
                "data": "platform-data-123",
            }
        if custom:
            claims[CLAIM + "custom"] = custom
        if roster:
            claims["https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"] = {
                "context_memberships_url": f"{self.url}/memberships?page=0",
                "service_versions": ["2.0"],
            }
        return claims

    def sign(self, claims: dict[str, Any], lifetime_s: int = 300, key=None, kid: str | None = None) -> str:
        """An id_token: ``claims`` with ``iat`` and ``exp``, signed RS256 with the platform's key (or ``key``)."""
        now = int(time.time())
        body = {"iat": now, "exp": now + lifetime_s, **claims}
        return jwt.encode(body, key or self.key, algorithm="RS256", headers={"kid": kid or self.kid})

    def prepare(self, hint: str, claims: dict[str, Any]) -> None:
        """The launch the next login with ``login_hint=hint`` gets."""
        with self.lock:
            self.launches[hint] = claims

    def login_url(self, hint: str, target: str = "", storage: bool = False) -> str:
        """The tool's login, as the platform starts it for the launch prepared under ``hint`` (offering storage)."""
        query = {
            "iss": self.issuer,
            "login_hint": hint,
            "target_link_uri": target or f"{self.tool_url}/lti/launch",
            "client_id": self.client_id,
            "lti_message_hint": f"message-{hint}",
            "lti_deployment_id": self.deployment_id,
        }
        if storage:
            query["lti_storage_target"] = "_parent"
        return f"{self.tool_url}/lti/login?{urlencode(query)}"

    def tool_keys(self) -> dict[str, jwt.PyJWK]:
        """The tool's public keys, fetched from its ``/lti/jwks`` (as a platform does)."""
        with urllib.request.urlopen(f"{self.tool_url}/lti/jwks", timeout=30) as answer:
            data = json.loads(answer.read())
        return {key["kid"]: jwt.PyJWK(key) for key in data["keys"]}

    def registration(self, folder: Path, tool_keys: Path | None = None) -> Path:
        """Write the tool's LTI configuration for this platform (keys made in ``folder/keys``); its path."""
        keys = tool_keys or folder / "keys"
        if not (keys / "private.pem").exists():
            make_key_pair(keys)
        config = {
            self.issuer: [
                {
                    "default": True,
                    "client_id": self.client_id,
                    "auth_login_url": f"{self.url}/auth",
                    "auth_token_url": f"{self.url}/token",
                    "key_set_url": f"{self.url}/jwks",
                    "private_key_file": str(keys / "private.pem"),
                    "public_key_file": str(keys / "public.pem"),
                    "deployment_ids": [self.deployment_id],
                }
            ]
        }
        path = folder / "lti.json"
        path.write_text(json.dumps(config, indent=2))
        return path


class _Handler(RequestHandler):
    def initialize(self, platform: Platform) -> None:
        self.platform = platform

    def refuse(self, status: int, why: str) -> None:
        self.platform.refused.append(why)
        self.set_status(status)
        self.finish(why)


class JwksHandler(_Handler):
    def get(self) -> None:
        self.finish(self.platform.jwks())


class AuthHandler(_Handler):
    """The OIDC authorization endpoint: checks the tool's request, answers with the id_token form post."""

    def get(self) -> None:
        p = self.platform
        arg = self.get_query_argument
        wanted = {
            "scope": "openid",
            "response_type": "id_token",
            "response_mode": "form_post",
            "prompt": "none",
            "client_id": p.client_id,
            "redirect_uri": f"{p.tool_url}/lti/launch",
        }
        for name, value in wanted.items():
            if arg(name, "") != value:
                self.refuse(400, f"auth: {name} is {arg(name, '')!r}, not {value!r}")
                return
        hint = arg("login_hint", "")
        if arg("lti_message_hint", "") != f"message-{hint}":
            self.refuse(400, "auth: lti_message_hint not passed back")
            return
        with p.lock:
            claims = p.launches.get(hint)
        if claims is None or not arg("nonce", "") or not arg("state", ""):
            self.refuse(400, "auth: no launch prepared for this login_hint, or no nonce/state")
            return
        token = p.sign({**claims, "nonce": arg("nonce")})
        storage = "<input type='hidden' name='lti_storage_target' value='_parent'>" if hint in p.storage else ""
        self.finish(
            "<!doctype html><html><body><form id='launch' method='post' "
            f"action='{html.escape(arg('redirect_uri'))}'>"
            f"<input type='hidden' name='id_token' value='{html.escape(token)}'>"
            f"<input type='hidden' name='state' value='{html.escape(arg('state'))}'>{storage}"
            "</form><script>document.getElementById('launch').submit()</script></body></html>"
        )


class TokenHandler(_Handler):
    """The OAuth 2 token endpoint: a client-credentials grant with the tool's signed JWT assertion."""

    def post(self) -> None:
        p = self.platform
        arg = self.get_body_argument
        if arg("grant_type", "") != "client_credentials" or arg("client_assertion_type", "") != (
            "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
        ):
            self.refuse(400, "token: not a client-credentials grant with a JWT assertion")
            return
        assertion = arg("client_assertion", "")
        try:
            kid = jwt.get_unverified_header(assertion).get("kid")
            key = p.tool_keys()[kid]
            claims = jwt.decode(assertion, key, algorithms=["RS256"], audience=f"{p.url}/token")
        except (jwt.InvalidTokenError, KeyError) as error:
            self.refuse(401, f"token: the assertion does not verify ({type(error).__name__})")
            return
        if claims.get("iss") != p.client_id or claims.get("sub") != p.client_id:
            self.refuse(401, "token: the assertion is not the client's")
            return
        if not {SCORE_SCOPE, ROSTER_SCOPE} & set(arg("scope", "").split()):
            self.refuse(400, "token: neither the score nor the roster scope asked")
            return
        token = secrets.token_urlsafe(16)
        with p.lock:
            p.tokens.add(token)
        self.finish({"access_token": token, "token_type": "Bearer", "expires_in": 3600, "scope": arg("scope")})


class ScoresHandler(_Handler):
    """``/lineitems/<id>/scores``: records what the tool posts with a token this platform issued."""

    def post(self, lineitem: str) -> None:
        p = self.platform
        scheme, _, token = (self.request.headers.get("Authorization") or "").partition(" ")
        with p.lock:
            known = scheme == "Bearer" and token in p.tokens
            failing = p.fail_scores > 0
            if known and failing:
                p.fail_scores -= 1
        if not known:
            self.refuse(401, "scores: no valid token")
            return
        if self.request.headers.get("Content-Type") != "application/vnd.ims.lis.v1.score+json":
            self.refuse(415, "scores: wrong content type")
            return
        if failing:
            self.refuse(503, "scores: down for now")
            return
        body = json.loads(self.request.body)
        with p.lock:
            p.scores.append({"lineitem": lineitem, **body})
        self.set_status(204)
        self.finish()


class MembershipsHandler(_Handler):
    """``/memberships?page=N``: the course's roster, two members a page, linked by ``rel="next"``."""

    def get(self) -> None:
        p = self.platform
        scheme, _, token = (self.request.headers.get("Authorization") or "").partition(" ")
        with p.lock:
            known = scheme == "Bearer" and token in p.tokens
        if not known:
            self.refuse(401, "memberships: no valid token")
            return
        number = int(self.get_query_argument("page", "0"))
        members = p.members[2 * number : 2 * number + 2]
        if 2 * number + 2 < len(p.members):
            self.set_header("Link", f'<{p.url}/memberships?page={number + 1}>; rel="next"')
        self.set_header("Content-Type", "application/vnd.ims.lti-nrps.v2.membershipcontainer+json")
        self.finish(json.dumps({"id": "roster", "context": {"id": "course-1"}, "members": members}))


class DeepLinkReturnHandler(_Handler):
    """``/deep_link_return``: a deep-linking response, verified against the tool's keys, recorded."""

    def post(self) -> None:
        p = self.platform
        token = self.get_body_argument("JWT", "")
        try:
            kid = jwt.get_unverified_header(token).get("kid")
            claims = jwt.decode(token, p.tool_keys()[kid], algorithms=["RS256"], audience=p.issuer)
        except (jwt.InvalidTokenError, KeyError) as error:
            self.refuse(401, f"deep link: the response does not verify ({type(error).__name__})")
            return
        with p.lock:
            p.deep_link_responses.append(claims)
        items = claims.get("https://purl.imsglobal.org/spec/lti-dl/claim/content_items", [])
        titles = "".join(f"<li>{html.escape(str(item.get('title')))}</li>" for item in items)
        self.finish(f"<!doctype html><html><body><h1>Content added</h1><ul>{titles}</ul></body></html>")


class CourseHandler(_Handler):
    """``/course?hint=…``: an LMS course page that shows the tool in a frame."""

    def get(self) -> None:
        p = self.platform
        hint = self.get_query_argument("hint")
        target = self.get_query_argument("target", "")
        storage = self.get_query_argument("storage", "") == "1"
        if storage:
            with p.lock:
                p.storage.add(hint)
        src = html.escape(p.login_url(hint, target, storage))
        tool = json.dumps(origin_of(p.tool_url))
        script = STORAGE_SCRIPT.replace("TOOL_ORIGIN", tool) if storage else ""
        self.finish(
            "<!doctype html><html><head><title>Course</title></head><body><h1>The course</h1>"
            f"{script}<iframe title='Overlap Lab' src='{src}' width='1200' height='900' "
            "allow='clipboard-write'></iframe></body></html>"  # the listener is in place before the frame loads
        )


STORAGE_SCRIPT = """<script>
(function () {
  var kept = {};
  window.addEventListener('message', function (event) {
    var data = event.data || {};
    if (event.origin !== TOOL_ORIGIN || !data.message_id) { return; }
    var reply = {subject: data.subject + '.response', message_id: data.message_id, key: data.key};
    if (data.subject === 'lti.put_data') { kept[data.key] = data.value; reply.value = data.value; }
    else if (data.subject === 'lti.get_data') { reply.value = kept[data.key]; }
    else { return; }
    window.PLATFORM_STORAGE_USED = (window.PLATFORM_STORAGE_USED || 0) + 1;
    event.source.postMessage(reply, event.origin);
  });
})();
</script>"""
"""The LMS page's side of platform storage (LTI Client Side postMessages): put and get, for the tool's origin alone."""


@contextmanager
def running_platform(tool_url: str = "") -> Iterator[Platform]:
    """Serve a :class:`Platform` on a free loopback port for the block; ``tool_url`` may be set later."""
    platform = Platform(tool_url=tool_url)
    kwargs = {"platform": platform}
    routes = [
        (r"/jwks", JwksHandler, kwargs),
        (r"/auth", AuthHandler, kwargs),
        (r"/token", TokenHandler, kwargs),
        (r"/lineitems/([^/]+)/scores", ScoresHandler, kwargs),
        (r"/deep_link_return", DeepLinkReturnHandler, kwargs),
        (r"/memberships", MembershipsHandler, kwargs),
        (r"/course", CourseHandler, kwargs),
    ]
    with serving(routes) as url:
        platform.url = url
        yield platform
