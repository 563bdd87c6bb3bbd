"""Bokeh's wire protocol as the raw client speaks it: one message's websocket frames, out and in.

A Bokeh message is several websocket frames: header JSON (``msgid``, ``msgtype``, optional
``reqid`` and ``num_buffers``), metadata JSON, content JSON, then a buffer header and a binary
payload per buffer. ``bokeh.protocol`` does the framing here:

- frames that arrive are assembled by ``bokeh.protocol.receiver.Receiver``, with
  ``bokeh.protocol.Protocol``'s message classes (:class:`MessageReader`);
- messages that leave are ``bokeh.protocol``'s own ``pull_doc_req`` and ``patch_doc`` messages,
  whose ``header_json``, ``metadata_json`` and ``content_json`` are the frames (:class:`Outgoing`).

It costs the client little against the hand-written framing it replaced (measured on the 2-core
machine, December 2026): about 0.04 ms more per message read (the ``Receiver`` also parses the
metadata frame and builds a message object) and 0.05 ms more per message sent (Bokeh's id and
its JSON encoder), about 0.3 ms on the 11-12 ms of client CPU a session open takes, which
``bench/client_cost.py`` does not resolve (11-12 ms with either).

Two parts of ``bokeh.protocol`` do not fit, and are not used:

- ``Protocol.create("PATCH-DOC", events)`` serializes the ``DocumentPatchedEvent`` objects of a
  Python ``Document``. The raw client has no ``Document``: building one for every session is what
  makes ``bokeh.client`` cost about 7× this client's CPU per session (``bench/client_cost.py``).
  Its events are the JSON bokehjs writes (:mod:`bench.lib.events`), put into a ``patch_doc``
  message as its content.
- ``Message.send(conn)`` writes through Bokeh's own connection wrapper (its ``write_lock`` and
  ``write_message(locked=...)``); the raw client writes the frames to tornado's websocket itself.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from bokeh.protocol import Protocol
from bokeh.protocol.exceptions import MessageError, ProtocolError, ValidationError
from bokeh.protocol.message import Message as BokehMessage
from bokeh.protocol.messages.patch_doc import patch_doc
from bokeh.protocol.messages.pull_doc_req import pull_doc_req
from bokeh.protocol.receiver import Receiver
from tornado.websocket import WebSocketClientConnection

Event = dict[str, Any]
"""One document event as it goes over the wire (e.g. ``{"kind": "ModelChanged", ...}``)."""


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
    """Reads whole messages off one websocket, frame by frame, through ``bokeh.protocol``'s ``Receiver``."""

    def __init__(self) -> None:
        self._receiver = Receiver(Protocol())

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
            When the frames are not a Bokeh message (binary where text belongs, bad JSON, an unknown
            ``msgtype``, too many buffers).
        """
        while True:
            fragment = await ws.read_message()
            if fragment is None:
                return None
            try:
                message = await self._receiver.consume(fragment)
            except (MessageError, ProtocolError, ValidationError) as error:
                raise ProtocolFailure(f"not a Bokeh message: {error}") from error
            if message is not None:
                received = time.perf_counter()
                buffers = [buffer.to_bytes() for buffer in message.buffers]
                return Message(dict(message.header), message.content, received, buffers)


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


def _outgoing(message: BokehMessage) -> Outgoing:
    """A ``bokeh.protocol`` message as its id and frames."""
    return Outgoing(message.header["msgid"], [message.header_json, message.metadata_json, message.content_json])


def pull_doc_request() -> Outgoing:
    """A ``PULL-DOC-REQ``: the server answers with the session's whole document.

    Returns
    -------
    Outgoing
        The message, with a new ``msgid``.
    """
    return _outgoing(pull_doc_req.create())


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
    return _outgoing(patch_doc(patch_doc.create_header(), {}, {"events": events}))
