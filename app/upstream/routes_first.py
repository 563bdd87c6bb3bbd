"""The app's own routes tried before Bokeh's and Panel's: through the Tornado application Bokeh keeps.

Bokeh's ``Server`` tries its ``extra_patterns`` (Panel's ``pn.serve(extra_patterns=...)``) after
every application's own routes, and a route ``/lesson/?`` or ``/static/(.*)`` answers first. Two
kinds of the app's routes must come before them: the rules that answer an unknown lesson, lab or
exercise with a 404 page and redirect a trailing slash (:func:`app.site.urls.url_rules`), and the
compressed static files (:data:`app.web.delivery.compression.ROUTES`). Tornado's public
``Application.add_handlers`` puts rules in front, but Bokeh offers no public way to the
``tornado.web.Application`` it builds: it keeps it as ``_tornado`` (set in ``BaseServer.__init__``).

That is the private name this fix reads, and :func:`applies` refuses it where ``BaseServer.__init__``
no longer sets it. Where it is not installed, :func:`add_first` adds nothing and says so: an unknown
lesson's id then gets the page's own "no such lesson" notice with status 200 instead of a 404, a
trailing slash is not redirected, and Bokeh's and Panel's own static routes serve the files
uncompressed (the pages' HTML is still gzipped by Tornado's ``compress_response``).
"""

from __future__ import annotations

from collections.abc import Sequence

from bokeh.server.server import BaseServer, Server
from tornado.web import Application


class RoutesFirst:
    """Whether :func:`install` has been called."""

    on = False


def applies() -> str:
    """Why the fix cannot be installed here, or ``""`` when it can.

    Returns
    -------
    str
        Empty when Bokeh's ``BaseServer.__init__`` (``Server``'s) still keeps its Tornado application as ``_tornado``.
    """
    code = getattr(BaseServer.__init__, "__code__", None)
    if code is None or "_tornado" not in code.co_names:
        return "bokeh.server.server.BaseServer no longer keeps its Tornado application as _tornado"
    return ""


def install() -> None:
    """Let :func:`add_first` put the app's rules in front from now on (idempotent)."""
    RoutesFirst.on = True


def add_first(server: Server, rules: Sequence[object]) -> bool:
    """Put ``rules`` before every route of ``server`` (``tornado.web.Application.add_handlers``).

    Parameters
    ----------
    server : bokeh.server.server.Server
        The server ``pn.serve(..., start=False)`` returned, not started yet.
    rules : sequence
        Tornado rules or ``(pattern, handler[, kwargs])`` tuples, in the order they must be tried.

    Returns
    -------
    bool
        Whether they were added: False where the fix is not installed, or this server keeps no
        Tornado application under that name (the server then answers with its own routes only).
    """
    application = getattr(server, "_tornado", None) if RoutesFirst.on else None
    if not isinstance(application, Application):
        return False
    application.add_handlers(r".*", list(rules))
    return True
