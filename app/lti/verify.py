"""A launch verified as LTI 1.3 says (IMS Security Framework 1.0 §5.1.3, LTI Core 1.3 §5.3), or refused with why.

:func:`verify_launch` takes what the platform posted (``id_token``, ``state``) and the browser's
login cookie (:func:`app.lti.handlers` set it at ``/lti/login``) and checks, in this order:

1. the ``state`` posted is the one this browser's login cookie holds (signed by the tool, not
   expired): the launch finishes the login this browser started;
2. the id_token is a JWT signed with RS256 (``alg: none`` and HMAC algorithms refused), its ``kid``
   in the platform's key set (fetched with a timeout and a size limit, cached, fetched again once
   for a key not seen yet: the platform rotated its keys), and the signature verifies;
3. ``iss`` is the issuer the login named, ``aud`` holds the client id, ``azp`` is the client id
   when there are several audiences (or whenever it is given), ``exp`` in the future and ``iat``
   not in it (:data:`LEEWAY_S` for clocks);
4. the ``nonce`` is the one this login sent, and is used for the first time (kept server-side until
   the token expires, :mod:`app.lti.store`);
5. the ``deployment_id`` is one the registration lists; the message type is a resource-link or a
   deep-linking request, the version 1.3.0; a resource-link launch names its link and its user.

Anything else raises :class:`LaunchRefused`, whose ``reason`` the refusal page shows and the log
line says. PyJWT does the signature and the registered claims; nothing here is cryptography.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jwt

from app.lti import CLAIM, DEEP_LINKING, RESOURCE_LINK, VERSION
from app.lti.config import Registration, ToolConfig
from app.lti.store import LtiState, StateUnavailable

LOG = logging.getLogger("app.lti")

LEEWAY_S = 60
"""Seconds of clock difference allowed on ``exp`` and ``iat``."""

KEY_SET_TIMEOUT_S = 5.0
"""How long a platform's key set may take to arrive."""

MAX_KEY_SET_BYTES = 256_000
"""The largest key set read (a real one is a few kilobytes)."""

KEY_SET_FRESH_S = 3600.0
"""How long a fetched key set is used before it is fetched again."""

REFETCH_AFTER_S = 10.0
"""An unknown ``kid`` fetches the key set again only if the last fetch is at least this old (no flood)."""

LOGIN_COOKIE_S = 600
"""How long a login (its state cookie) may take to come back as a launch."""

STATE_COOKIE_PREFIX = "lti1p3-state-"
"""The login cookie's name starts with it, then the state's first characters (two launches at once keep theirs)."""


class LaunchRefused(Exception):
    """A launch that is not accepted: ``reason`` (one sentence, shown and logged) and the HTTP status."""

    def __init__(self, reason: str, status: int = 401) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status


def fetch_json(url: str, timeout_s: float = KEY_SET_TIMEOUT_S, max_bytes: int = MAX_KEY_SET_BYTES) -> Any:
    """GET a JSON document, within a timeout and a size limit.

    Raises
    ------
    OSError
        If it cannot be fetched in time, is larger than ``max_bytes`` or is not JSON (``ValueError``
        is turned into ``OSError``).
    """
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout_s) as answer:  # noqa: S310 (a configured https URL)
        body = answer.read(max_bytes + 1)
    if len(body) > max_bytes:
        raise OSError(f"larger than {max_bytes:,} bytes")
    try:
        return json.loads(body)
    except ValueError as error:
        raise OSError(f"not JSON ({error})") from None


