"""app.web.shell: the course's page frame puts every root of a page's document on the page, and no others."""

from __future__ import annotations

from types import SimpleNamespace

import panel as pn
import pytest
from panel.io import server as panel_server
from panel.io.resources import Resources
from panel.widgets.indicators import LoadingSpinner

from app.upstream import page_html
from app.web.shell import page
from tests.page_documents import PAGE_PATHS, page_document


def panels_page(doc) -> str:
    """The page's HTML as Panel renders it for a session of ``doc``."""
    session = SimpleNamespace(document=doc, token="a-students-token")
    render = page_html._PANEL_PAGE or panel_server.server_html_page_for_session
    return render(session, Resources(mode="server"), doc.title, session.token, doc.template, doc.template_variables)


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_root_is_on_the_page_and_there_is_none_the_course_does_not_use(path):
    doc = page_document(path)
    page = panels_page(doc)
    for root in doc.roots:
        assert f'data-root-id="{root.id}"' in page, (path, root.name)
        assert set(root.tags) & {"main", "header"}, (path, root.name, root.tags)
    names = [root.name for root in doc.roots]
    assert not [name for name in names if name in ("js_area", "actions", "notifications", "browser_info", "location")]


def test_a_course_page_copies_no_busy_spinner(monkeypatch):
    """Panel's templates deep-copy their default spinner for each page; a course page shows none."""
    copied: list[object] = []
    own_setstate = LoadingSpinner.__setstate__

    def counting(self, state):
        copied.append(self)
        own_setstate(self, state)

    monkeypatch.setattr(LoadingSpinner, "__setstate__", counting)
    template = page("A page", pn.pane.HTML("x"))
    assert template.busy_indicator is None and copied == []
    pn.template.BootstrapTemplate(title="Panel's own")
    assert len(copied) == 1  # what every page paid before
