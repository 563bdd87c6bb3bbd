"""The URL rules ``python -m app`` adds around Panel's pages: 404 in the course frame, no trailing slashes.

Panel's page routes accept ``/queue/`` as well as ``/queue``, but a page served at ``/queue/``
asks for its scripts and websocket one folder too deep, and they all fail; an unknown lesson or
lab would otherwise get a Bokeh session just to say so, with HTTP 200; and a path no route matches
gets Tornado's bare "404: Not Found". Here:

- ``/x/`` (any page, any depth; not ``/`` itself) is redirected to ``/x``, query kept
  (:class:`TrailingSlashRedirect`);
- ``/lesson`` and ``/lab`` whose ``id`` names nothing we have answer 404 with the course's own
  page (:class:`UnknownId` routes them to :class:`NotFoundHandler` before Panel sees them), and so
  does ``/embed/<slug>`` for a lab we do not have (:class:`UnknownEmbed`), and
  ``/embed/lesson`` for a lesson, or an exercise of it, we do not have (:class:`UnknownId` too);
- any other path no route matches answers the same 404 page (:class:`NotFoundHandler` as
  Tornado's ``default_handler_class``).

Tornado's routing (``tornado.routing``) does all of it; Panel's handlers are untouched.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from urllib.parse import unquote

from tornado.httputil import HTTPServerRequest
from tornado.routing import Matcher, PathMatches, Rule
from tornado.web import RequestHandler

from app.course.library import lessons
from app.site.not_found import (
    missing_exercise_html,
    missing_lab_html,
    missing_lesson_html,
    missing_page_html,
    not_found_page,
)
from app.web.frame_headers import EMBED_LESSON, EMBED_PREFIX
from labs.registry import registrations


def first_argument(request: HTTPServerRequest, name: str) -> str:
    """The first value of query argument ``name``, decoded (bad bytes replaced), or ``""``.

    Parameters
    ----------
    request : tornado.httputil.HTTPServerRequest
        The request.
    name : str
        The argument, e.g. ``"id"``.

    Returns
    -------
    str
        The same value :func:`app.course.library.query_param` gives the page.
    """
    values = request.query_arguments.get(name) or [b""]
    return values[0].decode("utf-8", "replace")


def root_of(path: str) -> str:
    """The relative path from the page at ``path`` back to the index's folder.

    Parameters
    ----------
    path : str
        The request's path, e.g. ``/lesson`` or ``/a/b``.

    Returns
    -------
    str
        ``"./"`` for a top-level page, one ``"../"`` per folder deeper otherwise, so that the
        links work behind a proxy that serves the course under a path of its own.
    """
    depth = path.count("/") - 1
    return "../" * depth if depth > 0 else "./"


class NotFoundHandler(RequestHandler):
    """Answer any request with HTTP 404 and the course's "not found" page.

    With ``kind="lesson"`` or ``kind="lab"`` the page says which lesson or lab the link named
    and lists those there are; otherwise it says there is no page at that address.
    """

    def initialize(self, kind: str = "page") -> None:
        """Take the kind of thing that was not found (Tornado calls this with the rule's arguments).

        Parameters
        ----------
        kind : str
            ``"lesson"``, ``"exercise"`` (of a lesson, to embed), ``"lab"`` or ``"page"``.
        """
        self.kind = kind

    def prepare(self) -> None:
        """Write the 404 page, whatever the method."""
        root = root_of(self.request.path)
        if self.kind == "lesson":
            title, body = "No such lesson", missing_lesson_html(first_argument(self.request, "id"), root)
        elif self.kind == "exercise":
            title, body = (
                "No such exercise",
                missing_exercise_html(
                    first_argument(self.request, "id"), first_argument(self.request, "exercise"), root
                ),
            )
        elif self.kind == "lab":
            path = self.request.path
            asked = unquote(path[len(EMBED_PREFIX) :], errors="replace") if path.startswith(EMBED_PREFIX) else None
            title, body = "No such lab", missing_lab_html(asked or first_argument(self.request, "id"), root)
        else:
            title, body = "Page not found", missing_page_html(unquote(self.request.path, errors="replace"), root)
        self.set_status(404)
        self.set_header("Content-Type", "text/html; charset=UTF-8")
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Cache-Control", "no-cache")
        self.finish(not_found_page(title, body, root))


class TrailingSlashRedirect(RequestHandler):
    """Redirect ``/x/`` to ``/x``, keeping the query string.

    The ``Location`` is relative (``../x``), so it stays right behind a proxy that serves the
    course under a path of its own. GET and HEAD get 301; other methods 308, which keeps them.
    """

    def prepare(self) -> None:
        """Send the redirect, whatever the method."""
        path = self.request.path
        trailing = len(path) - len(path.rstrip("/"))
        last = path.rstrip("/").rsplit("/", 1)[-1]
        location = "../" * trailing + last
        if self.request.query:
            location += "?" + self.request.query
        self.redirect(location, status=301 if self.request.method in ("GET", "HEAD") else 308)


class UnknownId(Matcher):
    """Match requests for ``path`` whose id (``key`` of the request) is missing or not one of ``known()``.

    Parameters
    ----------
    path : str
        The page, e.g. ``"/lesson"``.
    known : callable
        Returns the ids that page can show.
    key : callable, optional
        The request's id; by default its ``id`` argument.
    """

    def __init__(
        self,
        path: str,
        known: Callable[[], frozenset[str]],
        key: Callable[[HTTPServerRequest], str] = lambda request: first_argument(request, "id"),
    ):
        self.path = path
        self.known = known
        self.key = key

    def match(self, request: HTTPServerRequest) -> dict | None:
        """``{}`` (route to the 404 page) for an unknown id at ``path``; None lets Panel's page answer.

        Parameters
        ----------
        request : tornado.httputil.HTTPServerRequest
            The request.

        Returns
        -------
        dict or None
            Tornado's convention for a match (no path arguments) or no match.
        """
        if request.path != self.path or self.key(request) in self.known():
            return None
        return {}


class UnknownEmbed(Matcher):
    """Match ``/embed/<slug>`` for a ``slug`` that is not one of :func:`lab_slugs` (the pages under it are Panel's)."""

    def match(self, request: HTTPServerRequest) -> dict | None:
        """``{}`` (route to the lab 404 page) for an unknown lab under ``/embed/``; None otherwise.

        Parameters
        ----------
        request : tornado.httputil.HTTPServerRequest
            The request.

        Returns
        -------
        dict or None
            Tornado's convention for a match (no path arguments) or no match.
        """
        head, slash, slug = request.path.partition(EMBED_PREFIX)
        if head or not slash or "/" in slug or slug in lab_slugs() or request.path == EMBED_LESSON:
            return None
        return {}


def exercise_key(request: HTTPServerRequest) -> str:
    """The exercise ``/embed/lesson?id=<lesson>&exercise=<id>`` names, as ``"<lesson>/<id>"``."""
    return f"{first_argument(request, 'id')}/{first_argument(request, 'exercise')}"


@cache
def lesson_slugs() -> frozenset[str]:
    """The ids ``/lesson?id=`` can show."""
    return frozenset(lesson.slug for lesson in lessons())


@cache
def exercise_keys() -> frozenset[str]:
    """Every exercise ``/embed/lesson`` can show, as ``"<lesson>/<exercise id>"``."""
    return frozenset(f"{lesson.slug}/{exercise.id}" for lesson in lessons() for exercise in lesson.exercises)


@cache
def lab_slugs() -> frozenset[str]:
    """The ids ``/lab?id=`` can show."""
    return frozenset(lab.slug for lab in registrations())


def url_rules() -> list[Rule]:
    """The rules to try before Panel's own routes (``tornado.web.Application.add_handlers``).

    Returns
    -------
    list of tornado.routing.Rule
        Trailing-slash redirects, then the 404 page for unknown lessons and labs.
    """
    return [
        Rule(PathMatches(r"/.*[^/]/+$"), TrailingSlashRedirect),
        Rule(UnknownId("/lesson", lesson_slugs), NotFoundHandler, {"kind": "lesson"}),
        Rule(UnknownId("/lab", lab_slugs), NotFoundHandler, {"kind": "lab"}),
        Rule(UnknownEmbed(), NotFoundHandler, {"kind": "lab"}),
        Rule(UnknownId(EMBED_LESSON, lesson_slugs), NotFoundHandler, {"kind": "lesson"}),
        Rule(UnknownId(EMBED_LESSON, exercise_keys, exercise_key), NotFoundHandler, {"kind": "exercise"}),
    ]
