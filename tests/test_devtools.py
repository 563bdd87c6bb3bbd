"""devtools/: the free ports, the one port-number rule, and starting a server until it answers."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from devtools.ports import free_port, free_ports, port_number
from devtools.serving import NotStarted, answers, start_server
from tests.waiting import settles


def test_a_free_port_can_be_bound():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", free_port()))


def test_free_ports_differ():
    ports = free_ports(5)
    assert len(set(ports)) == 5


@pytest.mark.parametrize(("value", "port"), [(1, 1), ("8080", 8080), (" 5007 ", 5007), (65535, 65535)])
def test_port_numbers(value, port):
    assert port_number(value) == port


@pytest.mark.parametrize(
    ("value", "said"),
    [("x", "'x' is not a port number; use 1-65535"), (0, "0 is not"), ("70000", "70000 is not"), ("", "'' is not")],
)
def test_what_is_not_a_port_number(value, said):
    with pytest.raises(ValueError, match=said):
        port_number(value)


def test_a_server_is_returned_once_it_answers():
    port = free_port()
    command = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"]
    process = start_server(command, f"http://127.0.0.1:{port}/", subprocess.DEVNULL, settles=settles)
    try:
        assert process.poll() is None and answers(f"http://127.0.0.1:{port}/")
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert not answers(f"http://127.0.0.1:{port}/")


def test_a_server_that_exits_is_reported():
    with pytest.raises(NotStarted, match="exited with status 3"):
        start_server([sys.executable, "-c", "raise SystemExit(3)"], f"http://127.0.0.1:{free_port()}/", None)


def test_a_server_that_never_answers_is_killed():
    command = [sys.executable, "-c", "import signal; signal.pause()"]  # a server that never answers
    with pytest.raises(NotStarted, match="did not answer"):
        start_server(command, f"http://127.0.0.1:{free_port()}/", subprocess.DEVNULL, timeout=0.5, settles=settles)
