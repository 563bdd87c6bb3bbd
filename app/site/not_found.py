"""What the course says when a link leads nowhere: the messages, and a whole 404 page in the course's look.

The messages (:func:`missing_lesson_html`, :func:`missing_lab_html`) are shared by the lesson and
lab pages (``panel serve`` shows them inside the Panel frame, with HTTP 200) and by the 404 page
that ``python -m app`` answers with (:func:`not_found_page`, served by :mod:`app.site.urls`). The 404
page is plain HTML: no Bokeh session, no websocket, no script, so a wrong link costs the server
next to nothing. Everything a URL brings in is shortened and HTML-escaped.
"""

from __future__ import annotations

import html
from functools import cache
from pathlib import Path
from urllib.parse import urlencode

from app.course.library import lessons
from labs.registry import registrations
from labs.ui.palette import ROOT_CSS

SHOWN_CHARACTERS = 40
"""How much of an unknown id or path a message repeats before cutting it short with "…"."""

CSS = ROOT_CSS + "\n" + Path(__file__).with_suffix(".css").read_text(encoding="utf-8")
"""The 404 page's style, in the course frame's colours (the palette's custom properties first); read once."""


def shorten(text: str, limit: int = SHOWN_CHARACTERS) -> str:
    """``text`` as a message may repeat it: at most ``limit`` characters, then "…"; HTML-escaped.

    Parameters
    ----------
    text : str
        Anything a URL brought in (an id, a path), however long or hostile.
    limit : int
        Characters kept.

    Returns
    -------
    str
        Safe to put in HTML text or in a quoted attribute.
    """
    cut = text[:limit] + "…" if len(text) > limit else text
    return html.escape(cut, quote=True)


@cache
def lesson_links(root: str = "./") -> str:
    """Every lesson, in course order, as a list of links (``root`` leads to the index's folder)."""
    items = "".join(
        f'<li><a href="{root}lesson?id={lesson.slug}">{html.escape(lesson.title)}</a></li>' for lesson in lessons()
    )
    return f'<ul aria-label="Lessons">{items}</ul>'


@cache
def lab_links(root: str = "./") -> str:
    """Every registered lab as a list of links (``root`` leads to the index's folder)."""
    items = "".join(
        f'<li><a href="{root}lab?id={lab.slug}">{html.escape(lab.title)}</a></li>' for lab in registrations()
    )
    return f'<ul aria-label="Labs">{items}</ul>'


def missing_lesson_html(asked: str | None, root: str = "./") -> str:
    """The message for a lesson link naming no lesson we have, with the lessons there are.

    Parameters
    ----------
    asked : str, optional
        The ``id`` the URL gave (None or empty if none).
    root : str
        Relative path from the page to the index's folder.

    Returns
    -------
    str
        HTML: an alert and the list of lessons.
    """
    return _missing_html("lesson", asked, lesson_links(root))


def missing_lab_html(asked: str | None, root: str = "./") -> str:
    """The message for a lab link naming no registered lab, with the labs there are.

    Parameters
    ----------
    asked : str, optional
        The ``id`` the URL gave (None or empty if none).
    root : str
        Relative path from the page to the index's folder.

    Returns
    -------
    str
        HTML: an alert and the list of labs.
    """
    return _missing_html("lab", asked, lab_links(root))


def missing_exercise_html(lesson_slug: str, asked: str | None, root: str = "./") -> str:
    """The message for an embedded exercise link naming no exercise of its lesson, with those there are.

    Parameters
    ----------
    lesson_slug : str
        A lesson we have.
    asked : str, optional
        The ``exercise`` the URL gave (None or empty if none).
    root : str
        Relative path from the page to the index's folder.

    Returns
    -------
    str
        HTML: an alert and the lesson's exercises, each linked to its embedded page.
    """
    lesson = next(item for item in lessons() if item.slug == lesson_slug)
    items = "".join(
        f'<li><a href="{root}embed/lesson?{html.escape(urlencode({"id": lesson.slug, "exercise": exercise.id}))}">'
        f"{html.escape(exercise.title)}</a></li>"
        for exercise in lesson.exercises
    )
    links = f'<ul aria-label="Exercises of {html.escape(lesson.title)}">{items}</ul>'
    return _missing_html(f"exercise in “{html.escape(lesson.title)}”", asked, links, plural="exercises")


def _missing_html(kind: str, asked: str | None, links: str, plural: str = "") -> str:
    """An alert that no ``kind`` is called ``asked`` (shortened, escaped), then the ones there are (``plural``)."""
    if asked:
        said = f'There is no {kind} called <strong class="missing">{shorten(asked)}</strong>.'
    else:
        said = f"This link names no {kind}."
    return f'<p role="alert">{said} The {plural or kind + "s"} are:</p>{links}'


def missing_page_html(path: str, root: str = "./") -> str:
    """The message for an address the course has no page at, with every lesson and lab.

    Parameters
    ----------
    path : str
        The path asked for, decoded.
    root : str
        Relative path from the page to the index's folder.

    Returns
    -------
    str
        HTML: an alert, then the lessons and the labs, each under a heading.
    """
    return (
        f'<p role="alert">There is no page at <strong class="missing">{shorten(path)}</strong>. '
        "The course has these lessons and labs:</p>"
        f"<h2>Lessons</h2>{lesson_links(root)}<h2>Labs</h2>{lab_links(root)}"
    )


def not_found_page(title: str, body: str, root: str = "./") -> str:
    """A whole HTML page in the course's frame: header, a link back to the index, heading, ``body``.

    Parameters
    ----------
    title : str
        The page's title and only ``<h1>`` (plain text; escaped here).
    body : str
        Trusted HTML under the heading, e.g. from :func:`missing_lesson_html`.
    root : str
        Relative path from the page to the index's folder (``"./"`` for ``/lesson``, ``"../"`` for ``/a/b``).

    Returns
    -------
    str
        The document; it needs no script and no other request.
    """
    shown = html.escape(title)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{shown} · Overlap Lab</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        '<a class="skip-link" href="#main">Skip to main content</a>\n'
        f'<header><a class="title" href="{root}">Overlap Lab</a></header>\n'
        '<main id="main" tabindex="-1">\n'
        f'<nav aria-label="Course"><a href="{root}">← All lessons and labs</a></nav>\n'
        f"<h1>{shown}</h1>\n{body}\n</main>\n</body>\n</html>\n"
    )
