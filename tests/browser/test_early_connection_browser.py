"""A lesson page's websocket opened from its head (app/upstream/early_connection.py), in Chromium.

The page opens its websocket, and the server builds the student's session, while the bundles still
download; Bokeh is then handed that socket. Proved here by holding Panel's bundle back (Bokeh cannot
run without it) and seeing the server's ACK arrive all the same; then that the page has one
websocket, asked for its document once, and works. And the fallback: a socket that closes before
Bokeh asks for it is not handed over, Bokeh opens its own, and the lab works.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import protocol_header
from tests.waiting import poll

pytestmark = pytest.mark.browser

LESSON = "/lesson?id=overlap"
PANEL_BUNDLE = re.compile(r"/panel\.min\.js")


class Sockets:
    """Every websocket the page opens, with the Bokeh message headers sent and received on each."""

    def __init__(self, page) -> None:
        self.opened: list[str] = []
        self.sent: list[list[dict]] = []
        self.received: list[list[dict]] = []
        page.on("websocket", self._watch)

    def _watch(self, ws) -> None:
        self.opened.append(ws.url)
        sent: list[dict] = []
        received: list[dict] = []
        self.sent.append(sent)
        self.received.append(received)
        ws.on("framesent", lambda payload: _record(sent, payload))
        ws.on("framereceived", lambda payload: _record(received, payload))

    def kinds(self, direction: str, index: int = 0) -> list[str]:
        """The msgtypes sent or received on the ``index``-th websocket, in order."""
        headers = (self.sent if direction == "sent" else self.received)[index] if index < len(self.opened) else []
        return [header["msgtype"] for header in headers]


def _record(headers: list[dict], payload: object) -> None:
    header = protocol_header(payload)
    if header is not None:
        headers.append(header)


def lab_works(page) -> None:
    lab = page.get_by_role("region", name="Queue lab")
    readout = lab.get_by_role("status").first
    expect(readout).to_contain_text("t = 0.00 s")
    lab.get_by_role("button", name="Step").click()
    expect(readout).to_contain_text("t = 1.00 s")


def early(page) -> dict:
    return page.evaluate("({...window.overlapEarlyConnection})")


def test_the_session_is_built_while_the_bundles_download_and_bokeh_is_handed_the_socket(page):
    sockets = Sockets(page)
    held = []
    page.route(PANEL_BUNDLE, lambda route: held.append(route))
    page.goto(page.base_url + LESSON, wait_until="commit")
    poll(lambda: "ACK" in sockets.kinds("received"), page=page, what="the server's ACK on the early socket")
    assert page.evaluate("!(window.Bokeh && 'Panel' in window.Bokeh)"), "Panel's bundle ran although held"
    assert sockets.kinds("sent") == [], "the document was asked for before every bundle was in"
    poll(lambda: held, page=page, what="Panel's bundle asked for")
    held[0].continue_()
    lab_works(page)
    assert len(sockets.opened) == 1, f"more than one websocket: {sockets.opened}"
    pulls = [header for header in sockets.sent[0] if header["msgtype"] == "PULL-DOC-REQ"]
    assert [header["msgid"][:6] for header in pulls] == ["early-"], "the document was not asked for once, early"
    state = early(page)
    assert state["outcome"] == "handed over"
    assert state["asked"] and state["direct"] and not state["closed"]
    assert state["frames"] >= 2, "Bokeh was not played the ACK and the reply"


def test_a_socket_closed_before_bokeh_asks_is_not_handed_over_and_the_lab_works(page):
    sockets = Sockets(page)
    held = []
    first = []

    def socket_route(ws) -> None:
        if not first:  # the page's early socket: closed as soon as the server has answered it
            first.append(ws)
            server = ws.connect_to_server()
            server.on_message(lambda message: ws.close() if "ACK" in str(message) else ws.send(message))
            return
        ws.connect_to_server()

    page.route_web_socket(re.compile(r"/ws"), socket_route)
    page.route(PANEL_BUNDLE, lambda route: held.append(route))
    page.goto(page.base_url + LESSON, wait_until="commit")
    poll(lambda: early(page).get("closed"), page=page, what="the early socket closed")
    poll(lambda: held, page=page, what="Panel's bundle asked for")
    held[0].continue_()
    lab_works(page)
    assert len(first) == 1 and len(sockets.opened) == 2, f"websockets: {sockets.opened}"
    assert early(page)["outcome"] == "closed before Bokeh asked"
    assert "PULL-DOC-REQ" in sockets.kinds("sent", 1), "Bokeh did not ask its own socket for the document"
