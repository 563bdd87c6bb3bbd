"""Blocking work (a database read, a trace parse) off the event loop, with its result back under the session's lock.

Both ends run under the document's lock, as every other change of a page does, so a page never
changes from an unlocked callback while its own messages are still being written. (The trace page
once did; on a slowed server its last update then sometimes never arrived. The cause was a race in
Panel's queued writes, fixed in :mod:`app.upstream.panel_write_queue`;
tests/browser/test_slow_server_browser.py checks it.)

The work runs in one of two named thread pools, never in asyncio's default executor:

- :data:`CLASS_DB` (the default): the class database's reads and writes, short and I/O-bound;
- :data:`TRACE_POOL`: trace parsing, CPU-bound and up to a minute a file, :data:`TRACE_WORKERS`
  at once per process, the rest queued.

Six slow parses in one shared pool once held every thread of it for two minutes, and a student's
vote waited behind them (security review v6, H2); with a pool each, a parse waits only for parses.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Any

import panel as pn
from panel.io.state import set_curdoc

LOG = logging.getLogger(__name__)

TRACE_WORKERS = 2
"""Trace files parsed at once per process; the others wait in :data:`TRACE_POOL`'s queue."""


class WorkerPool:
    """A named pool of worker threads that knows how much of its work runs and how much waits.

    The threads are started on first use. The counts are read by pages that say "waiting" while
    their work is queued behind others'.

    Parameters
    ----------
    name : str
        Its threads' name prefix (``overlap-trace_0``...), as seen in a profiler or ``py-spy dump``.
    workers : int
        Threads, 1 or more: at most this much work runs at once.
    """

    def __init__(self, name: str, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"a pool needs at least one worker, not {workers}")
        self.name = name
        self.workers = workers
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._running = 0
        self._queued = 0

    @property
    def running(self) -> int:
        """How many pieces of work run now."""
        return self._running

    @property
    def queued(self) -> int:
        """How many pieces of work wait for a free thread."""
        return self._queued

    def full(self) -> bool:
        """Whether work submitted now would wait (every thread busy, or work already waiting)."""
        with self._lock:
            return self._running + self._queued >= self.workers

    def submit(self, work: Callable[[], Any], started: Callable[[], None] | None = None) -> Future:
        """Run ``work`` on one of the pool's threads as soon as one is free.

        Parameters
        ----------
        work : callable
            Called with no argument on a worker thread.
        started : callable, optional
            Called on the worker thread just before ``work``, once it leaves the queue.

        Returns
        -------
        concurrent.futures.Future
            ``work``'s result or exception.
        """
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix=f"overlap-{self.name}")
            self._queued += 1
            executor = self._executor

        def run() -> Any:
            with self._lock:
                self._queued -= 1
                self._running += 1
            try:
                if started is not None:
                    started()
                return work()
            finally:
                with self._lock:
                    self._running -= 1

        try:
            return executor.submit(run)
        except RuntimeError:  # the interpreter is shutting down: nothing will run it
            with self._lock:
                self._queued -= 1
            raise


CLASS_DB = WorkerPool("class-db", min(32, (os.cpu_count() or 1) + 4))
"""The class database's pool (as many threads as asyncio's default executor had)."""
TRACE_POOL = WorkerPool("trace", TRACE_WORKERS)
"""The trace parser's pool: :data:`TRACE_WORKERS` parses at once per process."""


def _in_write_order(done: Callable[[Any], None], result: Any) -> None:
    """``done(result)`` with its changes sent after every change of the page still waiting to be written.

    Panel sends its own components' changes through a queue of writes (``pn.io.unlocked``), which
    holds them while the socket is busy; Bokeh sends a change made directly to a Bokeh model (a
    readout's ``Div``, a chart's data) at once, on its own path. A draw made outside Panel's queue
    could so reach the browser before the change that put its models on the page: the browser
    dropped it ("reference … isn't known") and, the next draws being equal, the instructor's page
    kept "Reading the class…" (CI, December 2026). Made inside ``unlocked``, the draw joins the
    same queue, behind what is waiting.
    """
    with pn.io.unlocked():
        done(result)


def _on_session_loop(loop: asyncio.AbstractEventLoop, doc: Any, call: Callable[[], None]) -> None:
    """``call()`` on the session's event loop, under its document's lock, from any thread."""

    def schedule() -> None:
        with set_curdoc(doc):
            pn.state.execute(call, schedule=True)

    loop.call_soon_threadsafe(schedule)


def in_worker_thread(
    work: Callable[[], Any],
    done: Callable[[Any], None],
    pool: WorkerPool = CLASS_DB,
    started: Callable[[], None] | None = None,
) -> None:
    """Run ``work`` in a worker thread of ``pool``, then ``done(result)`` under the current session's lock.

    Without a running server session (a headless test) both run at once, in order.

    Parameters
    ----------
    work : callable
        The blocking work; its exception is logged, and ``done`` is then not called.
    done : callable
        Given ``work``'s result, on the event loop under the session's lock.
    pool : WorkerPool, optional
        :data:`CLASS_DB` (the class database's) by default; :data:`TRACE_POOL` for trace parsing.
    started : callable, optional
        Called under the session's lock when ``work`` leaves the pool's queue (a page that said
        "waiting" says "reading" then).
    """
    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:
        if started is not None:
            started()
        done(work())
        return
    loop = asyncio.get_running_loop()
    began = None
    if started is not None:
        began = partial(_on_session_loop, loop, doc, partial(_in_write_order, lambda _none: started(), None))
    future = asyncio.wrap_future(pool.submit(work, began), loop=loop)

    def finished(completed: asyncio.Future) -> None:
        if completed.cancelled():
            return
        if completed.exception() is not None:  # said in the server's log, never silently lost
            LOG.error("background work failed", exc_info=completed.exception())
            return
        with set_curdoc(doc):
            pn.state.execute(partial(_in_write_order, done, completed.result()), schedule=True)

    future.add_done_callback(finished)
