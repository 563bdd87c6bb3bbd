"""Serve every page with ``python -m app`` (what ``make serve`` runs)."""

from __future__ import annotations

import argparse
import asyncio
import errno
import os
import sys

import panel as pn
from tornado.iostream import StreamClosedError
from tornado.web import GZipContentEncoding
from tornado.websocket import WebSocketClosedError

from app import upstream
from app.classroom import CLASS_DB_ENV, StoreUnavailable, configure, ensure_token, token_problem
from app.classroom.http import ClassDataHandler
from app.course.catalog import import_every_view
from app.course.content import SpecError
from app.course.library import lessons
from app.site import capacity, components
from app.site.first_frames import draw_every_first_frame
from app.site.health import HealthHandler
from app.site.pages import index, instructor, lesson
from app.site.pages.lab import embed_routes, lab_routes
from app.site.sessions import counted, enable_session_reuse, warm_up, warm_up_paths
from app.site.urls import NotFoundHandler, url_rules
from app.trace.page import trace
from app.upstream import routes_first
from app.web import frame_headers, security_headers, serving_settings, session_signing, share
from app.web.delivery import compression
from app.web.frame_headers import EMBED_LESSON


def routes() -> dict[str, object]:
    """Map each URL path to the function that builds that page for one session.

    Returns
    -------
    dict of str to callable
        Functions, never instances, so that every session gets its own models.
    """
    pages = {
        "/": index.build,
        "/lesson": lesson.build,
        "/trace": trace.build,
        "/instructor": instructor.build,
        **lab_routes(),
        **embed_routes(),
        EMBED_LESSON: lesson.build_embed,
    }
    return {path: counted(build) for path, build in pages.items()}


def _bounded(kind: type, low: float, high: float, what: str):
    """An argparse type: a number of ``kind`` from ``low`` to ``high``, refused in one line saying what to use."""

    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value:g} is out of range for {what}")
        return value

    return parse


_port = _bounded(int, 0, 65535, "a port number; use 1-65535 (0: any free port)")
_processes = _bounded(int, 0, 256, "a number of processes; use 1 or more (0: one per core)")
_seconds = _bounded(float, 1, 86_400, "a number of seconds from 1 to 86400")
_sessions = _bounded(int, 0, 1_000_000, "a number of sessions; use 1 or more (0: no cap)")


