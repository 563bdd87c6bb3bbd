"""A small raw Bokeh-server protocol client for load benchmarks, plus server-process helpers.

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
3. ``PULL-DOC-REQ`` → ``PULL-DOC-REPLY``: the document as JSON; models are indexed by id.
4. What bokehjs sends once the page has rendered: the ``ProgressStore`` component's
   ``completed``/``loaded`` (read from localStorage; empty here) and the ``document_ready`` event,
   on which Panel marks the session connected and runs its onload callbacks. :meth:`RawSession.open`
   returns once the server's ``OK`` to this first ``PATCH-DOC`` has arrived: from then on a click
   is answered like any other (``RawSession.timings`` holds when each step ended).

A Bokeh message is several websocket frames: header JSON (``msgid``, ``msgtype``, optional
``reqid`` and ``num_buffers``), metadata JSON, content JSON, then a buffer header and a binary
payload per buffer. Property changes go server-ward as ``PATCH-DOC`` with ``ModelChanged``
events; widget events (a button click) as a ``MessageSent`` event of type ``bokeh_event``. The
server answers each client ``PATCH-DOC`` with ``OK`` and sends the changes its callbacks make as
its own ``PATCH-DOC`` messages (never echoing a change back to the connection it came from).

Like Chromium, the client sets TCP_NODELAY on its websocket: a message's frames are separate small
writes, and with Nagle's algorithm each frame after the first would wait for the server's delayed
ACK (about 40 ms on Linux), which is latency a browser does not see.

Every wait here has a timeout; every connection goes to a loopback server (one the caller started,
or one already running on this machine).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # imported as a sibling script module: devtools/ sits beside bench/
    sys.path.insert(0, str(ROOT))
from devtools.ports import free_port  # noqa: E402 (the benches import it from here too)
from devtools.serving import NotStarted, start_server  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
LESSON_PATH = "/lesson?id=overlap&exercise=growth"
TOKEN = re.compile(r'"token":\s*"([^"]+)"')
STORE = re.compile(r"^ProgressStore\d*$")  # Panel names a JSComponent's model class <Class><n>
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})

Event = dict[str, Any]
Predicate = Callable[[list[Event]], bool]


class ProtocolFailure(RuntimeError):
    """The server answered with something a browser would not accept (or did not answer)."""


# -- the server process ---------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time a process has used so far.

    Parameters
    ----------
    pid : int
        The process id.

    Returns
    -------
    float
        ``utime + stime`` from ``/proc/<pid>/stat``, in seconds.
    """
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_mb(pid: int) -> float:
    """Resident memory of a process.

    Parameters
    ----------
    pid : int
        The process id.

    Returns
    -------
    float
        ``VmRSS`` from ``/proc/<pid>/status``, in MiB.
    """
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise ProtocolFailure(f"no VmRSS for pid {pid}")


def machine_busy_seconds() -> float:
    """CPU seconds all processes on this machine have used since boot (every core together).

    Returns
    -------
    float
        The non-idle, non-iowait jiffies of the ``cpu`` line of ``/proc/stat``, in seconds. The
        difference over a run, minus the server's and the client's own CPU time, is what other
        processes took from the same cores meanwhile.
    """
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / TICK


