"""``GET /healthz``: whether this app process is ready, and how many sessions it holds."""

from __future__ import annotations

import gc
import json
import os

from tornado.web import RequestHandler

from app import upstream
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


class HealthHandler(RequestHandler):
    """Answer load balancers and probes with JSON.

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
        """Write the health report."""
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
        self.set_status(200 if BuildCounter.ready else 503)
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        self.write(json.dumps(report))
