"""Bytes on the wire of a page visit, as Chromium's DevTools protocol reports them: :func:`recorder`.

Bytes are what ``Network.loadingFinished`` reports as received for each response
(``encodedDataLength``: headers and body as they came over the socket, compressed or not; 0 for a
file taken from the browser's cache). The websocket's frames (the Bokeh document and its updates)
are counted apart, as payload bytes. DevTools reports a frame's payload after inflation only, so when
the handshake agreed on permessage-deflate the received frames' size on the wire is computed: each
payload deflated in turn by one compressor with the server's settings
(:data:`app.web.serving_settings.WEBSOCKET_COMPRESSION`), as Tornado sends them.
"""

from __future__ import annotations

import base64
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from playwright.sync_api import BrowserContext, Page

from app.web.serving_settings import WEBSOCKET_COMPRESSION


@dataclass
class Visit:
    """What one page visit transferred.

    Attributes
    ----------
    bytes : int
        Every HTTP response, encoded, headers included.
    responses : int
        How many responses.
    from_cache : int
        Responses taken from the browser's cache (0 bytes).
    gzipped_bytes : int
        The bytes of the gzip-encoded responses.
    mathjax : bool
        Whether MathJax was loaded.
    ws_bytes : int
        Websocket payload bytes, both ways (not in ``bytes``).
    ws_received : int
        Websocket payload bytes received by the page.
    ws_received_wire : int
        The same frames' payload on the wire: deflated (computed) if the handshake agreed on
        permessage-deflate, else ``ws_received``.
    nginx_hits : int
        Responses nginx answered from its cache (``X-Cache-Status: HIT``).
    urls : list of (int, str)
        Each response's bytes and URL.
    """

    bytes: int = 0
    responses: int = 0
    from_cache: int = 0
    gzipped_bytes: int = 0
    mathjax: bool = False
    ws_bytes: int = 0
    ws_received: int = 0
    ws_received_wire: int = 0
    nginx_hits: int = 0
    urls: list[tuple[int, str]] = field(default_factory=list)


@contextmanager
def recorder(context: BrowserContext, page: Page) -> Iterator[Callable[[], Visit]]:
    """Record the page's traffic through the DevTools protocol.

    Parameters
    ----------
    context : playwright.sync_api.BrowserContext
        The page's profile.
    page : playwright.sync_api.Page
        The page to record.

    Yields
    ------
    callable
        ``end_visit() -> Visit``: waits until the page has asked for nothing for a second, then
        returns what the visit so far transferred and starts counting the next one.
    """
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    responses: dict[str, dict] = {}
    state = {"visit": Visit(), "pending": set()}

    def requested(event: dict) -> None:
        if event["request"]["url"].startswith(("http:", "https:")):
            state["pending"].add(event["requestId"])

    def responded(event: dict) -> None:
        headers = {key.lower(): value for key, value in event["response"]["headers"].items()}
        responses[event["requestId"]] = {"url": event["response"]["url"], "headers": headers}

    def finished(event: dict) -> None:
        state["pending"].discard(event["requestId"])
        info = responses.pop(event["requestId"], None)
        if info is None or not info["url"].startswith(("http:", "https:")):
            return
        visit: Visit = state["visit"]
        size = int(event["encodedDataLength"])
        visit.responses += 1
        visit.bytes += size
        visit.urls.append((size, info["url"]))
        visit.from_cache += size == 0
        if info["headers"].get("content-encoding") == "gzip":
            visit.gzipped_bytes += size
        visit.mathjax |= "mathjax" in info["url"].lower()
        visit.nginx_hits += info["headers"].get("x-cache-status") == "HIT"

    def failed(event: dict) -> None:
        state["pending"].discard(event["requestId"])
        responses.pop(event["requestId"], None)

    deflater: dict[str, object] = {}  # the server's compressor for the websocket, once it is agreed

    def handshake(event: dict) -> None:
        headers = {key.lower(): value for key, value in event["response"]["headers"].items()}
        if headers.get("sec-websocket-extensions", "").startswith("permessage-deflate"):
            level = WEBSOCKET_COMPRESSION["websocket_compression_level"]
            memory = WEBSOCKET_COMPRESSION["websocket_compression_mem_level"]
            deflater["now"] = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS, memory)

    def payload(event: dict) -> bytes:
        response = event["response"]
        data = response.get("payloadData", "")
        return data.encode() if response.get("opcode") == 1 else base64.b64decode(data)

    def sent(event: dict) -> None:
        state["visit"].ws_bytes += len(payload(event))

    def received(event: dict) -> None:
        data = payload(event)
        visit: Visit = state["visit"]
        visit.ws_bytes += len(data)
        visit.ws_received += len(data)
        compressor = deflater.get("now")
        if compressor is None:
            visit.ws_received_wire += len(data)
        else:  # as tornado.websocket._PerMessageDeflateCompressor: sync flush, its 4-byte tail dropped
            visit.ws_received_wire += len(compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)) - 4

    cdp.on("Network.requestWillBeSent", requested)
    cdp.on("Network.responseReceived", responded)
    cdp.on("Network.loadingFinished", finished)
    cdp.on("Network.loadingFailed", failed)
    cdp.on("Network.webSocketHandshakeResponseReceived", handshake)
    cdp.on("Network.webSocketFrameReceived", received)
    cdp.on("Network.webSocketFrameSent", sent)

    def end_visit() -> Visit:
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < 1.0:  # the page asks for nothing more for a second
            if state["pending"]:
                quiet_since = time.monotonic()
            page.wait_for_timeout(50)
        visit, state["visit"] = state["visit"], Visit()
        return visit

    yield end_visit
    cdp.detach()