class AppServer:
    """The app (``python -m app``) running as a subprocess on a loopback port.

    Parameters
    ----------
    port : int, optional
        The port to serve on; a free one by default.
    extra_args : list of str, optional
        More command-line arguments for ``python -m app``.
    start_timeout : float
        Seconds to wait for ``ready_path`` to answer.
    env : dict of str, optional
        Environment variables to set for the server on top of this process's own (for example
        ``{"OVERLAP_TASK_TIMER": "1"}``).
    ready_path : str
        The path that must answer 200 before the server counts as started: ``/`` (the index page),
        or ``/healthz``, which answers 200 only once the process has built its cached pages.
    """

    def __init__(
        self,
        port: int | None = None,
        extra_args: list[str] | None = None,
        start_timeout: float = 60.0,
        env: dict[str, str] | None = None,
        ready_path: str = "/",
    ):
        self.port = port or free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self._log = tempfile.NamedTemporaryFile(prefix="overlap-bench-server-", suffix=".log", delete=False)
        command = [sys.executable, "-m", "app", "--port", str(self.port), "--address", "127.0.0.1", *(extra_args or [])]
        ready = f"{self.base_url}{ready_path}"
        try:
            self.process = start_server(command, ready, self._log, env=env, timeout=start_timeout)
        except NotStarted as error:
            output = self.log_text()
            self._drop_log()
            raise ProtocolFailure(f"server did not start on port {self.port} ({error}):\n{output}") from None
        self.pid = self.process.pid

    def cpu_seconds(self) -> float:
        """CPU seconds the server process has used so far (see :func:`cpu_seconds`)."""
        return cpu_seconds(self.pid)

    def rss_mb(self) -> float:
        """The server's resident memory in MiB (see :func:`rss_mb`)."""
        return rss_mb(self.pid)

    def log_text(self) -> str:
        """Everything the server printed so far (stdout and stderr); empty once it has been stopped."""
        if self._log.closed:
            return ""
        self._log.flush()
        return Path(self._log.name).read_text(encoding="utf-8", errors="replace")

    def problems(self) -> list[str]:
        """Lines of the server's output that report a traceback, an error or a warning.

        Returns
        -------
        list of str
            Each ``Traceback`` with the exception line that ends it, and every line containing
            ``ERROR`` or ``WARNING``; empty when the server printed only its banner.
        """
        lines = self.log_text().splitlines()
        found: list[str] = []
        for index, line in enumerate(lines):
            if line.startswith("Traceback"):
                end = next((j for j in range(index + 1, len(lines)) if not lines[j].startswith((" ", "\t"))), index)
                found.append(f"{line} ... {lines[end]}")
            elif "ERROR" in line or "WARNING" in line:
                found.append(line)
        return found

    def stop(self) -> None:
        """Terminate the server (kill it if it has not exited after 10 s) and delete its log."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self._drop_log()

    def _drop_log(self) -> None:
        if not self._log.closed:
            self._log.close()
            Path(self._log.name).unlink(missing_ok=True)

    def __enter__(self) -> AppServer:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()


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


# -- messages ---------------------------------------------------------------------------------


_msgids = itertools.count(1)


def message_frames(msgtype: str, content: dict[str, Any], reqid: str | None = None) -> tuple[str, list[str]]:
    """The websocket frames of one Bokeh protocol message without buffers.

    Parameters
    ----------
    msgtype : str
        For example ``"PULL-DOC-REQ"`` or ``"PATCH-DOC"``.
    content : dict
        The message content.
    reqid : str, optional
        The ``msgid`` this message answers.

    Returns
    -------
    msgid : str
        The new message's id (the server's ``OK`` carries it as ``reqid``).
    frames : list of str
        Header, metadata and content JSON.
    """
    msgid = f"bench{next(_msgids)}"
    header: dict[str, Any] = {"msgid": msgid, "msgtype": msgtype}
    if reqid is not None:
        header["reqid"] = reqid
    return msgid, [json.dumps(header), "{}", json.dumps(content)]


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


def changed(model_id: str, attr: str, test: Callable[[Any], bool] | None = None) -> Predicate:
    """A predicate on a PATCH-DOC's events: ``attr`` of ``model_id`` was set (to a value passing ``test``).

    Parameters
    ----------
    model_id : str
        The Bokeh model id, e.g. ``"p1234"``.
    attr : str
        The property name, e.g. ``"text"``.
    test : callable, optional
        Called with the new value; the predicate holds only if it returns true.

    Returns
    -------
    callable
        ``predicate(events) -> bool``.
    """

    def predicate(events: list[Event]) -> bool:
        for event in events:
            if event.get("kind") == "ModelChanged" and event.get("attr") == attr:
                if (event.get("model") or {}).get("id") == model_id and (test is None or test(event.get("new"))):
                    return True
        return False

    return predicate


def any_patch(events: list[Event]) -> bool:
    """A predicate that any server PATCH-DOC satisfies."""
    return True


# -- the document ---------------------------------------------------------------------------


@dataclass
class ModelInfo:
    """One model of a pulled document.

    Attributes
    ----------
    id : str
        The Bokeh id.
    name : str
        The model's type name (``"Div"``, ``"labs.ui.playback.PlaybackState"``, ...).
    attributes : dict
        Its serialized non-default properties (nested models as ``{"id": ...}`` or full objects).
    """

    id: str
    name: str
    attributes: dict[str, Any]


def _walk(value: Any) -> Iterator[dict[str, Any]]:
    """Every serialized Bokeh object (``{"type": "object", "id": ...}``) inside ``value``."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if item.get("type") == "object" and "id" in item:
                yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _refs(value: Any) -> Iterator[str]:
    """Ids of the models ``value`` refers to, directly or nested in lists, maps and objects."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "id" in item and isinstance(item["id"], str) and item.get("type") in (None, "object"):
                yield item["id"]
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


class DocIndex:
    """The models of a ``PULL-DOC-REPLY`` by id, with lookups by type and property.

    :class:`RawSession` keeps it up to date with the server's PATCH-DOCs (:meth:`apply`): a page
    may add parts after it has loaded (``app.shell.deferred``), and those arrive as new models in
    a ``ModelChanged`` event.

    Parameters
    ----------
    doc : dict
        The reply's ``content["doc"]``.
    """

    def __init__(self, doc: dict[str, Any]):
        self.models: dict[str, ModelInfo] = {}
        self._add(doc.get("roots", []))

    def _add(self, value: Any) -> None:
        """Index every serialized model inside ``value`` that is not indexed yet."""
        for obj in _walk(value):
            if obj["id"] not in self.models:
                self.models[obj["id"]] = ModelInfo(obj["id"], obj.get("name", ""), obj.get("attributes") or {})

    def apply(self, events: list[Event]) -> None:
        """Take a server PATCH-DOC's events in: new models, and new property values of known ones.

        Parameters
        ----------
        events : list of dict
            The PATCH-DOC's events (only ``ModelChanged`` changes a property here; models inside
            any event are indexed).
        """
        for event in events:
            self._add(event)
            if event.get("kind") == "ModelChanged":
                model = self.models.get((event.get("model") or {}).get("id", ""))
                if model is not None and isinstance(event.get("attr"), str):
                    model.attributes[event["attr"]] = event.get("new")

    def find(self, name: str | None = None, **attrs: Any) -> list[ModelInfo]:
        """Models whose type name ends with ``name`` and whose attributes equal ``attrs``.

        Parameters
        ----------
        name : str, optional
            For example ``"Div"`` or ``"PlaybackState"`` (matched against the end of the type name).
        **attrs
            Property values that must match exactly, e.g. ``label="Lock prediction"``.

        Returns
        -------
        list of ModelInfo
            In document order.
        """
        found = []
        for model in self.models.values():
            if name is not None and not (model.name == name or model.name.endswith("." + name)):
                continue
            if all(model.attributes.get(key) == value for key, value in attrs.items()):
                found.append(model)
        return found

    def one(self, name: str | None = None, within: set[str] | None = None, **attrs: Any) -> ModelInfo:
        """Exactly one model matching :meth:`find` (optionally among the ids in ``within``).

        Parameters
        ----------
        name : str, optional
            As for :meth:`find`.
        within : set of str, optional
            Only these ids qualify (e.g. from :meth:`descendants`).
        **attrs
            As for :meth:`find`.

        Returns
        -------
        ModelInfo
            The match.

        Raises
        ------
        ProtocolFailure
            If none or several match.
        """
        matches = [m for m in self.find(name, **attrs) if within is None or m.id in within]
        if len(matches) != 1:
            raise ProtocolFailure(f"expected one {name or 'model'} with {attrs}, found {len(matches)}")
        return matches[0]

    def descendants(self, model_id: str) -> set[str]:
        """Ids of every model reachable from ``model_id`` through its properties (itself included).

        Parameters
        ----------
        model_id : str
            Where to start.

        Returns
        -------
        set of str
            The ids reached.
        """
        seen = {model_id}
        todo = [model_id]
        while todo:
            model = self.models.get(todo.pop())
            if model is None:
                continue
            for ref in _refs(model.attributes):
                if ref not in seen:
                    seen.add(ref)
                    todo.append(ref)
        return seen


# -- one session ------------------------------------------------------------------------------


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
        host = urlsplit(base_url).hostname
        if host not in LOOPBACK:
            raise ValueError(f"refusing to load a non-loopback host: {host!r}")
        self.base_url = base_url.rstrip("/")
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
        self._ws = await asyncio.wait_for(websocket_connect(request, subprotocols=["bokeh", self.token]), timeout)
        # Chromium sets TCP_NODELAY on its sockets; without it each small frame after the first
        # would wait for the server's delayed ACK (about 40 ms on Linux).
        self._ws.protocol.set_nodelay(True)
        first = await asyncio.wait_for(self._read_message(), timeout)
        if first is None or first.msgtype != "ACK":
            raise ProtocolFailure(f"first message was not ACK: {first and first.header}")
        self.timings["ack"] = first.received
        self._reader = asyncio.ensure_future(self._read_loop())
        pulled = await self.request("PULL-DOC-REQ", {}, timeout)
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
        events: list[Event] = []
        for store in self.doc.models.values():  # app.progress.ProgressStore: localStorage is empty here
            if STORE.match(store.name):
                events.append(self.change_event(store.id, "completed", {"type": "map"}))
                events.append(self.change_event(store.id, "loaded", True))
                if store.attributes.get("class_on"):  # the browser's anonymous id, made once as the page does
                    events.append(self.change_event(store.id, "student", secrets.token_hex(16)))
        events.append({"kind": "MessageSent", "msg_type": "bokeh_event", "msg_data": _event_json("document_ready")})
        _sent, ok = await self.patch(events)
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
    async def _read_message(self) -> Message | None:
        """Read the frames of one message; ``None`` when the connection closed."""
        assert self._ws is not None
        header_text = await self._ws.read_message()
        if header_text is None:
            return None
        metadata_text = await self._ws.read_message()
        content_text = await self._ws.read_message()
        if metadata_text is None or content_text is None:
            return None  # closed in the middle of a message
        if not isinstance(header_text, str) or not isinstance(content_text, str):
            raise ProtocolFailure("expected text frames for header and content")
        header = json.loads(header_text)
        buffers = []
        for _ in range(int(header.get("num_buffers", 0))):
            await self._ws.read_message()  # buffer header {"id": ...}
            payload = await self._ws.read_message()
            buffers.append(payload if isinstance(payload, bytes) else b"")
        received = time.perf_counter()
        return Message(header, json.loads(content_text), received, buffers)

    async def _read_loop(self) -> None:
        try:
            while True:
                message = await self._read_message()
                if message is None:
                    break
                self._dispatch(message)
        except Exception as error:  # noqa: BLE001 - recorded, reported by the caller
            self.failure = error
        finally:
            self.closed = True
            for future in [*self._replies.values(), *(w.future for w in self._waiters)]:
                if not future.done():
                    future.set_exception(
                        ProtocolFailure(f"connection closed{f': {self.failure}' if self.failure else ''}")
                    )
                    future.exception()  # nobody may be waiting for it any more: do not log it as unretrieved

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
        events = message.events
        if self.doc is not None:
            self.doc.apply(events)
        still = []
        for waiter in self._waiters:
            if waiter.future.done():
                continue
            if waiter.predicate(events):
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
            ``predicate(events) -> bool``, e.g. from :func:`changed`.

        Returns
        -------
        asyncio.Future
            Resolves to the :class:`Message` (its ``received`` is the arrival time).
        """
        future = asyncio.get_running_loop().create_future()
        if self.closed:
            future.set_exception(ProtocolFailure(f"connection closed{f': {self.failure}' if self.failure else ''}"))
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
                if event.get("kind") == "ModelChanged" and event.get("attr") == attr:
                    if (event.get("model") or {}).get("id") == model_id:
                        return event.get("new")
        model = self.doc.models.get(model_id) if self.doc is not None else None
        return None if model is None else model.attributes.get(attr)

    # -- sending ------------------------------------------------------------------------------
    async def _send(self, frames: list[str]) -> float:
        assert self._ws is not None
        sent = time.perf_counter()
        for frame in frames:
            await self._ws.write_message(frame)
        return sent

    async def request(self, msgtype: str, content: dict[str, Any], timeout: float = 30.0) -> Message:
        """Send a message and wait for the reply carrying its id.

        Parameters
        ----------
        msgtype : str
            For example ``"PULL-DOC-REQ"``.
        content : dict
            The message content.
        timeout : float
            Seconds to wait for the reply.

        Returns
        -------
        Message
            The reply.
        """
        msgid, frames = message_frames(msgtype, content)
        future = asyncio.get_running_loop().create_future()
        self._replies[msgid] = future
        await self._send(frames)
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            self._replies.pop(msgid, None)

    async def patch(self, events: list[Event]) -> tuple[float, asyncio.Future]:
        """Send one ``PATCH-DOC`` and return without waiting.

        Parameters
        ----------
        events : list of dict
            Serialized document events (see :meth:`change_event`).

        Returns
        -------
        sent : float
            ``time.perf_counter()`` just before the first frame was written.
        ok : asyncio.Future
            Resolves to the server's ``OK`` (or ``ERROR``) reply.
        """
        msgid, frames = message_frames("PATCH-DOC", {"events": events})
        ok = asyncio.get_running_loop().create_future()
        self._replies[msgid] = ok
        sent = await self._send(frames)
        return sent, ok

    @staticmethod
    def change_event(model_id: str, attr: str, new: Any) -> Event:
        """A ``ModelChanged`` event as bokehjs serializes it.

        Parameters
        ----------
        model_id : str
            The model's id.
        attr : str
            The property.
        new : Any
            The new value, already in Bokeh's wire encoding (plain JSON for strings, numbers and
            booleans; ``{"type": "map", "entries": [...]}`` for a JS object).

        Returns
        -------
        dict
            The event.
        """
        return {"kind": "ModelChanged", "model": {"id": model_id}, "attr": attr, "new": new}

    async def set_value(self, model_id: str, attr: str, value: Any) -> tuple[float, asyncio.Future]:
        """Change one property, as typing into a widget does (see :meth:`patch`)."""
        return await self.patch([self.change_event(model_id, attr, value)])

    async def click(self, button_id: str) -> tuple[float, asyncio.Future]:
        """Send a ``button_click`` event for a Bokeh ``Button`` (see :meth:`patch`)."""
        event = {"kind": "MessageSent", "msg_type": "bokeh_event", "msg_data": _event_json("button_click", button_id)}
        return await self.patch([event])

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
        values = {"type": "map", "entries": [["model", {"id": model_id}], ["data", _map(data)]]}
        event = {
            "kind": "MessageSent",
            "msg_type": "bokeh_event",
            "msg_data": {"type": "event", "name": "data_event", "values": values},
        }
        return await self.patch([event])

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
        return await self.set_value(state_id, "command", _map({"action": action, "t": t, "seq": self._seq}))


def _map(values: dict[str, Any]) -> dict[str, Any]:
    """A JS object as bokehjs serializes it: a Bokeh ``map`` of its entries (plain JSON values only)."""
    return {"type": "map", "entries": [[key, value] for key, value in values.items()]}


def _event_json(name: str, model_id: str | None = None) -> dict[str, Any]:
    """A bokehjs ``BokehEvent`` as serialized inside a ``MessageSent`` event."""
    entries = [] if model_id is None else [["model", {"id": model_id}]]
    values: dict[str, Any] = {"type": "map", "entries": entries} if entries else {"type": "map"}
    return {"type": "event", "name": name, "values": values}