class PlatformKeys:
    """The platforms' public keys by ``kid``, fetched from their key-set URLs and cached.

    Parameters
    ----------
    fetch : callable, optional
        ``fetch(url)`` gives the JWK set (:func:`fetch_json` by default).
    refetch_after_s : float, optional
        An unknown ``kid`` fetches the set again only if the last fetch is at least this old.
    """

    def __init__(self, fetch: Callable[[str], Any] = fetch_json, refetch_after_s: float = REFETCH_AFTER_S) -> None:
        self._fetch = fetch
        self.refetch_after_s = refetch_after_s
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[float, dict[str, jwt.PyJWK]]] = {}

    @staticmethod
    def _keys(key_set: Any) -> dict[str, jwt.PyJWK]:
        if not isinstance(key_set, dict) or not isinstance(key_set.get("keys"), list):
            raise OSError("not a JWK set (an object with a 'keys' list)")
        found = {}
        for data in key_set["keys"]:
            if not isinstance(data, dict) or data.get("kty") != "RSA" or data.get("use", "sig") != "sig":
                continue
            try:
                key = jwt.PyJWK(data, algorithm="RS256")
            except (jwt.PyJWKError, jwt.InvalidKeyError, ValueError, TypeError):
                continue  # a key this tool cannot use: skipped, the others still count
            found[str(data.get("kid", ""))] = key
        return found

    def _fetched(self, url: str) -> dict[str, jwt.PyJWK]:
        try:
            keys = self._keys(self._fetch(url))
        except OSError as error:
            LOG.warning("LTI: the platform's key set %s cannot be fetched: %s", url, error)
            raise LaunchRefused("the platform's public keys cannot be fetched now; try the launch again") from None
        with self._lock:
            self._cache[url] = (time.monotonic(), keys)
        return keys

    def key_for(self, registration: Registration, kid: str | None) -> jwt.PyJWK:
        """The platform's key that signed a token (its header's ``kid``).

        Raises
        ------
        LaunchRefused
            If the platform has no such key (after fetching its set again once) or the set cannot
            be fetched.
        """
        kid = kid or ""
        if registration.key_set is not None:
            keys = self._keys(registration.key_set)
        else:
            url = registration.key_set_url or ""
            with self._lock:
                held = self._cache.get(url)
            now = time.monotonic()
            if held is None or now - held[0] > KEY_SET_FRESH_S:
                keys = self._fetched(url)
            else:
                keys = held[1]
                if kid not in keys and now - held[0] >= self.refetch_after_s:
                    keys = self._fetched(url)  # rotated: the new key is in the set published now
        if kid in keys:
            return keys[kid]
        if not kid and len(keys) == 1:
            return next(iter(keys.values()))
        raise LaunchRefused("the id_token is signed with a key the platform does not publish")


@dataclass(frozen=True)
class Launch:
    """A verified launch: the registration it came through and the id_token's claims."""

    registration: Registration
    claims: dict[str, Any]

    @property
    def message_type(self) -> str:
        """``LtiResourceLinkRequest`` or ``LtiDeepLinkingRequest``."""
        return self.claims[CLAIM + "message_type"]

    @property
    def deployment_id(self) -> str:
        """The deployment the launch came through."""
        return self.claims[CLAIM + "deployment_id"]

    def claim(self, name: str, default: Any = None) -> Any:
        """An LTI claim by its short name (``"context"``, ``"roles"``, ``"custom"``, ...)."""
        return self.claims.get(CLAIM + name, default)


def login_cookie(state: str, nonce: str, registration: Registration, secret: bytes, now: float | None = None) -> str:
    """The value of the login cookie: the state, nonce, issuer and client id, signed by the tool (HS256)."""
    now = time.time() if now is None else now
    claims = {
        "state": state,
        "nonce": nonce,
        "iss": registration.issuer,
        "client_id": registration.client_id,
        "exp": int(now + LOGIN_COOKIE_S),
    }
    return jwt.encode(claims, secret, algorithm="HS256")


def cookie_name(state: str) -> str:
    """The login cookie's name for one state."""
    return STATE_COOKIE_PREFIX + state[:16]


def _login(cookie: str | None, state: str, secret: bytes) -> dict[str, Any]:
    if not cookie:
        raise LaunchRefused(
            "this browser has no login for this launch (its login cookie is missing: the launch came from "
            "elsewhere, took too long, or the browser blocks the tool's cookies in the course's frame)"
        )
    try:
        login = jwt.decode(cookie, secret, algorithms=["HS256"], options={"require": ["exp", "state", "nonce"]})
    except jwt.ExpiredSignatureError:
        raise LaunchRefused("the login took too long; open the link in your course again") from None
    except jwt.InvalidTokenError:
        raise LaunchRefused("this browser's login cookie is not one this tool made") from None
    if login.get("state") != state:
        raise LaunchRefused("the launch's state is not the one this browser's login sent")
    return login


