"""Bokeh's and Panel's files compressed with brotli at its highest quality, once per machine.

Brotli at quality 11 makes a lesson's JavaScript about 136 kB smaller than gzip -9 does (BokehJS
279 kB against 351 kB, Panel's bundle 156 against 192), about 0.3 s less on a phone's slow 4G. It
costs about 4 s of CPU per page's files, far too much to spend while a student waits, so
:func:`compressed` never makes a request wait for it: the first request for a file starts its compression on one
background thread (brotli lets go of the GIL while it works) and is answered gzipped
(:mod:`app.web.delivery.compression`); once it is done, every client that accepts ``br`` gets it.

The result is kept in memory for the process's life and on disk in :func:`cache_directory`, named
by the SHA-256 of the original bytes, so the next start, and every other process on the machine,
reads it instead (a lock file lets one process compress at a time, the others then read its result). What is read
from disk is used only if it decompresses to the file's bytes. Without a usable directory (none
writable, or ``OVERLAP_LAB_CACHE_DIR`` set to an empty string), each process compresses for itself.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import tempfile
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import brotli

QUALITY = 11
"""Brotli's quality: the highest, as the work is done once per file and machine."""

CACHE_ENV = "OVERLAP_LAB_CACHE_DIR"
"""An environment variable naming the cache directory; an empty value means no disk cache."""

LOCK_NAME = "compressing.lock"
"""The file in the cache directory that one process at a time holds while it compresses."""

log = logging.getLogger(__name__)

_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="brotli")
"""One thread: compression takes at most one core from the students' sessions."""

_lock = threading.Lock()
_results: dict[tuple[str, int, int], Future[bytes | None]] = {}


def cache_directory() -> Path | None:
    """Where compressed files are kept between starts, created (owner-only) if missing.

    Returns
    -------
    pathlib.Path or None
        ``$OVERLAP_LAB_CACHE_DIR``, else ``$XDG_CACHE_HOME/overlap-lab``, else
        ``~/.cache/overlap-lab``; None when the variable is empty or the directory cannot be made
        or written.
    """
    named = os.environ.get(CACHE_ENV)
    if named == "":
        return None
    if named:
        directory = Path(named)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
        directory = Path(base) / "overlap-lab"
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return None
    return directory if os.access(directory, os.W_OK | os.X_OK) else None


def compressed(absolute_path: str) -> tuple[bool, bytes | None]:
    """Whether the file's brotli bytes are made, and they; if not begun, begin making them.

    Parameters
    ----------
    absolute_path : str
        A file a static handler has validated.

    Returns
    -------
    tuple
        ``(False, None)`` while the file is being compressed; ``(True, bytes)`` once done, or
        ``(True, None)`` when brotli does not make it smaller (or failed).
    """
    result = _result(absolute_path)
    return (True, result.result()) if result.done() else (False, None)


def wait(absolute_path: str, timeout: float | None = None) -> bytes | None:
    """The file's brotli bytes, waiting for them (for tests: requests never wait, see :func:`compressed`).

    Parameters
    ----------
    absolute_path : str
        A file a static handler has validated.
    timeout : float, optional
        Seconds to wait at most; ``concurrent.futures.TimeoutError`` after that.

    Returns
    -------
    bytes or None
        The compressed file, or None when brotli does not make it smaller (or failed).
    """
    return _result(absolute_path).result(timeout)


def forget() -> None:
    """Forget what this process has compressed (the disk cache stays): for tests."""
    with _lock:
        _results.clear()


def _result(absolute_path: str) -> Future[bytes | None]:
    stat = os.stat(absolute_path)
    key = (absolute_path, stat.st_size, stat.st_mtime_ns)
    with _lock:
        result = _results.get(key)
        if result is None:
            result = _results[key] = _worker.submit(_compress_or_none, absolute_path)
        return result


def _compress_or_none(absolute_path: str) -> bytes | None:
    """:func:`_compress`, or None if that fails (the file then goes gzipped, as before)."""
    try:
        return _compress(absolute_path)
    except Exception:  # a file gone, a brotli error: never the student's problem
        log.exception("brotli: %s not compressed", absolute_path)
        return None


def _compress(absolute_path: str) -> bytes | None:
    raw = Path(absolute_path).read_bytes()
    directory = cache_directory()
    if directory is None:
        return _smaller(brotli.compress(raw, quality=QUALITY), raw)
    kept = directory / f"{hashlib.sha256(raw).hexdigest()}.br"
    body = _read_verified(kept, raw)
    if body is not None:
        return _smaller(body, raw)
    try:
        with open(directory / LOCK_NAME, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another process compressing: wait for it, it may be this file
            body = _read_verified(kept, raw)
            if body is None:
                body = brotli.compress(raw, quality=QUALITY)
                _write(kept, body)
    except OSError as error:
        log.info("brotli: %s not kept on disk (%s)", absolute_path, error)
        body = body if body is not None else brotli.compress(raw, quality=QUALITY)
    return _smaller(body, raw)


def _read_verified(kept: Path, raw: bytes) -> bytes | None:
    """The kept bytes if they decompress to ``raw`` (a partial or foreign file is not used)."""
    try:
        body = kept.read_bytes()
        return body if brotli.decompress(body) == raw else None
    except (OSError, brotli.error):
        return None


def _write(kept: Path, body: bytes) -> None:
    """Write ``body`` to ``kept`` whole or not at all (a reader never sees half a file)."""
    handle, temporary = tempfile.mkstemp(dir=kept.parent, prefix=kept.name, suffix=".part")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(body)
        os.replace(temporary, kept)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
        raise


def _smaller(body: bytes, raw: bytes) -> bytes | None:
    return body if len(body) < len(raw) else None
