"""The process's LTI tool: its configuration, its state and its keys, set once at start-up.

``python -m app --lti-config PATH`` (or ``LTI_CONFIG``) calls :func:`configure` before the server
starts (and before ``--num-procs`` forks), so every process holds the same tool. Nothing in it
changes per session: sessions read it through :func:`current_tool`.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from pathlib import Path

from app.lti.config import ToolConfig, load_config
from app.lti.store import DatabaseState, LtiState, MemoryState
from app.lti.verify import PlatformKeys

SCORE_MODES = ("participation", "correctness")
"""``--lti-score``: 1 of 1 for an exercise done (default), or 1 or 0 by the first locked prediction."""


@dataclass
class Tool:
    """The tool as this process serves it.

    Parameters
    ----------
    config : ToolConfig
        The registrations.
    state : LtiState
        Nonces, launch codes and scores (the class database when the class is on).
    secret : bytes
        The key the login cookies are signed with (derived from the sessions' signing key, so every
        process and replica that shares that key accepts the others' logins).
    score_mode : str
        One of :data:`SCORE_MODES`.
    keys : PlatformKeys
        The platforms' key sets, cached.
    """

    config: ToolConfig
    state: LtiState
    secret: bytes = field(repr=False)
    score_mode: str = "participation"
    keys: PlatformKeys = field(default_factory=PlatformKeys)
    shared: bool = False
    """Whether ``state`` is the class database (every process sees the same launches and scores)."""


_tool: Tool | None = None


def derive_secret(session_secret: bytes) -> bytes:
    """The login cookies' key, derived from the sessions' signing key (HMAC-SHA256, a fixed label)."""
    return hmac.new(session_secret, b"overlap-lab lti login cookie", hashlib.sha256).digest()


def configure(
    path: str | Path | None, session_secret: bytes, class_engine=None, score_mode: str = "participation"
) -> Tool | None:
    """Load the configuration and set up this process's tool (None: LTI off).

    Parameters
    ----------
    path : str or Path or None
        The JSON configuration; None or empty turns LTI off.
    session_secret : bytes
        The sessions' signing key (:func:`app.web.session_signing.session_secret`).
    class_engine : sqlalchemy.Engine, optional
        The class database's engine when the class is on: launches and scores are kept there.
    score_mode : str
        One of :data:`SCORE_MODES`.

    Returns
    -------
    Tool or None
        The tool every session and handler of this process uses.

    Raises
    ------
    app.lti.config.ConfigError
        If the file cannot be used (one line saying why).
    app.lti.store.StateUnavailable
        If the class database cannot hold the LTI tables.
    """
    global _tool
    if not path:
        _tool = None
        return None
    config = load_config(path)
    state: LtiState = DatabaseState(class_engine) if class_engine is not None else MemoryState()
    _tool = Tool(
        config=config,
        state=state,
        secret=derive_secret(session_secret),
        score_mode=score_mode,
        shared=class_engine is not None,
    )
    return _tool


def set_tool(tool: Tool | None) -> None:
    """Use ``tool`` in this process (tests that build one themselves)."""
    global _tool
    _tool = tool


def current_tool() -> Tool | None:
    """The process's tool, or None when LTI is off."""
    return _tool
