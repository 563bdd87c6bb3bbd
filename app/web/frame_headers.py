"""Who may show a page in a frame: the ``Content-Security-Policy: frame-ancestors`` and ``X-Frame-Options`` headers.

- ``/embed/<lab>`` and ``/embed/lesson?id=…&exercise=…`` (a lab, or one exercise with its lab, for
  another site's ``<iframe>``) may be framed by the origins given with
  ``python -m app --embed-from ORIGINS`` (default ``*``: any site);
- ``/instructor`` and its data (``/instructor/...``) may be framed by no one
  (``frame-ancestors 'none'`` and, for browsers without CSP, ``X-Frame-Options: DENY``): a page
  that frames the instructor's view could trick the instructor into clicking Reveal;
- every other page keeps the headers it had.

The headers are set on every response for those paths, whichever handler answers (Panel's page,
the class's data, a 404), by one Tornado output transform added to the application
(one of ``tornado.web.Application``'s ``transforms``, like Tornado's own gzip): no
handler of Panel's or Bokeh's is changed. The class's data handler (``app.classroom.http``) also
sets :data:`NO_FRAMING` itself, for ``panel serve``, which runs no such transform.
"""

from __future__ import annotations

import re

from tornado.httputil import HTTPHeaders, HTTPServerRequest
from tornado.web import OutputTransform

EMBED_PREFIX = "/embed/"
EMBED_LESSON = EMBED_PREFIX + "lesson"
"""One exercise of a lesson with its lab, to embed (``?id=<lesson>&exercise=<id>``)."""
INSTRUCTOR = "/instructor"

ANY_ORIGIN = "*"

NO_FRAMING = {"Content-Security-Policy": "frame-ancestors 'none'", "X-Frame-Options": "DENY"}
"""The headers of a page no site may frame: CSP, and ``X-Frame-Options`` for browsers without CSP."""


def parse_origins(text: str) -> str:
    """The ``frame-ancestors`` sources for ``--embed-from``: origins separated by spaces or commas.

    Parameters
    ----------
    text : str
        For example ``"https://course.example.edu, https://lms.example.edu"``, ``"*"`` or ``"'none'"``.

    Returns
    -------
    str
        The sources, one space between each.

    Raises
    ------
    ValueError
        For an empty list, or a source with a character a CSP header cannot hold (``;``, quotes
        other than around a keyword, control characters).
    """
    sources = [item for item in re.split(r"[\s,]+", text.strip()) if item]
    if not sources:
        raise ValueError("no origin given; use e.g. https://course.example.edu, or * for any site")
    for source in sources:
        if source in ("'none'", "'self'"):
            continue
        if not re.fullmatch(r"[A-Za-z0-9*][A-Za-z0-9+.\-*]*(://[A-Za-z0-9.\-*\[\]:]+)?(:[0-9*]+)?/?", source):
            raise ValueError(f"{source!r} is not an origin; use e.g. https://course.example.edu")
    return " ".join(sources)


def frame_headers(path: str, embed_from: str) -> dict[str, str]:
    """The framing headers a response for ``path`` gets (none for most pages).

    Parameters
    ----------
    path : str
        The request's path.
    embed_from : str
        The ``frame-ancestors`` sources for embed pages (:func:`parse_origins`).

    Returns
    -------
    dict of str to str
        Header names and values to set.
    """
    if path.startswith(EMBED_PREFIX):
        return {"Content-Security-Policy": f"frame-ancestors {embed_from}"}
    if path == INSTRUCTOR or path.startswith(INSTRUCTOR + "/"):
        return dict(NO_FRAMING)
    return {}


def transform(embed_from: str = ANY_ORIGIN) -> type[OutputTransform]:
    """The output transform that sets :func:`frame_headers` on each response (one of Tornado's ``transforms``).

    Parameters
    ----------
    embed_from : str
        The ``frame-ancestors`` sources for embed pages.

    Returns
    -------
    type
        A ``tornado.web.OutputTransform`` subclass (Tornado makes one per request).
    """

    class FrameHeaders(OutputTransform):
        def __init__(self, request: HTTPServerRequest) -> None:
            self.headers = frame_headers(request.path, embed_from)

        def transform_first_chunk(
            self, status_code: int, headers: HTTPHeaders, chunk: bytes, finishing: bool
        ) -> tuple[int, HTTPHeaders, bytes]:
            for name, value in self.headers.items():
                headers[name] = value
            return status_code, headers, chunk

    return FrameHeaders
