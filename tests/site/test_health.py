"""``/healthz`` (app.site.health): the status for anyone, the details for this machine or the instructor token alone."""

from __future__ import annotations

import json
import socket
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine

from app.classroom import TOKEN_ENV, signin
from app.classroom.limits import SIGN_IN_FAILURES_PER_ADDRESS, SignInLimiter
from app.site.health import is_loopback, shows_details
from devtools.ports import free_port
from tests.conftest import LiveServer, serve
from tests.waiting import poll

TOKEN = "a-test-token-for-the-health-report"
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def request_from(peer: str, **headers: str) -> HTTPServerRequest:
    """A request as Tornado's HTTP server makes one, from a socket whose other end is ``peer``."""
    connection = SimpleNamespace(context=SimpleNamespace(address=(peer, 40000), remote_ip=peer))
    start = RequestStartLine("GET", "/healthz", "HTTP/1.1")
    sent = HTTPHeaders({"Host": "localhost", **headers})
    return HTTPServerRequest(start_line=start, headers=sent, connection=connection)


@pytest.mark.parametrize(
    ("address", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.3.2.1", True),
        ("::1", True),
        ("::ffff:127.0.0.1", True),
        ("192.0.2.2", False),
        ("10.0.0.1", False),
        ("fd00::2", False),
        ("", False),
        ("not an address", False),
    ],
)
def test_loopback_addresses(address, loopback):
    assert is_loopback(address) is loopback


def test_details_for_this_machine_unless_a_proxy_forwarded_the_request(monkeypatch):
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    assert shows_details(request_from("127.0.0.1"))
    assert shows_details(request_from("::1"))
    assert not shows_details(request_from("192.0.2.2"))
    # nginx on this machine forwards students from anywhere: the peer is loopback, the header says so
    assert not shows_details(request_from("127.0.0.1", **{"X-Real-IP": "198.51.100.7"}))
    assert not shows_details(request_from("127.0.0.1", **{"X-Forwarded-For": "198.51.100.7"}))
    assert not shows_details(request_from("127.0.0.1", Forwarded="for=198.51.100.7"))
    # a header cannot make a request local: only the socket's peer counts
    assert not shows_details(request_from("192.0.2.2", **{"X-Real-IP": "127.0.0.1"}))


@pytest.fixture
def fresh_limit(monkeypatch) -> SignInLimiter:
    """The process's sign-in limiter, new for the test (it is shared by every try in a process)."""
    limit = SignInLimiter()
    monkeypatch.setattr(signin, "LIMIT", limit)
    return limit


def test_details_with_the_instructor_token_from_anywhere(monkeypatch, fresh_limit):
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    assert shows_details(request_from("192.0.2.2", Authorization=f"Bearer {TOKEN}"))
    assert shows_details(request_from("127.0.0.1", **{"X-Real-IP": "1.2.3.4", "Authorization": f"bearer {TOKEN}"}))
    assert not shows_details(request_from("192.0.2.2", Authorization="Bearer not-the-token"))
    assert not shows_details(request_from("192.0.2.2", Authorization=f"Basic {TOKEN}"))
    monkeypatch.delenv(TOKEN_ENV)
    assert not shows_details(request_from("192.0.2.2", Authorization="Bearer "))


def test_token_guesses_on_healthz_are_limited_and_logged_as_sign_in_tries(monkeypatch, fresh_limit, caplog):
    """A Bearer header on /healthz is a try at the instructor token: the sign-in limit holds here too."""
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    for guess in range(SIGN_IN_FAILURES_PER_ADDRESS):
        assert not shows_details(request_from("192.0.2.9", Authorization=f"Bearer guess-{guess}"))
    assert not shows_details(request_from("192.0.2.9", Authorization=f"Bearer {TOKEN}"))  # refused unchecked
    assert shows_details(request_from("192.0.2.10", Authorization=f"Bearer {TOKEN}"))  # another address
    assert "instructor sign-in failed from 192.0.2.9 on /healthz" in caplog.text
    assert "guess-" not in caplog.text and TOKEN not in caplog.text


# -- a real server, listening on every address ---------------------------------------------------


def own_address() -> str | None:
    """One of this machine's addresses that is not loopback (a request to it comes from it), or None."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.255.255.255", 1))  # no packet is sent: this only picks the outgoing address
            address = probe.getsockname()[0]
    except OSError:
        return None
    return None if is_loopback(address) else address


@pytest.fixture(scope="module")
def everywhere(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, int]]:
    """``python -m app --address 0.0.0.0`` with an instructor token, and its port."""
    port = free_port()
    log = tmp_path_factory.mktemp("health") / "server.log"
    command = [sys.executable, "-m", "app", "--port", str(port), "--address", "0.0.0.0"]
    server = serve(command, port, log, env={TOKEN_ENV: TOKEN})
    poll(lambda: health(f"http://127.0.0.1:{port}/healthz")[1]["status"] == "ok", what="/healthz saying ok")
    yield server, port
    server.process.terminate()
    server.process.wait(timeout=10)


def health(url: str, **headers: str) -> tuple[int, dict]:
    request = urllib.request.Request(url, headers=headers)
    try:
        with OPENER.open(request, timeout=30) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_a_request_from_loopback_gets_the_details(everywhere):
    server, port = everywhere
    status, report = health(f"http://127.0.0.1:{port}/healthz?frozen=1")
    assert status == 200
    assert report["status"] == "ok" and "pid" in report and "upstream" in report and "gc" in report


def test_a_forwarded_request_gets_the_status_alone(everywhere):
    server, port = everywhere
    assert health(f"http://127.0.0.1:{port}/healthz?frozen=1", **{"X-Real-IP": "198.51.100.7"}) == (
        200,
        {"status": "ok"},
    )


def test_a_request_from_another_address_gets_the_status_alone_unless_it_has_the_token(everywhere):
    server, port = everywhere
    address = own_address()
    if address is None:
        pytest.skip("this machine has no address but loopback")
    url = f"http://{address}:{port}/healthz?frozen=1"
    assert health(url) == (200, {"status": "ok"})
    assert health(url, Authorization="Bearer not-the-token") == (200, {"status": "ok"})
    status, report = health(url, Authorization=f"Bearer {TOKEN}")
    assert status == 200 and "pid" in report
    assert "Traceback" not in server.log.read_text()
