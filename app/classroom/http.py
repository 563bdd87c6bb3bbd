"""The class's data over HTTP, for the instructor's scripts: refused (403) without the instructor token.

``GET /instructor/export.csv`` gives every vote (anonymous ids) with its class; ``GET /instructor/rounds.json?
exercise=<lesson>/<exercise>`` gives one exercise's rounds with their predictions and each one's class
(``right``, ``mistake: <label>`` or ``other``). Both need the
header ``Authorization: Bearer <INSTRUCTOR_TOKEN>`` (a header, never the URL, so the secret is not
written to access logs) and are never cached. With the class off they answer 404. A refused token
counts as a failed sign-in (:mod:`app.classroom.signin`, shared with the page): past the limit the
answer is 429 with ``Retry-After`` and the token is not even checked. The database is read in a
worker thread, so an export of a large class never holds the event loop.

Every answer (403 and 404 included) forbids framing (:data:`app.web.frame_headers.NO_FRAMING`)
itself, so it does under ``panel serve`` too, where no output transform of ``python -m app`` runs.
"""

from __future__ import annotations

import json

from tornado.ioloop import IOLoop
from tornado.web import RequestHandler

from app.classroom import class_store
from app.classroom.judging import csv_class
from app.classroom.signin import WEAK_TOKEN_TEXT, client_address, too_many_text, try_token
from app.classroom.store import ClassStore, StoreUnavailable
from app.course.library import lessons
from app.web.frame_headers import NO_FRAMING

NEEDS_TOKEN = "The class's data needs the instructor token (Authorization: Bearer ...)."


class ClassDataHandler(RequestHandler):
    """``/instructor/export.csv`` and ``/instructor/rounds.json``."""

    def set_default_headers(self) -> None:
        """No site may frame the class's data; Tornado sets these again after ``send_error`` clears the headers."""
        for name, value in NO_FRAMING.items():
            self.set_header(name, value)

    async def get(self, what: str) -> None:
        """Answer one data request, or refuse it."""
        self.set_header("Cache-Control", "no-store")
        store = class_store()
        if store is None:
            self.send_error(404)
            return
        scheme, _, given = (self.request.headers.get("Authorization") or "").partition(" ")
        bearer = given.strip() if scheme.lower() == "bearer" else None
        attempt = try_token(bearer, client_address(self.request), f"/instructor/{what}")
        if attempt.wait_s:
            self.set_status(429)
            self.set_header("Retry-After", str(attempt.wait_s))
            self.finish(too_many_text(attempt.wait_s) + "\n")
            return
        if not attempt.signed_in:
            self.set_status(403)
            refusal = WEAK_TOKEN_TEXT if attempt.weak_token else NEEDS_TOKEN
            self.finish(refusal + "\n")
            return
        key = self.get_query_argument("exercise", "")
        if what != "export.csv" and key not in _exercise_keys():
            self.set_status(404)
            self.finish("No such exercise: give ?exercise=<lesson>/<exercise>.\n")
            return
        try:
            if what == "export.csv":
                body = await IOLoop.current().run_in_executor(None, store.export_csv, csv_class)
                self.set_header("Content-Type", "text/csv; charset=utf-8")
                self.finish(body)
                return
            body = await IOLoop.current().run_in_executor(None, _rounds_json, store, key)
            self.set_header("Content-Type", "application/json")
            self.finish(body)
        except StoreUnavailable as problem:
            self.set_status(503)
            self.finish(f"{problem}\n")


def _exercise_keys() -> set[str]:
    return {f"{lesson.slug}/{e.id}" for lesson in lessons() for e in lesson.exercises}


def _rounds_json(store: ClassStore, key: str) -> str:
    """One exercise's rounds with their predictions and classes, as JSON (run in a worker thread)."""
    rounds = [
        {
            "round": r.round.number,
            "revealed": r.round.revealed,
            "predictions": list(r.predictions),
            "classes": [csv_class(key, p, r.variant_of(k)) for k, p in enumerate(r.predictions)],
        }
        for r in store.rounds_of(key)
    ]
    return json.dumps({"exercise": key, "rounds": rounds})
