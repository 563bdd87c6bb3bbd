"""TCP ports: a free one to serve on, and the one rule for what a port number is."""

from __future__ import annotations

import socket

LOOPBACK = "127.0.0.1"
"""Where test, bench and tool servers listen: this machine only."""

PORT_RANGE = (1, 65535)
"""The port numbers a server can be given."""


def free_port(host: str = LOOPBACK) -> int:
    """A TCP port nothing listens on at ``host`` right now (the system picks it).

    Parameters
    ----------
    host : str
        The IPv4 address to look on.

    Returns
    -------
    int
        The port; free a moment ago, so whoever uses it should do so soon.
    """
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def free_ports(count: int, host: str = LOOPBACK) -> list[int]:
    """``count`` different free ports (see :func:`free_port`).

    Parameters
    ----------
    count : int
        How many.
    host : str
        The IPv4 address to look on.

    Returns
    -------
    list of int
        The ports, all different.
    """
    ports: list[int] = []
    while len(ports) < count:
        port = free_port(host)
        if port not in ports:
            ports.append(port)
    return ports


def port_number(value: int | str) -> int:
    """Read a port number: an integer from 1 to 65535, given as such or as text.

    Parameters
    ----------
    value : int or str
        For example ``8080`` or ``"8080"``.

    Returns
    -------
    int
        The port.

    Raises
    ------
    ValueError
        Saying in one line what is wrong, e.g. ``'x' is not a port number; use 1-65535``.
    """
    low, high = PORT_RANGE
    hint = f"is not a port number; use {low}-{high}"
    try:
        port = int(value)
    except ValueError:
        raise ValueError(f"{value!r} {hint}") from None
    if not low <= port <= high:
        raise ValueError(f"{port} {hint}")
    return port
