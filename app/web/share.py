"""The "Share" button: a page's link and the ``<iframe>`` snippet that embeds it, each with a copy button.

A lab page (``/<slug>``, ``/lab?id=<slug>``) shows its heading with a :class:`ShareButton` under it: one
component in place of the heading's HTML pane, so the page's document gains one Bokeh model (a
component is two: its own and its parameters' data model; the pane was one). Every exercise card of
a lesson draws its own button from :attr:`app.course.exercise_card.ExerciseCard.share` (the lesson
text's module begins with the same browser code, :data:`SHARE_JS`; no model of its own).

The server says only which paths to share, relative to the course's root (:func:`lab_paths`,
:func:`exercise_paths`); the browser makes them absolute, against the public URL when one is set
(``--public-url`` or ``PUBLIC_URL``: the address students use, behind a proxy) and otherwise against
the page's own address, so the host is the one the browser used.

``/embed/…`` pages and the short ``/<slug>`` addresses exist only under ``python -m app``
(:func:`app.site.server.main` calls :func:`set_own_server`); under ``panel serve`` the panel shares
``lab?id=<slug>`` and says that embedding needs the course's own server.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

import param
from panel.custom import JSComponent

from app.web.delivery.browser_code import script
from app.web.frame_headers import EMBED_PREFIX
from labs.ui import stylesheet

PUBLIC_URL_ENV = "PUBLIC_URL"
"""The environment variable read for the public URL (``python -m app --public-url`` and ``panel serve``)."""

SHARE_JS = script(Path(__file__).parent / "assets" / "share.js")
"""The share widget's browser code: plain functions (``shareWidget``), put in front of a component's module."""

SHARE_CSS = stylesheet(Path(__file__).parent / "assets" / "share.css")
"""The widget's style, in each shadow root that draws it (the lab page's button, the lesson text)."""

_settings = {"public_url": None, "own_server": False}


def parse_public_url(text: str) -> str:
    """Check a public URL and give it in the form the browser resolves paths against.

    Parameters
    ----------
    text : str
        An absolute ``http://`` or ``https://`` URL, e.g. ``https://course.example.org/overlap``;
        empty for none.

    Returns
    -------
    str
        The URL ending in ``/`` (so that ``queue`` resolves below its path), or ``""``.

    Raises
    ------
    ValueError
        When ``text`` is not an absolute http(s) URL, or has a query, a fragment or a user name.
    """
    text = text.strip()
    if not text:
        return ""
    hint = "use an absolute http:// or https:// URL, e.g. https://course.example.org/overlap/"
    try:
        parts = urlsplit(text)
        port = parts.port  # a bad port raises here
    except ValueError:
        raise ValueError(f"{text!r} is not a URL; {hint}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{text!r} is not an absolute http(s) URL; {hint}")
    if parts.query or parts.fragment or parts.username is not None or port == 0:
        raise ValueError(f"{text!r} has a query, fragment, user name or port 0; {hint}")
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def set_public_url(url: str) -> None:
    """Set the public URL for every page this process builds from now on (``python -m app --public-url``).

    Parameters
    ----------
    url : str
        A URL as :func:`parse_public_url` returns it, or ``""`` for none.
    """
    _settings["public_url"] = parse_public_url(url)


def public_url() -> str:
    """The public URL shared links start with, or ``""``: the page's own address then.

    Returns
    -------
    str
        What :func:`set_public_url` set; else ``PUBLIC_URL`` from the environment (``panel serve``),
        read once per process (every page asks), ignored with one warning in the log when it is not
        a valid URL.
    """
    if _settings["public_url"] is None:
        try:
            _settings["public_url"] = parse_public_url(os.environ.get(PUBLIC_URL_ENV, ""))
        except ValueError as error:
            logging.getLogger(__name__).warning("%s ignored: %s", PUBLIC_URL_ENV, error)
            _settings["public_url"] = ""
    return _settings["public_url"]


def set_own_server(own: bool) -> None:
    """Say whether ``python -m app`` serves this process (short ``/<slug>`` addresses and ``/embed/…``).

    Parameters
    ----------
    own : bool
        True from :func:`app.site.server.main`; False (the default) under ``panel serve``.
    """
    _settings["own_server"] = bool(own)


def own_server() -> bool:
    """Whether this process serves ``/<slug>`` and ``/embed/…`` (``python -m app``)."""
    return bool(_settings["own_server"])


def lab_paths(slug: str) -> tuple[str, str]:
    """What a lab page shares, relative to the course's root.

    Parameters
    ----------
    slug : str
        The lab's URL name.

    Returns
    -------
    tuple of str
        The link (``queue``; ``lab?id=queue`` under ``panel serve``) and the embed page
        (``embed/queue``; ``""`` under ``panel serve``, which has none).
    """
    if own_server():
        return slug, f"{EMBED_PREFIX.lstrip('/')}{slug}"
    return f"lab?{urlencode({'id': slug})}", ""


def exercise_paths(lesson: str, exercise: str) -> tuple[str, str]:
    """What an exercise card shares, relative to the course's root.

    Parameters
    ----------
    lesson : str
        The lesson's URL name.
    exercise : str
        The exercise's id in that lesson.

    Returns
    -------
    tuple of str
        The link (``lesson?id=<lesson>&exercise=<id>``) and the embed page (``embed/`` and the
        same; ``""`` under ``panel serve``).
    """
    link = f"lesson?{urlencode({'id': lesson, 'exercise': exercise})}"
    return link, (f"{EMBED_PREFIX.lstrip('/')}{link}" if own_server() else "")


class ShareButton(JSComponent):
    """A "Share" button and the panel it opens: the link and the embed code, each with a copy button."""

    link = param.String(default="", doc="The shared page, relative to the course's root (with a lab's settings).")
    embed = param.String(default="", doc="Its embed page, relative to the root (the same settings); '' for none.")
    frame_title = param.String(default="", constant=True, doc="The <iframe>'s title, e.g. 'Queue lab'.")
    base = param.String(default="", constant=True, doc="The public URL; '' for the page's own address.")
    heading_html = param.String(
        default="", constant=True, doc="Trusted HTML shown above the button: the page's heading."
    )

    _esm = SHARE_JS + "\nexport function render({ model }) {\n  return shareHeading(model)\n}\n"

    def __init__(self, **params):
        params.setdefault("base", public_url())
        params.setdefault("stylesheets", [SHARE_CSS])
        params.setdefault("sizing_mode", "stretch_width")
        params.setdefault("margin", (5, 10))  # an HTML pane's, as the heading it stands for
        super().__init__(**params)

    @classmethod
    def heading(cls, slug: str, title: str) -> Callable[[str], ShareButton]:
        """What :func:`app.web.shell.page` takes as ``heading``: lab ``slug``'s heading with its Share button.

        Parameters
        ----------
        slug : str
            The lab's URL name.
        title : str
            The lab's title ("Queue lab").

        Returns
        -------
        callable
            Makes the :class:`ShareButton` (one component, in place of the heading's HTML pane) from
            the heading's HTML.
        """
        link, embed = lab_paths(slug)
        return lambda heading_html: cls(link=link, embed=embed, frame_title=title, heading_html=heading_html)
