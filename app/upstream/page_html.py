"""A page's HTML rendered once per page kind, and each request's session token put into a copy of it.

With session reuse (``app.site.sessions``) every request for a page is answered from that page kind's one
cached session: the same document, so the same scripts, stylesheets, roots and template every time.
Panel renders it anew for each request all the same (``panel.io.server.server_html_page_for_session``:
the document's resource bundle, then Bokeh's page template), and in a class of 100 students on one
process that was 6.7% of the server's CPU (py-spy, 5 December 2026, 150 ms a student). The only part that differs is
the token that names the student's new session (twice in a course page: Bokeh's embed script and
the early websocket, :mod:`app.upstream.early_connection`).

:func:`server_html_page` renders a cached session's page once, with a placeholder where the token
goes, keeps it beside the session's document, and answers each later request for that session with
the placeholder replaced by the request's token wherever it is. Everything the page depends on
besides the document is part of the key (the path's depth, the resources' mode and root, the title, the template and its
variables, Panel's theme and loading spinner), and so are the document's roots and model count (a
cached session's document does not change once built, but if it did), so a change renders it again.
A session that is not one of Panel's cached ones (under ``panel serve``, which does not reuse
sessions) goes to Panel's function as before. ``tests/upstream/test_page_html.py`` compares the two renderings.

It was removed once (4 December 2026), when a student cost 700 ms of server CPU and its share was
inside the noise of the class bench; its figure now is in docs/upstream-fixes.md.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from bokeh.document import Document
from panel.config import config
from panel.io import server as panel_server
from panel.io.state import set_curdoc, state

_PANEL_PAGE: Callable[..., str] | None = None
"""Panel's own ``server_html_page_for_session``, kept by :func:`install` (read then, never at import)."""

PLACEHOLDER = "overlap-lab-page-token-placeholder"
"""What stands for the session token in a kept page: characters a token has, so nothing escapes it."""

_kept: weakref.WeakKeyDictionary[Document, tuple[tuple, str]] = weakref.WeakKeyDictionary()


def _is_cached_session(session: Any) -> bool:
    """Whether ``session`` is one of Panel's cached sessions (``config.reuse_sessions``)."""
    return any(cached is session for cached in state._sessions.values())


def _key(session: Any, resources: Any, title: str, template: Any, template_variables: dict | None) -> tuple:
    """Everything besides the document a page's HTML depends on, for one request."""
    doc = session.document
    with set_curdoc(doc):
        rel_path = state.rel_path
        spinner = (config.theme, config.global_loading_spinner, config.loading_spinner)
    variables = tuple(sorted((name, repr(value)) for name, value in (template_variables or {}).items()))
    shape = (tuple(root.id for root in doc.roots), len(doc.models))
    return (shape, rel_path, resources.mode, resources.root_url, title, id(template), spinner, variables)


def server_html_page(
    session: Any,
    resources: Any,
    title: str,
    token: str | None = None,
    template: Any = panel_server.BASE_TEMPLATE,
    template_variables: dict[str, Any] | None = None,
) -> str:
    """Panel's ``server_html_page_for_session``, rendered once per cached session and key.

    Parameters
    ----------
    session : bokeh.server.session.ServerSession
        The session whose document the page shows.
    resources : panel.io.resources.Resources
        Where the page's scripts and stylesheets come from.
    title : str
        The page's title.
    token : str, optional
        The token naming the student's session (the cached session's own when None).
    template : jinja2.Template or str
        The page's template.
    template_variables : dict, optional
        Its variables.

    Returns
    -------
    str
        The page's HTML, with ``token`` in it.
    """
    if token is None or PLACEHOLDER in token or not _is_cached_session(session):
        return _PANEL_PAGE(session, resources, title, token, template, template_variables)
    kept = _kept.get(session.document)
    if kept is not None and kept[0] == _key(session, resources, title, template, template_variables):
        return kept[1].replace(PLACEHOLDER, token)
    html = _PANEL_PAGE(session, resources, title, PLACEHOLDER, template, template_variables)
    if PLACEHOLDER not in html:  # the token is not where a copy can take it: as Panel does
        return _PANEL_PAGE(session, resources, title, token, template, template_variables)
    # the key after rendering: Panel's render sets the template's theme and static path in its variables
    _kept[session.document] = (_key(session, resources, title, template, template_variables), html)
    return html.replace(PLACEHOLDER, token)


def install() -> None:
    """Answer Panel's page requests through :func:`server_html_page` (idempotent)."""
    global _PANEL_PAGE
    if _PANEL_PAGE is None:
        _PANEL_PAGE = panel_server.server_html_page_for_session
    panel_server.server_html_page_for_session = server_html_page
