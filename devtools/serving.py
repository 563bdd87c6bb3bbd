"""Start a server as a subprocess and return once it answers: the one way tests and benches do it."""

from __future__ import annotations

import os
import subprocess
import time
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO

REPOSITORY = Path(__file__).resolve().parents[1]
"""The checkout: where servers are started (``python -m app`` finds the app there)."""

Settles = Callable[[Callable[[], object], float], bool]
"""``settles(predicate, timeout)``: call ``predicate`` until it is true; say whether it was in time."""


class NotStarted(RuntimeError):
    """The server exited, or did not answer in time (it has been killed); ``str()`` says which."""


def answers(url: str, timeout: float = 5.0) -> bool:
    """Whether ``url`` answers now with a success (an HTTP error such as 503 counts as no).

    Parameters
    ----------
    url : str
        The address to ask.
    timeout : float
        Seconds to wait for this one answer.

    Returns
    -------
    bool
        True once the whole answer has been read.
    """
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            reply.read()
    except OSError:
        return False
    return True


def sleeping_settles(interval: float) -> Settles:
    """A :data:`Settles` that looks again every ``interval`` seconds (for programs outside tests/).

    Parameters
    ----------
    interval : float
        Seconds between two looks.

    Returns
    -------
    callable
        ``settles(predicate, timeout) -> bool``.
    """

    def settles(predicate: Callable[[], object], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                return False
            time.sleep(interval)
        return True

    return settles


def start_server(
    command: Sequence[str],
    url: str,
    output: IO | int,
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path = REPOSITORY,
    timeout: float = 60.0,
    request_timeout: float = 5.0,
    settles: Settles | None = None,
) -> subprocess.Popen:
    """Start ``command`` and wait until ``url`` answers (or the process exits, or time runs out).

    Parameters
    ----------
    command : sequence of str
        The server's command line.
    url : str
        An address that answers with a success once the server is ready (e.g. ``…/`` or ``…/healthz``).
    output : file or int
        Where the server's stdout and stderr go: an open file, ``subprocess.DEVNULL``, …
    env : mapping of str, optional
        Variables set for the server on top of this process's own environment.
    cwd : pathlib.Path
        The server's working directory: the checkout by default.
    timeout : float
        Seconds the server has to answer.
    request_timeout : float
        Seconds each single request may take.
    settles : callable, optional
        How to wait (see :data:`Settles`); a look every 0.2 s by default. The tests pass
        ``tests.waiting.settles``, so that their waits stay in one module.

    Returns
    -------
    subprocess.Popen
        The running server.

    Raises
    ------
    NotStarted
        When it exited or did not answer within ``timeout``; then it has been killed.
    """
    process = subprocess.Popen(
        list(command), cwd=cwd, stdout=output, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
    )
    settles = settles or sleeping_settles(0.2)
    answered = settles(lambda: process.poll() is not None or answers(url, request_timeout), timeout)
    if process.poll() is None and answered:
        return process
    process.kill()
    status = process.wait()
    said = f"exited with status {status}" if answered else f"did not answer {url} within {timeout:g} s"
    raise NotStarted(f"`{' '.join(command)}` {said}")
