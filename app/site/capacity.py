"""A cap on the sessions one process holds: past it, a clear "full, try again" page instead of slowing everyone.

Every student's session costs the process CPU for as long as it is open (about 135 ms over a visit,
and a share of every sweep and collection) and about 1.2 MB (docs/hosting.md, "How many students per
process"). A flood of sessions from a script used to make a real student's lesson take 10-25 s to
become usable (security review v6, M3). Here a process holds at most ``--max-sessions`` live
sessions (a websocket open; ``MAX_SESSIONS``; :data:`DEFAULT_MAX_SESSIONS`). Past that:

- a page request (``/``, ``/lesson``, a lab, ``/trace``, ``/embed/…``) gets HTTP 503 with
  ``Retry-After`` and a page in the course's look saying "The course is full on this server; try
  again in a minute" (no script, no session: it costs next to nothing);
- a page's websocket (``<page>/ws``, where its session is built) gets the same 503, so a client
  that skips the page, or a page handed out just before the process filled up, builds nothing.

``/instructor`` is never refused: the instructor must get in to run the class. ``/healthz``, the
static files and the 404 pages are not pages with a session and are not counted or refused.

The count is Bokeh's public ``Server.get_sessions()``, the sessions with a connection, plus the
websockets let through in the last :data:`PENDING_S` seconds whose session is not connected yet (a
burst of handshakes would otherwise all pass before the first session exists: 146 of a flood of 150
got past a cap of 100 before they were counted, ``bench.attack``). The rule is
a Tornado ``Matcher`` tried before Panel's routes (:mod:`app.upstream.routes_first`), so no
handler of Panel's or Bokeh's is changed.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from bokeh.server.server import BaseServer
from bokeh.util.token import get_session_id
from tornado.httputil import HTTPServerRequest
from tornado.routing import Matcher, Rule
from tornado.web import RequestHandler

from app.site.not_found import not_found_page
from app.site.urls import root_of

DEFAULT_MAX_SESSIONS = 500
"""Live sessions a process holds by default: the most measured to meet every budget on one core
(500 students a core arriving over 2 minutes: page open p95 0.22-0.28 s, click p95 49-64 ms;
docs/hosting.md), about 600 MB of sessions at 1.2 MB each."""

MAX_SESSIONS_ENV = "MAX_SESSIONS"
"""The environment's name for ``--max-sessions``."""

RETRY_AFTER_S = 60
"""What ``Retry-After`` says, in seconds: "try again in a minute"."""

FULL_MESSAGE = "The course is full on this server; try again in a minute."
"""What a student refused by the cap reads."""

NEVER_REFUSED = ("/instructor",)
"""Pages the cap never refuses."""

PENDING_S = 30.0
"""How long a websocket let through counts before its session is connected (then it counts as live)."""


def session_id_of(request: HTTPServerRequest) -> str | None:
    """The session id a websocket request asks for (its token, in ``Sec-WebSocket-Protocol``), or None.

    Parameters
    ----------
    request : tornado.httputil.HTTPServerRequest
        A ``<page>/ws`` request.

    Returns
    -------
    str or None
        None when the header holds no readable token (Bokeh then refuses the connection itself).
    """
    offered = [part.strip() for part in request.headers.get("Sec-WebSocket-Protocol", "").split(",")]
    if len(offered) != 2 or offered[0] != "bokeh":
        return None
    try:
        return get_session_id(offered[1])
    except Exception:  # noqa: BLE001 - any malformed token: not counted here, refused by Bokeh
        return None


def live_sessions(server: BaseServer) -> int:
    """How many sessions of ``server`` have a browser (or any client) connected now.

    Parameters
    ----------
    server : bokeh.server.server.BaseServer
        The server ``pn.serve`` returned.

    Returns
    -------
    int
        Sessions with at least one connection (cached page sessions and closed tabs not counted).
    """
    return sum(1 for session in server.get_sessions() if session.connection_count > 0)


class OverCap(Matcher):
    """Match a request for a page (or its websocket) while ``server`` holds ``limit`` live sessions or more.

    Parameters
    ----------
    server : bokeh.server.server.BaseServer
        Whose sessions are counted.
    limit : int
        The most live sessions the process holds.
    pages : iterable of str
        The page paths (Panel's routes); each one's ``<path>/ws`` is matched too.
    """

    def __init__(self, server: BaseServer, limit: int, pages: Iterable[str]) -> None:
        self.server = server
        self.limit = limit
        capped = [path for path in pages if path not in NEVER_REFUSED]
        self.paths = frozenset(capped) | frozenset(path.rstrip("/") + "/ws" for path in capped)
        self.pending: dict[str, float] = {}
        """Session ids of websockets let through and not yet connected, with when (``time.monotonic()``)."""

    def held(self, now: float) -> int:
        """Live sessions plus websockets let through in the last :data:`PENDING_S` s and not connected yet."""
        live = {session.id for session in self.server.get_sessions() if session.connection_count > 0}
        self.pending = {key: when for key, when in self.pending.items() if now - when < PENDING_S and key not in live}
        return len(live) + len(self.pending)

    def match(self, request: HTTPServerRequest) -> dict | None:
        """``{}`` (route to :class:`FullHandler`) for a page or websocket while full; None otherwise.

        Parameters
        ----------
        request : tornado.httputil.HTTPServerRequest
            The request.

        Returns
        -------
        dict or None
            Tornado's convention for a match (no path arguments) or no match.
        """
        if request.path not in self.paths:
            return None
        now = time.monotonic()
        if self.held(now) >= self.limit:
            return {}
        if request.path.endswith("/ws"):
            key = session_id_of(request)
            if key is not None:
                self.pending[key] = now
        return None


class FullHandler(RequestHandler):
    """Answer any request with HTTP 503, ``Retry-After`` and the "course is full" page."""

    def prepare(self) -> None:
        """Write the page, whatever the method."""
        root = root_of(self.request.path)
        body = f'<p role="alert">{FULL_MESSAGE}</p><p>Reload this page then; nothing you did is lost.</p>'
        self.set_status(503)
        self.set_header("Retry-After", str(RETRY_AFTER_S))
        self.set_header("Content-Type", "text/html; charset=UTF-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(not_found_page("The course is full", body, root))


def cap_rules(server: BaseServer, limit: int, pages: Iterable[str]) -> list[Rule]:
    """The rule to try before Panel's routes: pages refused while the process is full (none for ``limit`` 0).

    Parameters
    ----------
    server : bokeh.server.server.BaseServer
        The server ``pn.serve(..., start=False)`` returned.
    limit : int
        ``--max-sessions``; 0 turns the cap off.
    pages : iterable of str
        The page paths.

    Returns
    -------
    list of tornado.routing.Rule
        One rule, or none.
    """
    if limit <= 0:
        return []
    return [Rule(OverCap(server, limit, pages), FullHandler)]
