"""Serve every page with ``python -m app`` (what ``make serve`` runs)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

import panel as pn
from tornado.iostream import StreamClosedError
from tornado.websocket import WebSocketClosedError

from app.content import SpecError
from app.library import lessons
from app.pages import index, lesson, queue, roofline


def routes() -> dict[str, object]:
    """Map each URL path to the function that builds that page for one session.

    Returns
    -------
    dict of str to callable
        Functions, never instances, so that every session gets its own models.
    """
    return {
        "/": index.build,
        "/lesson": lesson.build,
        "/queue": queue.build,
        "/roofline": roofline.build,
    }


def main(argv: list[str] | None = None) -> None:
    """Start the server (blocks until interrupted).

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments; see ``python -m app --help``.
    """
    parser = argparse.ArgumentParser(description="Serve Overlap Lab.")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "5006")))
    parser.add_argument("--address", default=os.environ.get("ADDRESS", "localhost"))
    parser.add_argument(
        "--allow-websocket-origin",
        action="append",
        default=[o for o in os.environ.get("ALLOW_WEBSOCKET_ORIGIN", "").split(",") if o],
        help="Host[:port] browsers may connect from (repeatable); needed behind a proxy.",
    )
    parser.add_argument("--num-procs", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        lessons()
    except SpecError as error:
        sys.exit(f"Cannot start: a lesson spec is malformed.\n{error}")
    origins = args.allow_websocket_origin or [f"localhost:{args.port}", f"127.0.0.1:{args.port}"]
    server = pn.serve(
        routes(),
        port=args.port,
        address=args.address,
        websocket_origin=origins,
        show=False,
        start=False,
        title="Overlap Lab",
        num_procs=args.num_procs,
    )
    server.io_loop.asyncio_loop.set_exception_handler(ignore_closed_websockets)
    server.start()
    server.io_loop.start()


def ignore_closed_websockets(loop: asyncio.AbstractEventLoop, context: dict) -> None:
    """Drop the noise of a write to a tab that was just closed; report everything else.

    Panel writes to websockets without awaiting the result, so a browser that closes its tab while
    a reply is on its way leaves a "Task exception was never retrieved" with a traceback in the
    log. With a class of students closing tabs that buries real errors, and it is not one.

    Parameters
    ----------
    loop : asyncio.AbstractEventLoop
        The server's event loop.
    context : dict
        asyncio's description of the unhandled exception.
    """
    if isinstance(context.get("exception"), WebSocketClosedError | StreamClosedError):
        return
    loop.default_exception_handler(context)
