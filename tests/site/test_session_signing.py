"""Signed Bokeh sessions: a token written by anyone but the server is refused at the websocket."""

from __future__ import annotations

import asyncio
import json
import re
import sys
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from bokeh.util.token import generate_jwt_token, get_session_id, get_token_payload
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

from app.web.session_signing import MIN_LENGTH, SECRET_ENV, WeakSecret, session_secret
from devtools.ports import free_port
from tests.conftest import LiveServer, serve

TOKEN = re.compile(r'"token":\s*"([^"]+)"')


@pytest.fixture(scope="module")
def signed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    port = free_port()
    log = tmp_path_factory.mktemp("signing") / "server.log"
    server = serve([sys.executable, "-m", "app", "--port", str(port)], port, log)
    yield server
    server.process.terminate()
    server.process.wait(timeout=10)


def page_token(url: str) -> str:
    with urllib.request.urlopen(url, timeout=60) as reply:
        match = TOKEN.search(reply.read().decode("utf-8", errors="replace"))
    assert match, f"no session token in {url}"
    return match.group(1)


async def first_message(base_url: str, path: str, token: str) -> str | None:
    """The first websocket frame the server sends for ``token`` (None when it closes instead)."""
    request = HTTPRequest(f"ws{base_url[4:]}{path}/ws", headers={"Origin": base_url}, request_timeout=60)
    try:
        socket = await websocket_connect(request, subprotocols=["bokeh", token])
    except Exception:  # refused during the handshake
        return None
    try:
        frame = await asyncio.wait_for(socket.read_message(), 60)
    finally:
        socket.close()
    return frame if isinstance(frame, str) else None


def first_message_of(base_url: str, path: str, token: str) -> str | None:
    """:func:`first_message`, run on an event loop of its own in another thread.

    Playwright's sync API keeps an event loop running in this thread once a browser test has run.
    """
    with ThreadPoolExecutor(max_workers=1) as worker:
        return worker.submit(asyncio.run, first_message(base_url, path, token)).result()


def msgtype(frame: str | None) -> str | None:
    return None if frame is None else json.loads(frame).get("msgtype")


def test_the_servers_own_token_is_answered(signed_server: LiveServer) -> None:
    token = page_token(signed_server.url + "/queue")
    assert msgtype(first_message_of(signed_server.url, "/queue", token)) == "ACK"


@pytest.mark.parametrize("forged", ["unsigned", "other key"])
def test_a_forged_token_for_a_real_session_id_is_refused(signed_server: LiveServer, forged: str) -> None:
    real = page_token(signed_server.url + "/queue")
    session_id = get_session_id(real)
    payload = get_token_payload(real)
    payload.pop("session_expiry", None)
    key = None if forged == "unsigned" else b"x" * 43
    token = generate_jwt_token(
        session_id, secret_key=key, signed=key is not None, extra_payload=payload, expiration=3600
    )
    assert msgtype(first_message_of(signed_server.url, "/queue", token)) is None
    assert signed_server.process.poll() is None


def test_a_short_key_is_refused_and_none_makes_one() -> None:
    with pytest.raises(WeakSecret, match=f"use at least {MIN_LENGTH}"):
        session_secret({SECRET_ENV: "s3cret"})
    key, made = session_secret({})
    assert made and len(key) >= MIN_LENGTH
    given = "k" * MIN_LENGTH
    assert session_secret({SECRET_ENV: given}) == (given.encode(), False)


def test_the_server_refuses_to_start_with_a_short_key(tmp_path) -> None:
    import os
    import subprocess

    env = {**os.environ, SECRET_ENV: "short"}
    result = subprocess.run(
        [sys.executable, "-m", "app", "--port", str(free_port())], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1].startswith(f"Cannot start: {SECRET_ENV} has 5 characters")
