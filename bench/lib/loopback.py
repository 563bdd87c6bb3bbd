"""Where a bench may send traffic: servers on this machine's loopback, and nowhere else."""

from __future__ import annotations

from urllib.parse import urlsplit

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
"""Host names a bench URL may have."""


def check_loopback(url: str) -> str:
    """``url`` itself, if it is an ``http://`` URL on a loopback host; otherwise a ``ValueError``.

    Parameters
    ----------
    url : str
        An ``http://`` URL.

    Returns
    -------
    str
        The URL without a trailing slash.

    Raises
    ------
    ValueError
        For another scheme or any other host.
    """
    parts = urlsplit(url)
    if parts.scheme != "http" or parts.hostname not in LOOPBACK_HOSTS:
        raise ValueError(f"only http:// URLs on this machine's loopback are allowed, not {url!r}")
    return url.rstrip("/")
