"""Which of a server's objects belong to a session still open: where a session sweep's walk stops.

The kinds of object through which a walk would go from one session into others (documents, Bokeh
models and sessions, connections, Panel objects, websockets: :func:`hub_types`), and whether such an
object's session is still open (:func:`still_open`), from the private attributes Bokeh and Panel
keep that in. Used only by :mod:`app.upstream.session_sweep`, which runs only where
:mod:`app.upstream` has installed the collector (its versions checked there).
"""

from __future__ import annotations

from functools import cache


@cache
def hub_types() -> tuple[type, ...]:
    """The kinds of object through which a walk would enter a session that is still open (:func:`still_open`)."""
    from bokeh.document import Document
    from bokeh.model import Model
    from bokeh.server.connection import ServerConnection
    from bokeh.server.session import ServerSession
    from panel.viewable import Viewable
    from tornado.websocket import WebSocketHandler, WebSocketProtocol

    return (Document, Model, Viewable, ServerSession, ServerConnection, WebSocketHandler, WebSocketProtocol)


def still_open(obj: object) -> bool:
    """Whether ``obj`` (one of :func:`hub_types`) belongs to a session that is still open: a walk stops there.

    Sessions opened at the same moment share a freeze, so a discarded session's roots hold some of
    the others' objects (their websocket, a model), and from those a walk went on into every session
    they reach: 4 to 12 open sessions, 16,000-64,000 objects, half a second to three seconds on the
    2-core machine, then given up (``session_sweep.MAX_WALK``). A discarded session's own hubs are all closed by
    the time it is swept: its document and Bokeh session destroyed, its models detached from the
    document or left pointing at the destroyed one, its Panel objects' models cleaned up or in
    that document, its connection detached from the session.

    Stopping early only makes the walk smaller: what an open session refers to is counted as
    referred to from outside (:func:`app.upstream.session_sweep.unreachable`), so it is never taken for garbage.

    Parameters
    ----------
    obj : object
        A Bokeh document, model, Bokeh session or connection, Panel viewable, or a Tornado websocket
        handler or protocol.

    Returns
    -------
    bool
        True for a document not destroyed, a model in one, a viewable with a model in one, a
        Bokeh session not destroyed, a connection, websocket handler or protocol whose Bokeh session
        is not destroyed. A model left pointing at its destroyed document (one taken out of the
        page before the end) is closed.
    """
    document, model, viewable, session, connection, handler, protocol = hub_types()
    if isinstance(obj, document):
        return _document_open(obj)
    if isinstance(obj, model):
        return _document_open(obj._document)
    if isinstance(obj, viewable):
        return any(_document_open(shown._document) for shown, _parent in obj._models.values())
    if isinstance(obj, session):
        return not obj.destroyed
    if isinstance(obj, protocol):
        obj = getattr(obj, "handler", None)
    if isinstance(obj, handler):
        obj = getattr(obj, "connection", None)
    if isinstance(obj, connection):
        attached = getattr(obj, "_session", None)
        return attached is not None and not attached.destroyed
    return False


def _document_open(document: object) -> bool:
    """Whether ``document`` is a Bokeh document not yet destroyed (``Document.destroy`` deletes its roots)."""
    return document is not None and hasattr(document, "_roots")
