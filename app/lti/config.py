"""The tool's registrations with its platforms, read from a JSON file in ``pylti1p3``'s ToolConfJsonFile convention.

The file maps each platform's issuer to a list of registrations (or one registration)::

    {
      "https://canvas.instructure.com": [{
        "default": true,
        "client_id": "10000000000001",
        "auth_login_url": "https://sso.canvaslms.com/api/lti/authorize_redirect",
        "auth_token_url": "https://sso.canvaslms.com/login/oauth2/token",
        "key_set_url": "https://sso.canvaslms.com/api/lti/security/jwks",
        "private_key_file": "keys/private.pem",
        "public_key_file": "keys/public.pem",
        "deployment_ids": ["1:abcdef"],
        "frame_origins": ["https://school.instructure.com"]
      }]
    }

``key_set`` (a JWK set written out) may stand for ``key_set_url``. Key files are read relative to
the configuration file. ``frame_origins`` (this project's addition; pylti1p3 ignores it) names the
sites that show the tool in a frame when they differ from the issuer's and the login URL's origins
(Canvas: the school's own domain). Every problem is a :class:`ConfigError` whose message is one
line naming the file and the field.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey, RSAPublicKey
from jwt.algorithms import RSAAlgorithm

MAX_CONFIG_BYTES = 1_000_000
"""The largest configuration file read (a real one is a few kilobytes)."""


class ConfigError(ValueError):
    """The LTI configuration cannot be used; the message says, in one line, what is wrong and where."""


@dataclass(frozen=True)
class Registration:
    """The tool registered with one platform under one client id.

    Parameters
    ----------
    issuer : str
        The platform's ``iss``.
    client_id : str
        The tool's id on the platform (the ``aud`` of its id_tokens).
    auth_login_url, auth_token_url : str
        The platform's OIDC authorization endpoint and its OAuth 2 token endpoint.
    key_set_url : str or None
        Where the platform publishes its public keys (a JWK set); or ``key_set`` itself.
    key_set : dict or None
        The platform's JWK set, written into the configuration.
    private_key : RSAPrivateKey
        The tool's signing key (its client assertions, deep-linking responses).
    public_key : RSAPublicKey
        Its public half, published at ``/lti/jwks``.
    deployment_ids : tuple of str
        The deployments of the tool this registration accepts.
    frame_origins : tuple of str
        The origins that may show the tool's pages in a frame.
    """

    issuer: str
    client_id: str
    auth_login_url: str
    auth_token_url: str
    key_set_url: str | None
    key_set: dict | None
    private_key: RSAPrivateKey = field(repr=False)
    public_key: RSAPublicKey = field(repr=False)
    deployment_ids: tuple[str, ...]
    frame_origins: tuple[str, ...]
    default: bool = False

    @property
    def kid(self) -> str:
        """The tool key's id: its RFC 7638 thumbprint (SHA-256 of the key's required members), base64url."""
        return key_id(self.public_key)

    def public_jwk(self) -> dict[str, str]:
        """The tool's public key as a JWK with ``kid``, ``alg`` RS256 and ``use`` sig."""
        return public_jwk(self.public_key)


def key_id(public_key: RSAPublicKey) -> str:
    """The RFC 7638 thumbprint of an RSA public key, used as its ``kid``."""
    jwk = RSAAlgorithm.to_jwk(public_key, as_dict=True)
    canonical = json.dumps({name: jwk[name] for name in ("e", "kty", "n")}, separators=(",", ":"), sort_keys=True)
    digest = hashlib.sha256(canonical.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def public_jwk(public_key: RSAPublicKey) -> dict[str, str]:
    """An RSA public key as a JWK: ``kty``, ``n``, ``e``, ``kid``, ``alg`` and ``use``."""
    jwk = RSAAlgorithm.to_jwk(public_key, as_dict=True)
    return {**jwk, "kid": key_id(public_key), "alg": "RS256", "use": "sig"}


@dataclass(frozen=True)
class ToolConfig:
    """Every registration of the tool, by issuer.

    Parameters
    ----------
    path : Path
        The file it was read from.
    registrations : dict of str to tuple of Registration
        The issuer's registrations, in the file's order.
    """

    path: Path
    registrations: dict[str, tuple[Registration, ...]]

    def find(self, issuer: str, client_id: str | None) -> Registration | None:
        """The registration for ``issuer`` and ``client_id``; without a client id, the issuer's default or only one."""
        found = self.registrations.get(issuer, ())
        if client_id:
            return next((r for r in found if r.client_id == client_id), None)
        defaults = [r for r in found if r.default]
        if defaults:
            return defaults[0]
        return found[0] if len(found) == 1 else None

    def all(self) -> list[Registration]:
        """Every registration, issuer by issuer."""
        return [r for found in self.registrations.values() for r in found]

    def frame_origins(self) -> list[str]:
        """Every origin that may frame the tool's pages: issuers, login URLs' origins, ``frame_origins``."""
        origins: dict[str, None] = {}
        for registration in self.all():
            for url in (registration.issuer, registration.auth_login_url, *registration.frame_origins):
                origin = origin_of(url)
                if origin:
                    origins[origin] = None
        return list(origins)

    def public_keys(self) -> dict[str, list[dict[str, str]]]:
        """The tool's public keys as a JWK set, each key once."""
        keys: dict[str, dict[str, str]] = {}
        for registration in self.all():
            keys.setdefault(registration.kid, registration.public_jwk())
        return {"keys": list(keys.values())}


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a URL, or ``""`` when it has none."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return ""
    return f"{parts.scheme}://{parts.netloc}"


def _text(entry: dict, name: str, where: str, required: bool = True) -> str | None:
    value = entry.get(name)
    if value is None or value == "":
        if required:
            raise ConfigError(f"{where}: '{name}' is missing")
        return None
    if not isinstance(value, str):
        raise ConfigError(f"{where}: '{name}' must be text, not {type(value).__name__}")
    return value


def _url(entry: dict, name: str, where: str, required: bool = True) -> str | None:
    value = _text(entry, name, where, required)
    if value is not None and not origin_of(value):
        raise ConfigError(f"{where}: '{name}' is not an http(s) URL: {value[:80]!r}")
    return value


def _read_key(folder: Path, entry: dict, name: str, where: str, private: bool) -> Any:
    file_name = _text(entry, name, where)
    path = (folder / file_name).resolve()
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ConfigError(f"{where}: '{name}' {str(path)!r} cannot be read ({error.strerror or error})") from None
    try:
        if private:
            key = serialization.load_pem_private_key(data, password=None)
        else:
            key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError) as error:
        kind = "private" if private else "public"
        raise ConfigError(f"{where}: '{name}' {str(path)!r} is not an unencrypted PEM {kind} key ({error})") from None
    wanted = RSAPrivateKey if private else RSAPublicKey
    if not isinstance(key, wanted):
        raise ConfigError(f"{where}: '{name}' {str(path)!r} is not an RSA key (LTI 1.3 signs with RS256)")
    if key.key_size < 2048:
        raise ConfigError(f"{where}: '{name}' {str(path)!r} is a {key.key_size}-bit key; use at least 2048 bits")
    return key


