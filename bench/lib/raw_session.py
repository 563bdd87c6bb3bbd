"""One browser-like session of a Panel page over the raw Bokeh websocket protocol: :class:`RawSession`.

``bokeh.client.pull_session`` builds a full Python ``Document`` for every session: measured side by
side by ``bench/client_cost.py``, it takes about 7× this client's CPU per session (88 against 13
ms, median of 20 sessions on the 2-core machine, December 2026), while doing less (it never
receives the lab), so one process playing 300 students would spend much of a core being the client.
This client does only what a browser's websocket does on the wire and parses only what a benchmark
needs:

1. ``GET /lesson?...``: the server creates the session and writes its token into the page's
   ``render_items``.
2. Websocket ``ws://host/lesson/ws`` with the subprotocols ``["bokeh", token]`` (as bokehjs'
   ``ClientConnection.connect`` does); the server answers ``ACK``.
3. ``PULL-DOC-REQ`` → ``PULL-DOC-REPLY``: the document as JSON; models are indexed by id
   (:class:`bench.lib.document.DocIndex`).
4. What bokehjs sends once the page has rendered: the ``ProgressStore`` component's
   ``completed``/``loaded`` (read from localStorage; empty here) and the ``document_ready`` event,
   on which Panel marks the session connected and runs its onload callbacks. :meth:`RawSession.open`
   returns once the server's ``OK`` to this first ``PATCH-DOC`` has arrived: from then on a click
   is answered like any other (``RawSession.timings`` holds when each step ended).

The messages are framed by ``bokeh.protocol`` (:mod:`bench.lib.protocol`); the events in them are
bokehjs's JSON (:mod:`bench.lib.events`). The server answers each client ``PATCH-DOC`` with ``OK``
and sends the changes its callbacks make as its own ``PATCH-DOC`` messages (never echoing a change
back to the connection it came from).

Like Chromium, the client offers permessage-deflate (a server that agrees deflates every message
it sends; ``python -m app`` does, :data:`app.web.serving_settings.WEBSOCKET_COMPRESSION`), and it sets
TCP_NODELAY on its websocket: a message's frames are separate small
writes, and with Nagle's algorithm each frame after the first would wait for the server's delayed
ACK (about 40 ms on Linux), which is latency a browser does not see.

Every wait here has a timeout; every connection goes to a loopback server (one the caller started,
or one already running on this machine).
"""

from __future__ import annotations

import asyncio
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

from bench.lib import events
from bench.lib.document import DocIndex
from bench.lib.events import Predicate
from bench.lib.loopback import check_loopback
from bench.lib.protocol import (
    Event,
    Message,
    MessageReader,
    Outgoing,
    ProtocolFailure,
    patch_doc_message,
    pull_doc_request,
)

TOKEN = re.compile(r'"token":\s*"([^"]+)"')
"""The session token in a page's ``render_items``."""

STORE = re.compile(r"^ProgressStore\d*$")
"""``app.course.progress.ProgressStore``'s model: Panel names a JSComponent's model class ``<Class><n>``."""


def http_client(max_clients: int) -> AsyncHTTPClient:
    """A tornado HTTP client allowed ``max_clients`` requests at once (tornado's default is 10).

    Parameters
    ----------
    max_clients : int
        Concurrent requests allowed.

    Returns
    -------
    tornado.httpclient.AsyncHTTPClient
        A private instance, not the shared one.
    """
    return AsyncHTTPClient(force_instance=True, max_clients=max_clients)


@dataclass
class _Waiter:
    predicate: Predicate
    future: asyncio.Future


