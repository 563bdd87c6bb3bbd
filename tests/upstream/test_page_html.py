"""app.upstream.page_html: a cached session's page is rendered once, and each copy is Panel's page with its own
token."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from bokeh.models import Div
from panel.io import server as panel_server
from panel.io.resources import Resources
from panel.io.state import state

from app.upstream import page_html
from tests.page_documents import PAGE_PATHS, page_document

_DRAWN_ID = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"  # each root's element
    r"|(?<=<script type=\"application/json\" id=\")p\d+|(?<=getElementById\(')p\d+"  # the document's script
)


def same_but_random_ids(html: str) -> str:
    """The page with the ids Bokeh draws anew for each rendering (each root's element, the data script) blanked."""
    return _DRAWN_ID.sub("id", html)


@pytest.fixture
def cached_session(monkeypatch):
    """A function ``make(path)``: a session of that page, made one of Panel's cached sessions."""

    def make(path: str) -> SimpleNamespace:
        doc = page_document(path)
        session = SimpleNamespace(document=doc, token="the-cached-sessions-own-token")
        monkeypatch.setitem(state._sessions, ("test", path), session)
        return session

    return make


@pytest.fixture
def panel_renders(monkeypatch):
    """The tokens Panel's own page function is called with, in order."""
    calls = []
    own = page_html._PANEL_PAGE

    def counted(session, resources, title, token=None, *args):
        calls.append(token)
        return own(session, resources, title, token, *args)

    monkeypatch.setattr(page_html, "_PANEL_PAGE", counted)
    return calls


def request(session, token: str, title: str = "A page") -> str:
    """What the page handler answers for ``session`` with ``token``, through app.upstream.page_html."""
    doc = session.document
    return page_html.server_html_page(
        session, Resources(mode="server"), title, token, doc.template, doc.template_variables
    )


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_page_is_panels_own_with_the_requests_token(path, cached_session):
    session = cached_session(path)
    for token in ("first-students-token", "second-students-token"):
        copy = request(session, token)
        doc = session.document
        own = page_html._PANEL_PAGE(
            session, Resources(mode="server"), "A page", token, doc.template, doc.template_variables
        )
        assert copy.count(token) == own.count(token) == 2  # Bokeh's embed script and the early websocket
        assert page_html.PLACEHOLDER not in copy
        assert same_but_random_ids(copy) == same_but_random_ids(own)


def test_a_cached_sessions_page_is_rendered_once(cached_session, panel_renders):
    session = cached_session("/lesson?id=overlap")
    pages = [request(session, f"token-{n}") for n in range(4)]
    assert panel_renders == [page_html.PLACEHOLDER]
    assert [page.count(f"token-{n}") for n, page in enumerate(pages)] == [2, 2, 2, 2]


def test_a_change_of_what_the_page_depends_on_renders_it_again(cached_session, panel_renders):
    session = cached_session("/lab?id=queue")
    request(session, "token-1")
    request(session, "token-2", title="Another title")
    assert "Another title" in request(session, "token-3", title="Another title")
    assert panel_renders == [page_html.PLACEHOLDER, page_html.PLACEHOLDER]


def test_a_change_to_the_cached_document_renders_it_again(cached_session, panel_renders):
    session = cached_session("/")
    request(session, "token-1")
    session.document.add_root(Div(text="a new root"))
    request(session, "token-2")
    assert panel_renders == [page_html.PLACEHOLDER, page_html.PLACEHOLDER]


def test_a_session_panel_does_not_cache_goes_to_panel(panel_renders):
    session = SimpleNamespace(document=page_document("/"), token="own")
    assert request(session, "a-token").count("a-token") == 2
    request(session, "b-token")
    assert panel_renders == ["a-token", "b-token"]


def test_install_puts_it_where_panels_page_handler_calls_it(monkeypatch):
    monkeypatch.setattr(panel_server, "server_html_page_for_session", page_html._PANEL_PAGE)
    page_html.install()
    assert panel_server.server_html_page_for_session is page_html.server_html_page
