"""Bokeh's wire protocol as the raw client speaks it: one message's websocket frames, out and in.

A Bokeh message is several websocket frames: header JSON (``msgid``, ``msgtype``, optional
``reqid`` and ``num_buffers``), metadata JSON, content JSON, then a buffer header and a binary
payload per buffer. :class:`MessageReader` reads whole messages off a websocket; :class:`Outgoing`
is a message to send, as its id and frames.
"""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any

from tornado.websocket import WebSocketClientConnection

Event = dict[str, Any]
"""One document event as it goes over the wire (e.g. ``{"kind": "ModelChanged", ...}``)."""

_msgids = itertools.count(1)


class ProtocolFailure(RuntimeError):
    """The server answered with something a browser would not accept (or did not answer)."""


@dataclass
class Message:
    """One Bokeh protocol message received from the server.

    Attributes
    ----------
    header : dict
        ``msgid``, ``msgtype``, and ``reqid`` for replies.
    content : dict
        The parsed content.
    received : float
        ``time.perf_counter()`` when its last frame arrived.
    buffers : list of bytes
        Binary payloads, if any.
    """

    header: dict[str, Any]
    content: dict[str, Any]
    received: float
    buffers: list[bytes] = field(default_factory=list)

    @property
    def msgtype(self) -> str:
        """The message type, e.g. ``"PATCH-DOC"``."""
        return self.header["msgtype"]

    @property
    def events(self) -> list[Event]:
        """The document events of a ``PATCH-DOC`` (empty for other messages)."""
        return self.content.get("events", []) if self.msgtype == "PATCH-DOC" else []


class MessageReader:
    """Reads whole messages off one websocket, frame by frame."""

    async def read(self, ws: WebSocketClientConnection) -> Message | None:
        """The next whole message; ``None`` once the connection has closed (also in mid-message).

        Parameters
        ----------
        ws : tornado.websocket.WebSocketClientConnection
            The open websocket; only this reader may read from it.

        Returns
        -------
        Message or None
            The message, stamped with the arrival of its last frame.

        Raises
        ------
        ProtocolFailure
            When the header or content is not a text frame.
        """
        header_text = await ws.read_message()
        if header_text is None:
            return None
        metadata_text = await ws.read_message()
        content_text = await ws.read_message()
        if metadata_text is None or content_text is None:
            return None  # closed in the middle of a message
        if not isinstance(header_text, str) or not isinstance(content_text, str):
            raise ProtocolFailure("expected text frames for header and content")
        header = json.loads(header_text)
        buffers = []
        for _ in range(int(header.get("num_buffers", 0))):
            await ws.read_message()  # buffer header {"id": ...}
            payload = await ws.read_message()
            buffers.append(payload if isinstance(payload, bytes) else b"")
        received = time.perf_counter()
        return Message(header, json.loads(content_text), received, buffers)


@dataclass(frozen=True)
class Outgoing:
    """One message to send: its id (a reply carries it as ``reqid``) and its websocket frames.

    Attributes
    ----------
    msgid : str
        The message's id.
    frames : list of str
        Header, metadata and content JSON, in order (no buffers).
    """

    msgid: str
    frames: list[str]


def _outgoing(msgtype: str, content: dict[str, Any]) -> Outgoing:
    """A message without buffers: a new ``msgid``, empty metadata, ``content``."""
    msgid = f"bench{next(_msgids)}"
    return Outgoing(msgid, [json.dumps({"msgid": msgid, "msgtype": msgtype}), "{}", json.dumps(content)])


def pull_doc_request() -> Outgoing:
    """A ``PULL-DOC-REQ``: the server answers with the session's whole document.

    Returns
    -------
    Outgoing
        The message, with a new ``msgid``.
    """
    return _outgoing("PULL-DOC-REQ", {})


def patch_doc_message(events: list[Event]) -> Outgoing:
    """A client ``PATCH-DOC`` carrying ``events`` as they are (bokehjs's JSON, not a Python document's).

    Parameters
    ----------
    events : list of dict
        Serialized document events (see :mod:`bench.lib.events`).

    Returns
    -------
    Outgoing
        The message, with a new ``msgid``; the server answers it with ``OK`` (or ``ERROR``).
    """
    return _outgoing("PATCH-DOC", {"events": events})