def verify_launch(
    config: ToolConfig,
    keys: PlatformKeys,
    state_store: LtiState,
    id_token: str | None,
    state: str | None,
    cookie: str | None,
    secret: bytes,
) -> Launch:
    """Verify one launch (see the module's docstring for every check, in order).

    Parameters
    ----------
    config : ToolConfig
        The tool's registrations.
    keys : PlatformKeys
        The platforms' key sets.
    state_store : LtiState
        Where used nonces are kept.
    id_token, state : str or None
        The form fields the platform posted.
    cookie : str or None
        This browser's login cookie for ``state`` (:func:`cookie_name`).
    secret : bytes
        The key the tool signs its login cookies with.

    Returns
    -------
    Launch
        The registration and the verified claims.

    Raises
    ------
    LaunchRefused
        With the reason, for anything the spec does not accept.
    """
    if not id_token or not state:
        raise LaunchRefused("the launch carries no id_token or no state: it did not come from a course's login", 400)
    login = _login(cookie, state, secret)
    try:
        header = jwt.get_unverified_header(id_token)
    except jwt.InvalidTokenError:
        raise LaunchRefused("the id_token is not a JWT", 400) from None
    if header.get("alg") != "RS256":
        raise LaunchRefused(f"the id_token is signed with {str(header.get('alg'))[:20]!r}; LTI 1.3 needs RS256")
    registration = config.find(str(login.get("iss", "")), str(login.get("client_id", "")))
    if registration is None:
        raise LaunchRefused("the login names a platform this tool is no longer registered with")
    key = keys.key_for(registration, header.get("kid"))
    try:
        claims = jwt.decode(
            id_token,
            key,
            algorithms=["RS256"],
            audience=registration.client_id,
            issuer=registration.issuer,
            leeway=LEEWAY_S,
            options={"require": ["exp", "iat", "iss", "aud", "nonce"]},
        )
    except jwt.InvalidSignatureError:
        raise LaunchRefused("the id_token's signature does not verify with the platform's key") from None
    except jwt.ExpiredSignatureError:
        raise LaunchRefused("the id_token has expired") from None
    except jwt.InvalidAudienceError:
        raise LaunchRefused("the id_token is not for this tool (its aud does not name this client id)") from None
    except jwt.InvalidIssuerError:
        raise LaunchRefused("the id_token's issuer is not the platform this login started with") from None
    except (jwt.ImmatureSignatureError, jwt.InvalidIssuedAtError):
        raise LaunchRefused("the id_token is issued in the future (check the platform's clock)") from None
    except jwt.MissingRequiredClaimError as missing:
        raise LaunchRefused(f"the id_token has no {missing.claim!r} claim") from None
    except jwt.InvalidTokenError as error:
        raise LaunchRefused(f"the id_token is not valid ({type(error).__name__})") from None
    audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
    azp = claims.get("azp")
    if (len(audiences) > 1 or azp is not None) and azp != registration.client_id:
        raise LaunchRefused("the id_token's azp is not this tool's client id")
    if claims.get("nonce") != login.get("nonce"):
        raise LaunchRefused("the id_token's nonce is not the one this browser's login sent")
    deployment = claims.get(CLAIM + "deployment_id")
    if deployment not in registration.deployment_ids:
        raise LaunchRefused("the launch comes from a deployment this tool is not registered for")
    kind = claims.get(CLAIM + "message_type")
    if kind not in (RESOURCE_LINK, DEEP_LINKING):
        raise LaunchRefused(f"the message type {str(kind)[:40]!r} is not one this tool answers", 400)
    if claims.get(CLAIM + "version") != VERSION:
        raise LaunchRefused(f"the LTI version {str(claims.get(CLAIM + 'version'))[:20]!r} is not 1.3.0", 400)
    if kind == RESOURCE_LINK:
        link = claims.get(CLAIM + "resource_link")
        if not isinstance(link, dict) or not link.get("id"):
            raise LaunchRefused("the launch names no resource link", 400)
        if not isinstance(claims.get("sub"), str) or not claims["sub"]:
            raise LaunchRefused("the launch names no user (an anonymous launch cannot do an exercise)", 400)
    if kind == DEEP_LINKING:
        settings = claims.get(DL_SETTINGS)
        if not isinstance(settings, dict) or not isinstance(settings.get("deep_link_return_url"), str):
            raise LaunchRefused("the deep-linking request has no return URL", 400)
    try:
        fresh = state_store.use_nonce(str(claims["nonce"]), float(claims["exp"]) + LEEWAY_S)
    except StateUnavailable as problem:
        LOG.error("LTI: the nonce cannot be recorded: %s", problem)
        raise LaunchRefused("the tool cannot record this launch now; try again in a moment", 503) from None
    if not fresh:
        raise LaunchRefused("this id_token was already used (a replayed launch)")
    return Launch(registration, claims)


DL_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