class RawSession:
    """One browser-like session of a Panel page over the raw Bokeh websocket protocol.

    Parameters
    ----------
    base_url : str
        ``http://127.0.0.1:<port>``; only loopback hosts are accepted.
    page : str
        Path and query of the page, e.g. ``/lesson?id=overlap&exercise=growth``.
    client : tornado.httpclient.AsyncHTTPClient
        The HTTP client for the page request (see :func:`http_client`).
    """

    def __init__(self, base_url: str, page: str, client: AsyncHTTPClient):
        self.base_url = check_loopback(base_url)
        self.page = page
        self.client = client
        self.doc: DocIndex | None = None
        self.token = ""
        self.patches: list[Message] = []
        self.closed = False
        self.last_received = time.perf_counter()
        self.failure: BaseException | None = None
        self.timings: dict[str, float] = {}
        self._ws: WebSocketClientConnection | None = None
        self._reader: asyncio.Task | None = None
        self._frames = MessageReader()
        self._replies: dict[str, asyncio.Future] = {}
        self._waiters: list[_Waiter] = []
        self._seq = 0

    # -- connection ---------------------------------------------------------------------------
    async def open(self, timeout: float = 30.0) -> DocIndex:
        """Load the page, connect its websocket, pull the document and say the page has rendered.

        Returns once the server has answered that first ``PATCH-DOC`` with ``OK``: the moment a
        student could click. ``timings`` gets the ``time.perf_counter()`` of each step's end:
        ``start`` (before the page request), ``page`` (the HTML with its token), ``ack`` (the
        websocket is open and the server has created the session), ``doc`` (the
        ``PULL-DOC-REPLY``) and ``ready`` (the ``OK`` to the page's first ``PATCH-DOC``).

        Parameters
        ----------
        timeout : float
            Seconds allowed for each of: the page request, the websocket handshake, the ``ACK``,
            the ``PULL-DOC-REPLY``, the ``OK``.

        Returns
        -------
        DocIndex
            The session's models.

        Raises
        ------
        ProtocolFailure
            On a missing token or a first message other than ``ACK``.
        TimeoutError, tornado.httpclient.HTTPClientError
            When a step takes longer than ``timeout`` or the page request fails.
        """
        self.timings["start"] = time.perf_counter()
        reply = await self.client.fetch(f"{self.base_url}{self.page}", connect_timeout=timeout, request_timeout=timeout)
        self.timings["page"] = time.perf_counter()
        match = TOKEN.search(reply.body.decode("utf-8", errors="replace"))
        if match is None:
            raise ProtocolFailure(f"no session token in {self.page}")
        self.token = match.group(1)
        path = urlsplit(self.page).path
        ws_url = f"ws{self.base_url[4:]}{path}/ws"
        request = HTTPRequest(
            ws_url, headers={"Origin": self.base_url}, connect_timeout=timeout, request_timeout=timeout
        )
        # compression_options={}: offer permessage-deflate, as every browser does, so that a server
        # that deflates its messages pays for it here as it does for a class of browsers.
        connecting = websocket_connect(request, subprotocols=["bokeh", self.token], compression_options={})
        self._ws = await asyncio.wait_for(connecting, timeout)
        # Chromium sets TCP_NODELAY on its sockets; without it each small frame after the first
        # would wait for the server's delayed ACK (about 40 ms on Linux).
        self._ws.protocol.set_nodelay(True)
        first = await asyncio.wait_for(self._frames.read(self._ws), timeout)
        if first is None or first.msgtype != "ACK":
            raise ProtocolFailure(f"first message was not ACK: {first and first.header}")
        self.timings["ack"] = first.received
        self._reader = asyncio.ensure_future(self._read_loop())
        pulled = await self.request(pull_doc_request(), timeout)
        if pulled.msgtype != "PULL-DOC-REPLY":
            raise ProtocolFailure(f"PULL-DOC-REQ answered with {pulled.msgtype}: {pulled.content}")
        self.timings["doc"] = pulled.received
        doc = DocIndex(pulled.content["doc"])
        for message in self.patches:  # any that arrived before the document was indexed
            doc.apply(message.events)
        self.doc = doc
        ok = await self._rendered()
        reply = await asyncio.wait_for(ok, timeout)
        if reply.msgtype != "OK":
            raise ProtocolFailure(f"the page's first PATCH-DOC was answered with {reply.msgtype}: {reply.content}")
        self.timings["ready"] = reply.received
        return self.doc

    async def _rendered(self) -> asyncio.Future:
        """Send what bokehjs sends once every root has rendered; return the future of the server's OK."""
        assert self.doc is not None
        changes: list[Event] = []
        for store in self.doc.models.values():  # app.course.progress.ProgressStore: localStorage is empty here
            if STORE.match(store.name):
                changes.append(events.change(store.id, "completed", {"type": "map"}))
                changes.append(events.change(store.id, "loaded", True))
                if store.attributes.get("class_on"):  # the browser's anonymous id, made once as the page does
                    changes.append(events.change(store.id, "student", secrets.token_hex(16)))
        changes.append(events.bokeh_event("document_ready"))
        _sent, ok = await self.patch(changes)
        return ok

    async def close(self, timeout: float = 10.0) -> None:
        """Close the websocket (as a closed browser tab does) and stop reading."""
        if self._ws is not None:
            self._ws.close(1000, "bench done")
        if self._reader is not None:
            try:
                await asyncio.wait_for(self._reader, timeout)
            except (TimeoutError, asyncio.CancelledError):
                self._reader.cancel()
        for waiter in self._waiters:
            if not waiter.future.done():
                waiter.future.cancel()
        self._waiters.clear()

    # -- receiving ----------------------------------------------------------------------------
    async def _read_loop(self) -> None:
        assert self._ws is not None
        try:
            while True:
                message = await self._frames.read(self._ws)
                if message is None:
                    break
                self._dispatch(message)
        except Exception as error:  # noqa: BLE001 - recorded, reported by the caller
            self.failure = error
        finally:
            self.closed = True
            for future in [*self._replies.values(), *(w.future for w in self._waiters)]:
                if not future.done():
                    future.set_exception(self._closed_failure())
                    future.exception()  # nobody may be waiting for it any more: do not log it as unretrieved

    def _closed_failure(self) -> ProtocolFailure:
        return ProtocolFailure(f"connection closed{f': {self.failure}' if self.failure else ''}")

    def _dispatch(self, message: Message) -> None:
        self.last_received = message.received
        if message.msgtype == "ERROR":
            self.failure = ProtocolFailure(f"server ERROR: {message.content.get('text')}")
        reqid = message.header.get("reqid")
        if reqid in self._replies:
            self._replies.pop(reqid).set_result(message)
            return
        if message.msgtype != "PATCH-DOC":
            return
        self.patches.append(message)
        patch = message.events
        if self.doc is not None:
            self.doc.apply(patch)
        still = []
        for waiter in self._waiters:
            if waiter.future.done():
                continue
            if waiter.predicate(patch):
                waiter.future.set_result(message)
            else:
                still.append(waiter)
        self._waiters = still

    def expect(self, predicate: Predicate) -> asyncio.Future:
        """A future for the next server PATCH-DOC whose events satisfy ``predicate``.

        Register it *before* sending the message that should cause the change.

        Parameters
        ----------
        predicate : callable
            ``predicate(events) -> bool``, e.g. from :func:`bench.lib.events.changed`.

        Returns
        -------
        asyncio.Future
            Resolves to the :class:`bench.lib.protocol.Message` (its ``received`` is the arrival time).
        """
        future = asyncio.get_running_loop().create_future()
        if self.closed:
            future.set_exception(self._closed_failure())
        else:
            self._waiters.append(_Waiter(predicate, future))
        return future

    async def quiet(self, quiet_for: float = 0.2, timeout: float = 30.0) -> None:
        """Wait until nothing has arrived for ``quiet_for`` seconds (the page has settled).

        Parameters
        ----------
        quiet_for : float
            Seconds of silence required.
        timeout : float
            Give up (without an error) after this many seconds.
        """
        deadline = time.perf_counter() + timeout
        while True:
            now = time.perf_counter()
            left = self.last_received + quiet_for - now
            if left <= 0 or now >= deadline:
                return
            await asyncio.sleep(min(left, deadline - now))

    def latest(self, model_id: str, attr: str) -> Any:
        """The last value the server sent for ``attr`` of ``model_id``, else the pulled document's value.

        Parameters
        ----------
        model_id : str
            The model's id.
        attr : str
            The property.

        Returns
        -------
        Any
            The value as it came over the wire; None if it was never sent and is not in the document.
        """
        for message in reversed(self.patches):
            for event in reversed(message.events):
                if events.sets(event, model_id, attr):
                    return event.get("new")
        model = self.doc.models.get(model_id) if self.doc is not None else None
        return None if model is None else model.attributes.get(attr)

    # -- sending ------------------------------------------------------------------------------
    async def _send(self, message: Outgoing) -> float:
        assert self._ws is not None
        sent = time.perf_counter()
        for frame in message.frames:
            await self._ws.write_message(frame)
        return sent

    async def request(self, message: Outgoing, timeout: float = 30.0) -> Message:
        """Send a message and wait for the reply carrying its id.

        Parameters
        ----------
        message : bench.lib.protocol.Outgoing
            For example :func:`bench.lib.protocol.pull_doc_request`.
        timeout : float
            Seconds to wait for the reply.

        Returns
        -------
        Message
            The reply.
        """
        msgid = message.msgid
        future = asyncio.get_running_loop().create_future()
        self._replies[msgid] = future
        await self._send(message)
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            self._replies.pop(msgid, None)

    async def patch(self, changes: list[Event]) -> tuple[float, asyncio.Future]:
        """Send one ``PATCH-DOC`` and return without waiting.

        Parameters
        ----------
        changes : list of dict
            Serialized document events (see :mod:`bench.lib.events`).

        Returns
        -------
        sent : float
            ``time.perf_counter()`` just before the first frame was written.
        ok : asyncio.Future
            Resolves to the server's ``OK`` (or ``ERROR``) reply.
        """
        message = patch_doc_message(changes)
        ok = asyncio.get_running_loop().create_future()
        self._replies[message.msgid] = ok
        return await self._send(message), ok

    async def set_value(self, model_id: str, attr: str, value: Any) -> tuple[float, asyncio.Future]:
        """Change one property, as typing into a widget does (see :meth:`patch`)."""
        return await self.patch([events.change(model_id, attr, value)])

    async def click(self, button_id: str) -> tuple[float, asyncio.Future]:
        """Send a ``button_click`` event for a Bokeh ``Button`` (see :meth:`patch`)."""
        return await self.patch([events.bokeh_event("button_click", button_id)])

    async def send_msg(self, model_id: str, data: dict[str, Any]) -> tuple[float, asyncio.Future]:
        """Send a ``data_event``, as a Panel ``JSComponent``'s ``model.send_msg(data)`` does (see :meth:`patch`).

        Parameters
        ----------
        model_id : str
            The component's ``ReactiveESM`` model id.
        data : dict
            The message: string keys, JSON values (sent as a JS object, a Bokeh ``map``).

        Returns
        -------
        tuple
            As :meth:`patch`.
        """
        return await self.patch([events.data_event(model_id, data)])

    async def command(self, state_id: str, action: str, t: float | None) -> tuple[float, asyncio.Future]:
        """Set ``PlaybackState.command`` to ``{action, t, seq}`` exactly as ``player.js`` ``send()`` does.

        Parameters
        ----------
        state_id : str
            The PlaybackState model's id.
        action : str
            ``"reset"``, ``"step"``, ``"pause"``, ``"end"`` or ``"sync"``.
        t : float or None
            The browser's playback time, or None.

        Returns
        -------
        tuple
            As :meth:`patch`.
        """
        self._seq += 1
        return await self.set_value(state_id, "command", events.js_object({"action": action, "t": t, "seq": self._seq}))
