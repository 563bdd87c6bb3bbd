"""Background work: a failure in the worker thread is said in the server's log, never lost."""

from __future__ import annotations

import asyncio
import logging
import threading
from types import SimpleNamespace

import panel as pn

from app.web.background import in_worker_thread


def test_a_failure_in_the_worker_is_logged_and_done_is_not_called(caplog, monkeypatch):
    served = SimpleNamespace(session_context=object())  # as a server session's document looks here
    monkeypatch.setattr(type(pn.state), "curdoc", property(lambda _self: served))
    called = []

    def work() -> None:
        raise ValueError("the database went away")

    async def run() -> None:
        in_worker_thread(work, called.append)
        for _ in range(200):  # the worker's result comes back through the loop
            if caplog.records:
                return
            await asyncio.sleep(0.01)

    # A loop of its own, in a thread of its own: Playwright's sync API may run one in this thread.
    with caplog.at_level(logging.ERROR, logger="app.web.background"):
        loop_thread = threading.Thread(target=lambda: asyncio.run(run()))
        loop_thread.start()
        loop_thread.join()
    assert called == []
    assert [record.getMessage() for record in caplog.records] == ["background work failed"]
    assert "the database went away" in caplog.text
