"""Lesson sessions opened together and kept open, and the server's RSS while it discards closed ones.

``bench/session_memory.py`` opens batches of :class:`bench.lib.raw_session.RawSession` sessions of
the student's page (:data:`bench.lib.student.LESSON_PATH`), closes them as closing the browser tabs
would, and samples the server's resident memory while the Bokeh server discards them.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from bench.lib.raw_session import RawSession, http_client
from bench.lib.servers import AppServer
from bench.lib.student import LESSON_PATH


@dataclass
class Batch:
    """Sessions opened together.

    Attributes
    ----------
    sessions : list of RawSession
        The sessions that opened.
    errors : list of str
        Why the others did not.
    seconds : float
        Wall time to open them all.
    """

    sessions: list[RawSession] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0


async def open_batch(base_url: str, count: int, concurrency: int, timeout: float) -> Batch:
    """Open ``count`` lesson sessions, at most ``concurrency`` at a time, and keep them open.

    Parameters
    ----------
    base_url : str
        ``http://127.0.0.1:<port>``.
    count : int
        How many sessions.
    concurrency : int
        How many may be opening at once.
    timeout : float
        Seconds allowed for each step of opening one session.

    Returns
    -------
    Batch
        The open sessions and any errors.
    """
    batch = Batch()
    client = http_client(max_clients=concurrency)
    gate = asyncio.Semaphore(concurrency)
    started = time.perf_counter()

    async def one() -> None:
        async with gate:
            session = RawSession(base_url, LESSON_PATH, client)
            try:
                await session.open(timeout)
                batch.sessions.append(session)
            except Exception as error:  # noqa: BLE001 - a failed open is counted, not fatal
                batch.errors.append(f"{type(error).__name__}: {error}"[:200])
                await session.close()

    await asyncio.gather(*(one() for _ in range(count)))
    batch.seconds = time.perf_counter() - started
    client.close()
    return batch


async def close_batch(batch: Batch) -> None:
    """Close every websocket of a batch, as closing the browser tabs would."""
    await asyncio.gather(*(session.close() for session in batch.sessions))


async def settle(server: AppServer, seconds: float, interval: float = 2.0) -> list[tuple[float, float]]:
    """Wait for the server to discard closed sessions, sampling its RSS.

    Parameters
    ----------
    server : AppServer
        The server.
    seconds : float
        How long to wait.
    interval : float
        Seconds between samples.

    Returns
    -------
    list of (float, float)
        ``(seconds since the wait began, RSS in MiB)``; the last sample is taken at the end.
    """
    samples = []
    started = time.perf_counter()
    for _ in range(int(seconds / interval) + 1):
        elapsed = time.perf_counter() - started
        samples.append((elapsed, server.rss_mb()))
        if elapsed >= seconds:
            break
        await asyncio.sleep(min(interval, seconds - elapsed))
    else:
        samples.append((time.perf_counter() - started, server.rss_mb()))
    return samples


def trace(samples: list[tuple[float, float]]) -> str:
    """A compact ``t:RSS`` trace of :func:`settle` samples, about every 10 s."""
    shown, last = [], -10.0
    for elapsed, rss in samples:
        if elapsed - last >= 9.5 or (elapsed, rss) == samples[-1]:
            shown.append(f"{elapsed:.0f}s:{rss:.1f}")
            last = elapsed
    return " ".join(shown)
