"""Blocking work (a database read, a trace parse) off the event loop, with its result back under the session's lock.

Both ends run under the document's lock, as every other change of a page does, so a page never
changes from an unlocked callback while its own messages are still being written. (The trace page
once did; on a slowed server its last update then sometimes never arrived. The cause was a race in
Panel's queued writes, fixed in :mod:`app.upstream.panel_write_queue`;
tests/browser/test_slow_server_browser.py checks it.)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from functools import partial
from typing import Any

import panel as pn
from panel.io.state import set_curdoc

LOG = logging.getLogger(__name__)


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


def in_worker_thread(work: Callable[[], Any], done: Callable[[Any], None]) -> None:
    """Run ``work`` in a worker thread, then ``done(result)`` under the current session's lock.

    Without a running server session (a headless test) both run at once, in order.
    """
    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:
        done(work())
        return
    future = asyncio.get_running_loop().run_in_executor(None, work)

    def finished(completed: asyncio.Future) -> None:
        if completed.cancelled():
            return
        if completed.exception() is not None:  # said in the server's log, never silently lost
            LOG.error("background work failed", exc_info=completed.exception())
            return
        with set_curdoc(doc):
            pn.state.execute(partial(_in_write_order, done, completed.result()), schedule=True)

    future.add_done_callback(finished)
