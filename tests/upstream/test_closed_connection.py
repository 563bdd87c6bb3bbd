"""app.upstream.closed_connection: a websocket closed after Bokeh's keep-alive ping let its connection go.

Bokeh's own objects, as its server makes them: a session on a document, its connection, and the
application's ``client_lost`` (what ``BokehTornado._keep_alive`` calls when a ping meets a closing
websocket). The handler is Bokeh's ``WSHandler`` without a live socket: ``on_close`` reads only its
``connection``, ``application`` and close code.
"""

from __future__ import annotations

import pytest
from bokeh.document import Document
from bokeh.protocol import Protocol
from bokeh.server.connection import ServerConnection
from bokeh.server.session import ServerSession
from bokeh.server.views.ws import WSHandler
from bokeh.util.token import generate_session_id

from app.upstream import closed_connection

BOKEH_ON_CLOSE = WSHandler.__dict__["on_close"] if closed_connection._ORIGINAL is None else closed_connection._ORIGINAL


class Application:
    """The part of Bokeh's ``BokehTornado`` a handler's close reaches: its clients and ``client_lost``."""

    def __init__(self) -> None:
        self.lost: list[ServerConnection] = []

    def client_lost(self, connection: ServerConnection) -> None:
        """As ``BokehTornado.client_lost``: forget the connection and detach it from its session."""
        self.lost.append(connection)
        connection.detach_session()


def open_handler() -> tuple[WSHandler, ServerSession, Application]:
    """A handler whose websocket opened: its connection subscribed to a session."""
    session = ServerSession(generate_session_id(), Document())
    handler = WSHandler.__new__(WSHandler)  # no socket: on_close reads only the attributes below
    handler.application = Application()
    handler.connection = ServerConnection(Protocol(), handler, None, session)
    handler.close_code, handler.close_reason = 1001, None
    return handler, session, handler.application


def test_bokeh_alone_raises_when_the_keep_alive_ping_let_the_connection_go_first():
    """Fails once Bokeh's ``on_close`` checks for a detached connection: delete the fix then."""
    handler, _session, application = open_handler()
    application.client_lost(handler.connection)  # the ping met the closing websocket
    with pytest.raises(AssertionError):
        BOKEH_ON_CLOSE(handler)


def test_with_the_fix_a_connection_already_let_go_closes_quietly_and_once(monkeypatch):
    monkeypatch.setattr(closed_connection, "_ORIGINAL", BOKEH_ON_CLOSE)
    handler, session, application = open_handler()
    application.client_lost(handler.connection)
    closed_connection.on_close(handler)
    assert application.lost == [handler.connection]  # not lost a second time
    assert session.connection_count == 0


def test_with_the_fix_any_other_connection_closes_as_bokeh_closes_it(monkeypatch):
    monkeypatch.setattr(closed_connection, "_ORIGINAL", BOKEH_ON_CLOSE)
    handler, session, application = open_handler()
    heard = []
    session.document.on_event("connection_lost", lambda event: heard.append(event))
    assert session.connection_count == 1
    closed_connection.on_close(handler)
    assert application.lost == [handler.connection] and session.connection_count == 0
    assert len(heard) == 1  # Bokeh's own close told the document


def test_it_is_refused_where_bokeh_no_longer_closes_in_on_close(monkeypatch):
    monkeypatch.delattr(WSHandler, "on_close")
    assert closed_connection.applies() == "bokeh.server.views.ws.WSHandler has no on_close to wrap"
