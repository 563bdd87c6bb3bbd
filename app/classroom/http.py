"""The class's data over HTTP, for the instructor's scripts: refused (403) without the instructor token.

``GET /instructor/export.csv`` gives every vote (anonymous ids) with its class; ``GET /instructor/rounds.json?
exercise=<lesson>/<exercise>`` gives one exercise's rounds with their predictions and each one's class
(``right``, ``mistake: <label>`` or ``other``). Both need the
header ``Authorization: Bearer <INSTRUCTOR_TOKEN>`` (a header, never the URL, so the secret is not
written to access logs) and are never cached. With the class off they answer 404.

Every answer (403 and 404 included) forbids framing (:data:`app.web.frame_headers.NO_FRAMING`)
itself, so it does under ``panel serve`` too, where no output transform of ``python -m app`` runs.
"""

from __future__ import annotations

import json

from tornado.web import RequestHandler

from app.classroom import class_store, token_matches
from app.classroom.judging import csv_class
from app.classroom.store import StoreUnavailable
from app.course.library import lessons
from app.web.frame_headers import NO_FRAMING


class ClassDataHandler(RequestHandler):
    """``/instructor/export.csv`` and ``/instructor/rounds.json``."""

    def set_default_headers(self) -> None:
        """No site may frame the class's data; Tornado sets these again after ``send_error`` clears the headers."""
        for name, value in NO_FRAMING.items():
            self.set_header(name, value)

    def get(self, what: str) -> None:
        """Answer one data request, or refuse it."""
        self.set_header("Cache-Control", "no-store")
        store = class_store()
        if store is None:
            self.send_error(404)
            return
        scheme, _, given = (self.request.headers.get("Authorization") or "").partition(" ")
        if scheme.lower() != "bearer" or not token_matches(given.strip()):
            self.set_status(403)
            self.finish("The class's data needs the instructor token (Authorization: Bearer ...).\n")
            return
        try:
            if what == "export.csv":
                self.set_header("Content-Type", "text/csv; charset=utf-8")
                self.finish(store.export_csv(csv_class))
                return
            key = self.get_query_argument("exercise", "")
            if key not in {f"{lesson.slug}/{e.id}" for lesson in lessons() for e in lesson.exercises}:
                self.set_status(404)
                self.finish("No such exercise: give ?exercise=<lesson>/<exercise>.\n")
                return
            rounds = [
                {
                    "round": r.round.number,
                    "revealed": r.round.revealed,
                    "predictions": list(r.predictions),
                    "classes": [csv_class(key, p, r.variant_of(k)) for k, p in enumerate(r.predictions)],
                }
                for r in store.rounds_of(key)
            ]
            self.set_header("Content-Type", "application/json")
            self.finish(json.dumps({"exercise": key, "rounds": rounds}))
        except StoreUnavailable as problem:
            self.set_status(503)
            self.finish(f"{problem}\n")