def _origins(text: str) -> str:
    """An argparse type: ``--embed-from``'s origins (:func:`app.web.frame_headers.parse_origins`)."""
    try:
        return frame_headers.parse_origins(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _public_url(text: str) -> str:
    """An argparse type: ``--public-url`` (:func:`app.web.share.parse_public_url`)."""
    try:
        return share.parse_public_url(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Read the command line (and the environment's ``PORT``, ``ADDRESS``, ``EMBED_FROM``, ``MAX_SESSIONS``, …).

    The environment also gives ``ALLOW_WEBSOCKET_ORIGIN``, ``PUBLIC_URL``, ``UNUSED_SESSION_LIFETIME``,
    ``CHECK_UNUSED_SESSIONS`` and ``CLASS_DB``.

    Parameters
    ----------
    argv : list of str, optional
        The arguments; ``sys.argv[1:]`` by default.

    Returns
    -------
    argparse.Namespace
        The settings. A bad value exits with status 2 and one line saying what to use.
    """
    parser = argparse.ArgumentParser(prog="python -m app", description="Serve Overlap Lab.")
    parser.add_argument("--port", type=_port, default=os.environ.get("PORT", "5006"))
    parser.add_argument("--address", default=os.environ.get("ADDRESS", "localhost"))
    parser.add_argument(
        "--allow-websocket-origin",
        action="append",
        default=[o for o in os.environ.get("ALLOW_WEBSOCKET_ORIGIN", "").split(",") if o],
        help="Host[:port] browsers may connect from (repeatable); needed behind a proxy.",
    )
    parser.add_argument(
        "--num-procs",
        type=_processes,
        default=1,
        help="Processes sharing this port (default 1). For a class prefer separate ports behind nginx.",
    )
    parser.add_argument(
        "--unused-session-lifetime",
        type=_seconds,
        default=os.environ.get("UNUSED_SESSION_LIFETIME", "15"),
        help="Seconds a session is kept after its tab closed (default 15).",
    )
    parser.add_argument(
        "--check-unused-sessions",
        type=_seconds,
        default=os.environ.get("CHECK_UNUSED_SESSIONS", "10"),
        help="How often, in seconds, closed sessions are looked for and freed (default 10).",
    )
    parser.add_argument(
        "--max-sessions",
        type=_sessions,
        default=os.environ.get(capacity.MAX_SESSIONS_ENV, str(capacity.DEFAULT_MAX_SESSIONS)),
        help=(
            f"Live sessions this process holds (default {capacity.DEFAULT_MAX_SESSIONS}; 0: no cap); past it a "
            "student gets a 'course is full, try again in a minute' page (HTTP 503), not a slow page."
        ),
    )
    parser.add_argument(
        "--class-db",
        default=os.environ.get(CLASS_DB_ENV, ""),
        metavar="URL",
        help=(
            "Collect the class's locked predictions for /instructor in this database: sqlite:///class.db "
            "(all processes on one machine) or postgresql+psycopg://user:password@host/db. Default: off."
        ),
    )
    parser.add_argument(
        "--embed-from",
        type=_origins,
        default=os.environ.get("EMBED_FROM", frame_headers.ANY_ORIGIN),
        metavar="ORIGINS",
        help=(
            "The sites that may show /embed/<lab> in a frame: origins separated by spaces or commas, "
            "e.g. https://course.example.edu (sent as Content-Security-Policy: frame-ancestors). Default: * (any)."
        ),
    )
    parser.add_argument(
        "--use-xheaders",
        action="store_true",
        default=os.environ.get("USE_XHEADERS", "") not in ("", "0", "false", "no"),
        help=(
            "Behind a proxy that sets X-Real-IP (nginx, an Ingress): take the client's address from it, for the "
            "per-address limits. Never without such a proxy in front: a client could then name any address."
        ),
    )
    parser.add_argument(
        "--public-url",
        type=_public_url,
        default=os.environ.get(share.PUBLIC_URL_ENV, ""),
        metavar="URL",
        help=(
            "The address students use, behind a proxy (e.g. https://course.example.org/overlap/): "
            "the Share buttons' links start with it. Default: the address the browser used."
        ),
    )
    return parser.parse_args(argv)  # argparse runs string defaults (from the environment) through type too


def main(argv: list[str] | None = None) -> None:
    """Start the server (blocks until interrupted).

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments; see ``python -m app --help``.
    """
    args = parse_args(argv)
    share.set_public_url(args.public_url)
    share.set_own_server(True)  # the Share buttons may offer /<slug> and /embed/… (app.web.share)
    upstream.install()  # every library fix checked on these versions (app.upstream; docs/upstream-fixes.md)
    serving_settings.install()  # Bokeh's development checks off, unless the environment says (app.web.serving_settings)
    import_every_view()  # every lab's models known to every page, lazily opened labs included (app.course.catalog)
    try:
        lessons()
    except SpecError as error:
        sys.exit(f"Cannot start: a lesson spec is malformed.\n{error}")
    draw_every_first_frame()  # each lab's picture for the pages' first paint, once (app.site.first_frames)
    if args.class_db:
        token, made = ensure_token()
        weak = token_problem(token)
        if weak:  # one line, never the token itself
            sys.exit(f"Cannot start: INSTRUCTOR_TOKEN is too weak ({weak}); unset it to have a strong one made up.")
        try:
            configure(args.class_db)
        except StoreUnavailable as error:
            sys.exit(f"Cannot start: {error}; check --class-db (or CLASS_DB).")
        if made:
            print(f"Class on. Instructor token (type it on /instructor; set INSTRUCTOR_TOKEN to choose one): {token}")
    else:
        configure(None)
    try:
        secret, _ = session_signing.session_secret()
    except session_signing.WeakSecret as error:
        sys.exit(f"Cannot start: {error}")
    origins = args.allow_websocket_origin or [f"localhost:{args.port}", f"127.0.0.1:{args.port}"]
    enable_session_reuse()
    pages = routes()
    try:
        server = pn.serve(
            pages,
            port=args.port,
            address=args.address,
            websocket_origin=origins,
            show=False,
            start=False,
            title="Overlap Lab",
            num_procs=args.num_procs,
            extra_patterns=[
                *components.ROUTES,  # before Panel's own /components/ route: no import named by a URL
                (r"/healthz", HealthHandler),
                (r"/instructor/(export\.csv|rounds\.json)", ClassDataHandler),
            ],
            default_handler_class=NotFoundHandler,  # a Tornado setting: what answers a path no route matches
            unused_session_lifetime_milliseconds=int(args.unused_session_lifetime * 1000),
            check_unused_sessions_milliseconds=int(args.check_unused_sessions * 1000),
            # a Tornado setting: gzip the pages' HTML (static files: app.web.delivery.compression)
            compress_response=True,
            # Tornado's transforms, as its Application takes them, in order: the security headers on every
            # response and the pages' script nonces (app.web.security_headers), then that gzip
            transforms=[security_headers.transform(args.embed_from), GZipContentEncoding],
            **serving_settings.WEBSOCKET_COMPRESSION,  # the Bokeh document deflated on the websocket
            **session_signing.serve_options(secret),  # a forged session token is refused (app.web.session_signing)
            use_xheaders=args.use_xheaders,
        )
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            sys.exit(f"Cannot start: port {args.port} is in use; stop what uses it or pick another with --port.")
        sys.exit(f"Cannot start on {args.address}:{args.port}: {error.strerror or error}")
    # Tried before Panel's routes where app.upstream.routes_first is installed; else Bokeh's routes alone answer.
    # The session cap after the 404 rules (an unknown id is a 404 even when full) (app.site.capacity).
    rules = url_rules() + capacity.cap_rules(server, args.max_sessions, pages) + compression.ROUTES
    routes_first.add_first(server, rules)
    server.io_loop.asyncio_loop.set_exception_handler(ignore_closed_websockets)
    server.start()
    own = "127.0.0.1" if args.address in ("", "0.0.0.0", "::") else args.address
    server.io_loop.add_callback(warm_up, f"http://{own}:{server.port}", warm_up_paths(pages))
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
