"""Who may show a page in a frame: the ``Content-Security-Policy: frame-ancestors`` and ``X-Frame-Options`` headers.

- ``/embed/<lab>`` and ``/embed/lesson?id=…&exercise=…`` (a lab, or one exercise with its lab, for
  another site's ``<iframe>``) may be framed by the origins given with
  ``python -m app --embed-from ORIGINS`` (default ``*``: any site);
- ``/instructor`` and its data (``/instructor/...``) may be framed by no one
  (``frame-ancestors 'none'`` and, for browsers without CSP, ``X-Frame-Options: DENY``): a page
  that frames the instructor's view could trick the instructor into clicking Reveal;
- every other page (the index, lessons, labs, /trace, a 404) may be framed by the course's own
  pages and by the sites ``--embed-from`` names one by one, never by any site (``*`` opens the
  /embed pages alone), so that no other site can frame Lock or Share and trick a click.

The headers are set on every response, whichever handler answers (Panel's page, the class's
data, a 404), by :mod:`app.web.security_headers`' Tornado output transform, with the rest of
the page's Content-Security-Policy: no handler of Panel's or Bokeh's is changed. The class's data
handler (``app.classroom.http``) also sets :data:`NO_FRAMING` itself, for ``panel serve``, which
runs no such transform.
"""

from __future__ import annotations

import re

EMBED_PREFIX = "/embed/"
EMBED_LESSON = EMBED_PREFIX + "lesson"
"""One exercise of a lesson with its lab, to embed (``?id=<lesson>&exercise=<id>``)."""
INSTRUCTOR = "/instructor"
LTI_PREFIX = "/lti/"
"""The LTI tool's pages (app.lti): framed by the registered platforms' sites (``lti_from``)."""

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


def named_origins(embed_from: str) -> list[str]:
    """The sites ``--embed-from`` names one by one: its sources without ``*``, ``'none'`` and ``'self'``.

    Parameters
    ----------
    embed_from : str
        The ``frame-ancestors`` sources for embed pages (:func:`parse_origins`).

    Returns
    -------
    list of str
        For example ``["https://course.example.edu"]``; empty for ``*`` (the default) or ``'none'``.
    """
    return [source for source in embed_from.split() if source not in (ANY_ORIGIN, "'none'", "'self'")]


def frame_ancestors(path: str, embed_from: str, lti_from: str = "") -> str:
    """The ``frame-ancestors`` sources of a response for ``path``.

    Parameters
    ----------
    path : str
        The request's path.
    embed_from : str
        The ``frame-ancestors`` sources for embed pages (:func:`parse_origins`).
    lti_from : str, optional
        The registered LTI platforms' origins, separated by spaces (app.lti): ``/lti/`` pages may be
        framed by them and by the course itself.

    Returns
    -------
    str
        ``embed_from`` itself under ``/embed/``; ``'self'`` and ``lti_from`` under ``/lti/``;
        ``'none'`` for ``/instructor`` and its data; for every
        other page ``'self'`` and the sites ``--embed-from`` names (never ``*``: a course site may show a
        lesson in a frame, any site may not).
    """
    if path.startswith(EMBED_PREFIX):
        return embed_from
    if path.startswith(LTI_PREFIX):  # LTI: the LMS shows the launch in its frame
        return " ".join(["'self'", *lti_from.split()])
    if path == INSTRUCTOR or path.startswith(INSTRUCTOR + "/"):
        return "'none'"
    return " ".join(["'self'", *named_origins(embed_from)])


def frame_headers(path: str, embed_from: str, lti_from: str = "") -> dict[str, str]:
    """The framing headers a response for ``path`` gets.

    Parameters
    ----------
    path : str
        The request's path.
    embed_from : str
        The ``frame-ancestors`` sources for embed pages (:func:`parse_origins`).

    Returns
    -------
    dict of str to str
        ``Content-Security-Policy: frame-ancestors …`` (:func:`frame_ancestors`) and, where that
        header says the same as ``X-Frame-Options`` can (``'none'``, or ``'self'`` alone), that
        header too, for browsers without CSP.
    """
    sources = frame_ancestors(path, embed_from, lti_from)
    headers = {"Content-Security-Policy": f"frame-ancestors {sources}"}
    if sources == "'none'":
        headers["X-Frame-Options"] = "DENY"
    elif sources == "'self'":
        headers["X-Frame-Options"] = "SAMEORIGIN"
    return headers
