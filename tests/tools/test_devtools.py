"""devtools/: the free ports, the one port-number rule, starting a server until it answers, slowing one down."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from devtools.ports import free_port, free_ports, port_number
from devtools.serving import NotStarted, answers, start_server
from devtools.throttle import DutyCycle
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


def process_state(pid: int) -> str:
    """The one-letter state procfs gives a process: R running, S sleeping, T stopped."""
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0]


def test_a_slowed_process_is_stopped_part_of_the_time_and_runs_freely_after():
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        with DutyCycle(busy.pid, share=0.5, period=0.2):
            assert settles(lambda: process_state(busy.pid) == "T", 10)
            assert settles(lambda: process_state(busy.pid) == "R", 10)
        assert process_state(busy.pid) != "T"
    finally:
        busy.kill()
        busy.wait()


def test_a_slowed_process_that_exits_ends_the_cycle():
    quick = subprocess.Popen([sys.executable, "-c", "pass"])
    quick.wait()
    with DutyCycle(quick.pid, share=0.5, period=0.01) as cycle:
        assert settles(lambda: not cycle.active, 10)


@pytest.mark.parametrize(("share", "period"), [(0, 0.05), (1.5, 0.05), (0.5, 0), (0.5, -1)])
def test_what_is_not_a_duty_cycle(share, period):
    with pytest.raises(ValueError, match="share|period"):
        DutyCycle(1, share=share, period=period)
