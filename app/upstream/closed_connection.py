"""A fix for Bokeh 3.9's websocket handler: a connection its keep-alive ping already let go of, closed without an error.

Every few seconds Bokeh's server pings each open connection (``BokehTornado._keep_alive``). A ping that
meets a websocket already closing raises ``WebSocketClosedError``; Bokeh then calls ``client_lost``,
which detaches the connection from its session (``ServerConnection.detach_session``). Tornado, having
read the close, then calls the handler's ``on_close``, and Bokeh's asks ``connection.session``, which
asserts that the session is still attached: an ``AssertionError`` and a traceback in the server's log
("Uncaught exception GET /lab/ws?…"). Nothing else is lost (``client_lost`` has run already), but a
server with a lecture hall on it, where tabs close every second, logs it now and then, and so did a
busy run of the test suite (whose server log must hold no traceback).

:func:`install` wraps ``WSHandler.on_close``: a connection already detached from its session is done
with; any other closes as Bokeh closes it.
"""

from __future__ import annotations

import logging

from bokeh.server.connection import ServerConnection
from bokeh.server.views.ws import WSHandler

LOG = logging.getLogger("app.upstream.closed_connection")

_ORIGINAL = None
"""Bokeh's ``WSHandler.on_close``, kept by :func:`install` (read then, never at import)."""


def detached(connection: object) -> bool:
    """Whether ``connection`` was already let go of (``client_lost``: its session detached).

    Parameters
    ----------
    connection : object
        A handler's ``connection``: a ``ServerConnection``, or None before the websocket opened.

    Returns
    -------
    bool
        True for a ``ServerConnection`` whose session is gone.
    """
    return isinstance(connection, ServerConnection) and connection.__dict__.get("_session", True) is None


def on_close(self: WSHandler) -> None:
    """Bokeh's ``on_close``, unless the keep-alive ping already let the connection go."""
    if detached(getattr(self, "connection", None)):
        LOG.debug("websocket closed after the keep-alive ping let its connection go: nothing left to do")
        return
    _ORIGINAL(self)


def applies() -> str:
    """Why the fix cannot be installed here, or ``""``.

    Returns
    -------
    str
        Empty where Bokeh's handler closes with ``on_close`` and a connection keeps its session as
        ``_session`` (set to None by ``detach_session``).
    """
    if not callable(WSHandler.__dict__.get("on_close")):
        return "bokeh.server.views.ws.WSHandler has no on_close to wrap"
    if not callable(getattr(ServerConnection, "detach_session", None)):
        return "bokeh.server.connection.ServerConnection has no detach_session"
    return ""


def install() -> None:
    """Close a connection the keep-alive ping let go of without reading its session (idempotent)."""
    global _ORIGINAL
    if _ORIGINAL is None:
        _ORIGINAL = WSHandler.__dict__["on_close"]
        WSHandler.on_close = on_close
