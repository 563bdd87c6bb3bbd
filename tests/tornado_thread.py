"""Tornado handlers served alone, on a thread and event loop of their own, for tests over HTTP.

Playwright's sync API keeps an event loop running in the main thread for the whole session once a
browser test has run, so Tornado's own test case cannot run one there.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from tornado.httpserver import HTTPServer
from tornado.web import Application

from devtools.ports import free_port


@contextmanager
def serving(routes: list) -> Iterator[str]:
    """Serve ``routes`` in a bare ``tornado.web.Application`` on a free loopback port.

    Parameters
    ----------
    routes : list
        Tornado routes, e.g. ``[(r"/x", Handler)]``.

    Yields
    ------
    str
        The server's base URL, ``http://127.0.0.1:<port>``; the server stops when the block ends.
    """
    port = free_port()
    ready = threading.Event()
    loops: list[asyncio.AbstractEventLoop] = []

    def serve() -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        server = HTTPServer(Application(routes))
        server.listen(port, "127.0.0.1")
        loops.append(loop)
        ready.set()
        loop.run_forever()
        server.stop()
        loop.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert ready.wait(60), "the test server did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        loops[0].call_soon_threadsafe(loops[0].stop)
        thread.join(timeout=30)
