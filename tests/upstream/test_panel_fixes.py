"""app.upstream.panel_write_queue: a change Panel queues while it is still writing an earlier one is still written.

The race, step by step on one event loop: a dispatch task writes the first queued message and awaits
the write; the write completes (its continuation is now due); a second change is queued and its own
task started. The first task resumes first and clears the document's write mark; the second then sees
no mark and returns. Panel alone leaves the second message queued; with the fix it is written.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from bokeh.document import Document
from panel.io import document

from app.upstream import panel_write_queue as panel_fixes


class Socket:
    """A websocket whose writes the test completes by hand (and no Bokeh write in progress)."""

    def __init__(self) -> None:
        self.written: list[object] = []
        self.pending: list[asyncio.Future] = []


class Connection:
    def __init__(self) -> None:
        self._socket = Socket()
        self.protocol = type("Protocol", (), {"create": lambda _self, _kind, events: ("PATCH-DOC", *events)})()


def write(conn: Connection, msg: object = None) -> list[asyncio.Future]:
    future = asyncio.get_running_loop().create_future()
    conn._socket.written.append(msg)
    conn._socket.pending.append(future)
    return [future]


async def second_change_while_the_first_is_written(dispatch) -> list[object]:
    document.extra_socket_handlers[Socket] = write
    original = document._dispatch_msgs
    document._dispatch_msgs = dispatch
    try:
        doc, conn = Document(), Connection()
        document.schedule_write_events(doc, [conn], ["first"])
        for _ in range(5):
            await asyncio.sleep(0)  # the first task writes and now awaits the write
        assert conn._socket.written == [("PATCH-DOC", "first")]
        conn._socket.pending[0].set_result(None)  # written: the first task's continuation is due
        document.schedule_write_events(doc, [conn], ["second"])  # a change queued meanwhile
        for _ in range(20):
            await asyncio.sleep(0)
            for future in conn._socket.pending:
                if not future.done():
                    future.set_result(None)
        return conn._socket.written
    finally:
        document._dispatch_msgs = original
        document.extra_socket_handlers.pop(Socket, None)


def run_on_own_loop(dispatch) -> list[object]:
    """Run the race on a new event loop in a thread of its own.

    After a browser test, Playwright keeps an event loop running in the main thread, where
    ``asyncio.run`` then refuses to start another.
    """
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, second_change_while_the_first_is_written(dispatch)).result()


def test_panel_alone_leaves_the_second_change_queued():
    """The bug this module fixes; if a Panel release fixes it, this fails and the fix can go."""
    written = run_on_own_loop(panel_fixes._ORIGINAL)
    assert written == [("PATCH-DOC", "first")]


def test_with_the_fix_the_second_change_is_written_too():
    written = run_on_own_loop(panel_fixes.dispatch_queued_writes)
    assert written == [("PATCH-DOC", "first"), ("PATCH-DOC", "second")]


def test_install_makes_panel_use_the_fix(monkeypatch):
    monkeypatch.setattr(document, "_dispatch_msgs", panel_fixes._ORIGINAL)
    panel_fixes.install()
    assert document._dispatch_msgs is panel_fixes.dispatch_queued_writes
    panel_fixes.install()
    assert document._dispatch_msgs is panel_fixes.dispatch_queued_writes


@pytest.fixture(autouse=True)
def no_leftovers():
    yield
    assert not document._WRITE_BLOCK and not document._WRITE_MSGS
