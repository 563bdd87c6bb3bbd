"""The server's own behaviour: quiet about closed tabs, loud about everything else."""

from __future__ import annotations

import asyncio

from tornado.websocket import WebSocketClosedError

from app.site.server import ignore_closed_websockets


def test_closed_tab_noise_is_dropped_and_real_errors_are_reported():
    loop = asyncio.new_event_loop()
    reported: list[dict] = []
    loop.default_exception_handler = reported.append  # type: ignore[method-assign]
    try:
        ignore_closed_websockets(loop, {"message": "never retrieved", "exception": WebSocketClosedError()})
        assert reported == []
        real = {"message": "boom", "exception": ZeroDivisionError()}
        ignore_closed_websockets(loop, real)
        assert reported == [real]
    finally:
        loop.close()
