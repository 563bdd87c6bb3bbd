"""A bench-only timer: the longest task the event loop ran (``OVERLAP_TASK_TIMER=1``).

A click waits behind whatever the server is doing when it arrives, so the longest single task
(one callback of the event loop: a page build, a websocket message, a patch) bounds how long a
click can be held back. ``bench/class_load.py`` starts the app with the variable set and reads the
figure from ``/healthz``. Off by default: it wraps every callback the loop runs.
"""

from __future__ import annotations

import asyncio
import gc
import time


class TaskTimer:
    """The longest and the total time of the event loop's callbacks since start (or the last reset)."""

    enabled = False
    longest = 0.0
    longest_name = ""
    count = 0
    longest_gc = 0.0
    gc_total = 0.0

    @classmethod
    def reset(cls) -> None:
        """Forget what was measured so far."""
        cls.longest, cls.longest_name, cls.count = 0.0, "", 0
        cls.longest_gc, cls.gc_total = 0.0, 0.0


def describe(handle: asyncio.events.Handle) -> str:
    """Name what a loop callback ran: the coroutine of a task step, else the callback itself.

    Parameters
    ----------
    handle : asyncio.events.Handle
        The callback the loop ran.

    Returns
    -------
    str
        For example ``"WSHandler._async_open"``.
    """
    callback = getattr(handle, "_callback", None)
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, asyncio.Task):
        coroutine = owner.get_coro()
        return getattr(coroutine, "__qualname__", repr(coroutine))[:200]
    return getattr(callback, "__qualname__", repr(handle))[:200]


def install() -> None:
    """Time every event-loop callback (idempotent).

    :func:`app.upstream.install` calls it when ``OVERLAP_TASK_TIMER=1`` is set.
    """
    if TaskTimer.enabled:
        return
    TaskTimer.enabled = True
    original = asyncio.events.Handle._run

    def timed_run(handle: asyncio.events.Handle) -> None:
        start = time.perf_counter()
        try:
            original(handle)
        finally:
            spent = time.perf_counter() - start
            TaskTimer.count += 1
            if spent > TaskTimer.longest:
                TaskTimer.longest = spent
                TaskTimer.longest_name = describe(handle)

    asyncio.events.Handle._run = timed_run  # type: ignore[method-assign]
    gc.callbacks.append(_time_collection)


_collection_started = 0.0


def _time_collection(phase: str, _info: dict) -> None:
    """Time the garbage collector's pauses (they happen inside whatever task allocates)."""
    global _collection_started
    if phase == "start":
        _collection_started = time.perf_counter()
        return
    spent = time.perf_counter() - _collection_started
    TaskTimer.gc_total += spent
    TaskTimer.longest_gc = max(TaskTimer.longest_gc, spent)
