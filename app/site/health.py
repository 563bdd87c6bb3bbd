"""``GET /healthz``: whether this app process is ready; how many sessions it holds, for this machine alone.

Anyone may ask whether the process is ready (a load balancer, Kubernetes, nginx): they get
``{"status": "ok"}`` (HTTP 200) or ``{"status": "starting"}`` (HTTP 503) and nothing more. The
details (pid, sessions, library fixes, the collector's counts, ``?frozen=1``'s walk) are for
whoever runs the server: a request whose socket's peer is this machine (a loopback address, not
what a header says) and that no proxy forwarded (no ``X-Real-IP``, ``X-Forwarded-For`` or
``Forwarded``: nginx on this machine forwards students from anywhere), or one carrying the
instructor token as ``Authorization: Bearer <token>`` (:func:`shows_details`).
"""

from __future__ import annotations

import gc
import ipaddress
import json
import os

from tornado.httputil import HTTPServerRequest
from tornado.web import RequestHandler

from app import upstream
from app.classroom.signin import client_address, try_token
from app.site.sessions import BuildCounter
from app.upstream.collector import Collector
from app.upstream.task_timer import TaskTimer


def live_objects() -> dict[str, int]:
    """Count the per-session objects still alive after a full collection (for leak hunting).

    Returns
    -------
    dict of str to int
        Bokeh documents, Panel viewables and param watchers alive now.
    """
    from bokeh.document import Document
    from panel.viewable import Viewable

    gc.collect()
    counts = {"Document": 0, "Viewable": 0}
    for item in gc.get_objects():
        if isinstance(item, Document):
            counts["Document"] += 1
        elif isinstance(item, Viewable):
            counts["Viewable"] += 1
    return counts


FORWARDING_HEADERS = ("X-Real-IP", "X-Forwarded-For", "Forwarded")
"""Headers a proxy adds (deploy/nginx.conf sets the first two): a request carrying one came from elsewhere."""


def peer_address(request: HTTPServerRequest) -> str:
    """The address of the socket's other end, whatever ``X-Real-IP`` or Tornado's ``xheaders`` say.

    Parameters
    ----------
    request : tornado.httputil.HTTPServerRequest
        The request.

    Returns
    -------
    str
        For example ``"127.0.0.1"`` or ``"::1"``; ``""`` for a Unix socket or an unknown peer.
    """
    address = getattr(getattr(request.connection, "context", None), "address", None)
    return str(address[0]) if isinstance(address, tuple) and address else ""


def is_loopback(address: str) -> bool:
    """Whether ``address`` is this machine's loopback (127.0.0.0/8, ``::1``, IPv4-mapped too)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return (mapped or ip).is_loopback


def shows_details(request: HTTPServerRequest) -> bool:
    """Whether ``/healthz`` may show this request its details (see the module's docstring).

    Parameters
    ----------
    request : tornado.httputil.HTTPServerRequest
        The request.

    Returns
    -------
    bool
        True for a request from this machine that no proxy forwarded, or with the instructor token
        as a Bearer header; False otherwise.
    """
    scheme, _, given = (request.headers.get("Authorization") or "").partition(" ")
    if scheme.lower() == "bearer":  # a try at the token: limited and logged as the instructor's sign-in is
        return try_token(given.strip(), client_address(request), "/healthz").signed_in
    forwarded = any(name in request.headers for name in FORWARDING_HEADERS)
    return not forwarded and is_loopback(peer_address(request))


class HealthHandler(RequestHandler):
    """Answer load balancers and probes with JSON; the details only where :func:`shows_details` says.

    ``status`` is ``"ok"`` (HTTP 200) once the process has built its cached pages, ``"starting"``
    (HTTP 503) before. ``sessions`` counts sessions with a live websocket; ``held`` every session
    the server keeps (cached pages and sessions closed less than the unused-session lifetime ago);
    ``built`` every session document built since start, ``warm_ups`` of them at start-up. With
    ``OVERLAP_TASK_TIMER=1`` it adds the longest event-loop task (``?reset=1`` starts a new window);
    ``upstream`` lists the library fixes installed and why any was skipped (:mod:`app.upstream`);
    ``gc`` has app.upstream.collector's counts (open sessions, discards since the last thaw, sessions swept;
    frozen objects with ``?frozen=1``, which costs a walk of them).
    """

    def get(self) -> None:
        """Write the health report: the status alone, or the details for this machine (:func:`shows_details`)."""
        self.set_status(200 if BuildCounter.ready else 503)
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        if not shows_details(self.request):
            self.write(json.dumps({"status": "ok" if BuildCounter.ready else "starting"}))
            return
        contexts = self.application.applications.values()  # BokehTornado's public ApplicationContext per route
        sessions = [session for context in contexts for session in context.sessions]
        report = {
            "status": "ok" if BuildCounter.ready else "starting",
            "pid": os.getpid(),
            "sessions": sum(1 for session in sessions if session.connection_count > 0),
            "held": len(sessions),
            "built": BuildCounter.built,
            "warm_ups": BuildCounter.warm_ups,
            "upstream": upstream.report(),
            "gc": Collector.report(count_frozen=self.get_argument("frozen", None) == "1"),
        }
        if TaskTimer.enabled:
            report["longest_task_ms"] = round(TaskTimer.longest * 1000, 1)
            report["longest_task"] = TaskTimer.longest_name
            report["tasks"] = TaskTimer.count
            report["longest_gc_ms"] = round(TaskTimer.longest_gc * 1000, 1)
            report["gc_total_ms"] = round(TaskTimer.gc_total * 1000, 1)
            if self.get_argument("objects", None) == "1":  # bench-only: what a leak would leave behind
                report["objects"] = live_objects()
            if self.get_argument("reset", None) == "1":
                TaskTimer.reset()
        self.write(json.dumps(report))
