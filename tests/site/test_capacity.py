"""The session cap's setting (app.site.capacity): ``--max-sessions`` or ``MAX_SESSIONS``, sized by default.

The cap itself is checked against a real server in Chromium (tests/browser/test_session_cap_browser.py),
and here against a burst of websocket handshakes sent at once.
"""

from __future__ import annotations

import asyncio
import re
import sys
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

from app.site.capacity import DEFAULT_MAX_SESSIONS, MAX_SESSIONS_ENV
from app.site.server import parse_args
from devtools.ports import free_port
from tests.conftest import serve

TOKEN = re.compile(r'"token":\s*"([^"]+)"')


def test_max_sessions_is_an_option_and_a_setting(monkeypatch, capsys):
    monkeypatch.delenv(MAX_SESSIONS_ENV, raising=False)
    assert parse_args([]).max_sessions == DEFAULT_MAX_SESSIONS == 500
    assert parse_args(["--max-sessions", "40"]).max_sessions == 40
    assert parse_args(["--max-sessions", "0"]).max_sessions == 0  # no cap
    monkeypatch.setenv(MAX_SESSIONS_ENV, "120")
    assert parse_args([]).max_sessions == 120
    with pytest.raises(SystemExit):
        parse_args(["--max-sessions", "-1"])
    assert "--max-sessions" in capsys.readouterr().err


# -- a burst of handshakes against a real server -----------------------------------------------------

BURST_CAP = 4


@pytest.fixture(scope="module")
def capped_server(tmp_path_factory: pytest.TempPathFactory):
    port = free_port()
    log = tmp_path_factory.mktemp("capacity") / "server.log"
    server = serve([sys.executable, "-m", "app", "--port", str(port), "--max-sessions", str(BURST_CAP)], port, log)
    yield server
    server.process.terminate()
    server.process.wait(timeout=10)


async def _handshakes(base_url: str, tokens: list[str]) -> list[bool]:
    """Open a websocket for every token at once; whether each was answered with Bokeh's ACK."""

    async def one(token: str) -> bool:
        request = HTTPRequest(f"ws{base_url[4:]}/queue/ws", headers={"Origin": base_url}, request_timeout=60)
        try:
            socket = await websocket_connect(request, subprotocols=["bokeh", token])
        except Exception:  # noqa: BLE001 - refused (503) at the handshake
            return False
        frame = await asyncio.wait_for(socket.read_message(), 60)
        opened.append(socket)
        return isinstance(frame, str) and '"ACK"' in frame

    opened: list = []
    answered = await asyncio.gather(*(one(token) for token in tokens))
    for socket in opened:
        socket.close()
    return list(answered)


def test_a_burst_of_handshakes_is_held_to_the_cap(capped_server):
    """Twelve websockets at once: no more sessions than the cap, though none was connected when they came."""
    tokens = []
    for _ in range(3 * BURST_CAP):
        with urllib.request.urlopen(f"{capped_server.url}/queue", timeout=60) as reply:
            tokens.append(TOKEN.search(reply.read().decode("utf-8", errors="replace")).group(1))
    with ThreadPoolExecutor(max_workers=1) as worker:  # a loop of its own: Playwright's may run in this thread
        answered = worker.submit(asyncio.run, _handshakes(capped_server.url, tokens)).result()
    assert 1 <= sum(answered) <= BURST_CAP, answered