def _registration(folder: Path, issuer: str, entry: object, where: str) -> Registration:
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: a registration must be a JSON object")
    key_set = entry.get("key_set")
    key_set_url = _url(entry, "key_set_url", where, required=key_set is None)
    if key_set is not None and not (isinstance(key_set, dict) and isinstance(key_set.get("keys"), list)):
        raise ConfigError(f"{where}: 'key_set' must be a JWK set, an object with a 'keys' list")
    deployments = entry.get("deployment_ids")
    if not isinstance(deployments, list) or not deployments or not all(isinstance(d, str) and d for d in deployments):
        raise ConfigError(f"{where}: 'deployment_ids' must be a non-empty list of texts")
    frames = entry.get("frame_origins", [])
    if not isinstance(frames, list) or not all(isinstance(o, str) and origin_of(o) for o in frames):
        raise ConfigError(f"{where}: 'frame_origins' must be a list of origins like https://school.example.edu")
    private_key = _read_key(folder, entry, "private_key_file", where, private=True)
    public_key = _read_key(folder, entry, "public_key_file", where, private=False)
    if private_key.public_key().public_numbers() != public_key.public_numbers():
        raise ConfigError(f"{where}: 'public_key_file' is not the public half of 'private_key_file'")
    return Registration(
        issuer=issuer,
        client_id=_text(entry, "client_id", where),
        auth_login_url=_url(entry, "auth_login_url", where),
        auth_token_url=_url(entry, "auth_token_url", where),
        key_set_url=key_set_url,
        key_set=key_set,
        private_key=private_key,
        public_key=public_key,
        deployment_ids=tuple(deployments),
        frame_origins=tuple(frames),
        default=entry.get("default") is True,
    )


def load_config(path: str | Path) -> ToolConfig:
    """Read and check the tool's configuration.

    Parameters
    ----------
    path : str or Path
        The JSON file.

    Returns
    -------
    ToolConfig
        Every registration, its keys loaded.

    Raises
    ------
    ConfigError
        With one line saying what is wrong: the file missing or not JSON, a field missing or of the
        wrong kind, a key file unreadable or not an RSA key of at least 2048 bits.
    """
    path = Path(path)
    try:
        if path.stat().st_size > MAX_CONFIG_BYTES:
            raise ConfigError(f"{path}: larger than {MAX_CONFIG_BYTES:,} bytes; is it the LTI configuration?")
        raw = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"{path}: cannot be read ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: is not UTF-8 text") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as error:
        raise ConfigError(f"{path}: not JSON (line {error.lineno}, column {error.colno}: {error.msg})") from None
    if not isinstance(data, dict) or not data:
        raise ConfigError(f"{path}: must be a JSON object mapping each issuer to its registrations")
    registrations: dict[str, tuple[Registration, ...]] = {}
    for issuer, entries in data.items():
        if not origin_of(issuer):
            raise ConfigError(f"{path}: the issuer {issuer[:80]!r} is not an http(s) URL")
        listed = entries if isinstance(entries, list) else [entries]
        if not listed:
            raise ConfigError(f"{path}: issuer {issuer!r} has no registration")
        found = tuple(
            _registration(path.parent, issuer, entry, f"{path}: issuer {issuer!r}, registration {n + 1}")
            for n, entry in enumerate(listed)
        )
        ids = [r.client_id for r in found]
        if len(set(ids)) != len(ids):
            raise ConfigError(f"{path}: issuer {issuer!r} lists a client_id twice")
        registrations[issuer] = found
    return ToolConfig(path=path, registrations=registrations)
