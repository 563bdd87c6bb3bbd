"""How sessions are built on a hosted server: once each, wherever the websocket lands.

Bokeh builds a session when its page is requested and, if the websocket then reaches another
process (two app processes behind nginx without stickiness), builds it again there. Panel's
``reuse_sessions`` avoids that: the page's HTML comes from one cached session per page kind, and
each student's session is built only where its websocket lands. The key below decides what "one
page kind" is: the path, and for a lesson the lesson (its title is in the page's HTML). It has a
bounded number of values, so a stream of made-up query strings cannot grow the cache.

The cached sessions are built at start-up by requesting each page kind once (:func:`warm_up`), so
that no student's session is built twice and ``/healthz`` can tell a load balancer when the process
is ready. The warm-up then asks for the static files those pages name, as a browser would, so that
they are compressed before the first student asks (:mod:`app.web.delivery.compression`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import wraps
from urllib.parse import urljoin

import panel as pn
from panel.io.resources import LOCAL_DIST
from tornado.httpclient import AsyncHTTPClient
from tornado.httputil import HTTPServerRequest

from app.course.library import lessons
from app.lti import LTI_LESSON
from app.site.urls import exercise_key, exercise_keys
from app.upstream import collector
from app.web.frame_headers import EMBED_LESSON, EMBED_PREFIX
from app.web.shell import CourseTemplate
from labs.registry import registrations


class BuildCounter:
    """How many session documents this process has built, warm-ups included (for ``/healthz``)."""

    built = 0
    warm_ups = 0
    ready = False


def page_key(request: HTTPServerRequest) -> tuple[str, str]:
    """The cached session whose HTML a request for this page is answered with.

    Parameters
    ----------
    request : tornado.httputil.HTTPServerRequest
        The page request.

    Returns
    -------
    tuple of str
        ``(path, slug)`` for a known lesson or lab (a launched lesson too), ``("/embed/", slug)`` for a lab to embed,
        ``("/embed/lesson", "<lesson>/<exercise>")`` for an exercise to embed,
        ``(path, "")`` for anything else.
    """
    path = request.path.rstrip("/")
    if path in ("/lesson", "/lab", LTI_LESSON):
        asked = (request.arguments.get("id") or [b""])[0].decode("utf-8", "replace")
        known = {lab.slug for lab in registrations()} if path == "/lab" else {lesson.slug for lesson in lessons()}
        return (request.path, asked if asked in known else "")
    if path == EMBED_LESSON:  # one key per exercise of a lesson, one for anything else
        asked = exercise_key(request)
        return (EMBED_LESSON, asked if asked in exercise_keys() else "")
    if path.startswith(EMBED_PREFIX):  # /embed/<slug>: one key per lab, one for anything else
        slug = path[len(EMBED_PREFIX) :]
        return (EMBED_PREFIX, slug if slug in {lab.slug for lab in registrations()} else "")
    return (request.path, "")


def warm_up_paths(routes: dict[str, object]) -> list[str]:
    """One URL path (with query) per page kind: every route, and every lesson.

    Parameters
    ----------
    routes : dict
        The server's routes.

    Returns
    -------
    list of str
        For example ``["/", "/lesson?id=overlap", ..., "/queue"]``.
    """
    paths = []
    for path in routes:
        if path == "/lesson":
            paths += [f"/lesson?id={lesson.slug}" for lesson in lessons()]  # an unknown id is a 404 (app.site.urls)
        elif path == LTI_LESSON:  # without a code: refused, under the lesson's title as every launch of it is
            paths += [f"{LTI_LESSON}?id={lesson.slug}" for lesson in lessons() if lesson.exercises]
        elif path == "/lab":
            paths += [f"/lab?id={lab.slug}" for lab in registrations()]
        elif path == EMBED_LESSON:  # one exercise is enough to warm the code up; the others are built on demand
            first = next(lesson for lesson in lessons() if lesson.exercises)
            paths.append(f"{EMBED_LESSON}?id={first.slug}&exercise={first.exercises[0].id}")
        else:
            paths.append(path)
    return paths


def counted(build: Callable[[], object]) -> Callable[[], object]:
    """Wrap a page builder: count the build, keep Panel's CSS on this server, freeze the session once built.

    A session built where its websocket lands (not where its HTML was rendered) never passes
    through the step that points Panel's stylesheets at the server's own copy, so the page would
    ask a CDN for them; this sets that here, for every session alike.

    Parameters
    ----------
    build : callable
        Builds one page for the current session.

    Returns
    -------
    callable
        The same builder, counted.
    """

    @wraps(build)
    def page() -> object:
        BuildCounter.built += 1
        doc = pn.state.curdoc
        if doc is not None:
            # as Panel words it where it writes the page's HTML (panel.io.server): one "../" per folder of
            # the page's path (state.rel_path), so /embed/<lab>'s stylesheets are found too; Bokeh's public
            # Document.template_variables, the dictionary Panel's template fills
            rel_path = pn.state.rel_path
            doc.template_variables.setdefault("dist_url", f"{rel_path}/{LOCAL_DIST}" if rel_path else LOCAL_DIST)
        served = doc is not None and doc.session_context is not None
        if served:
            collector.before_build(doc)  # so that the session's roots are its own objects
        built = build()
        if served:
            # once Panel has built the page's models too (after this returns), in the same task
            if isinstance(built, CourseTemplate):
                built.on_rendered(collector.track_session)
            else:
                collector.track_session(doc)
        return built

    return page


def enable_session_reuse() -> None:
    """Answer page requests from one cached session per page kind (see the module's docstring)."""
    pn.config.reuse_sessions = True
    pn.config.session_key_func = page_key


async def warm_up(base_url: str, paths: list[str]) -> None:
    """Request each page kind once, so its cached session exists before students arrive.

    Parameters
    ----------
    base_url : str
        This process's own address, e.g. ``http://127.0.0.1:5007``.
    paths : list of str
        From :func:`warm_up_paths`.
    """
    client = AsyncHTTPClient()
    static: dict[str, None] = {}  # in order, once each
    for path in paths:
        page = await client.fetch(base_url + path, raise_error=False, request_timeout=60)
        BuildCounter.warm_ups += 1
        static.update(dict.fromkeys(static_urls(base_url + path, page.body or b"")))
    collector.settle()  # start-up's objects out of later full collections (only where the collector is on)
    BuildCounter.ready = True
    for url in static:  # gzipped now, brotli started on its thread (app.web.delivery.brotli_store)
        headers = {"Accept-Encoding": "br, gzip"}
        await client.fetch(url, raise_error=False, request_timeout=60, decompress_response=False, headers=headers)


STATIC_REFERENCE = re.compile(rb"""["']([^"'\s<>]*static/[^"'\s<>]+)["']""")
"""A quoted address under ``static/`` in a page's HTML: a link's, or one in the bundle loader's lists."""


def static_urls(page_url: str, html: bytes) -> list[str]:
    """The static files a page's HTML names (scripts, stylesheets, icons), as absolute URLs, once each.

    Parameters
    ----------
    page_url : str
        The page's own address, which relative references are resolved against.
    html : bytes
        The page's HTML.

    Returns
    -------
    list of str
        Each file's URL, in the order the page first names it.
    """
    found = (urljoin(page_url, match.decode("utf-8", "replace")) for match in STATIC_REFERENCE.findall(html))
    return list(dict.fromkeys(found))
