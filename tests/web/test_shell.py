"""app.web.shell: the course's page frame puts every root of a page's document on the page, and no others."""

from __future__ import annotations

from types import SimpleNamespace

import panel as pn
import pytest
from panel.io import server as panel_server
from panel.io.resources import Resources
from panel.io.state import state
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


def _counting_lab_models(monkeypatch) -> list[object]:
    """Each lab stage turned into Bokeh models from now on (the lab's models are made with it), in a list."""
    from labs.ui.stage import LabStage

    made: list[object] = []
    own_get_model = LabStage._get_model

    def counting(self, *args, **kwargs):
        made.append(self)
        return own_get_model(self, *args, **kwargs)

    monkeypatch.setattr(LabStage, "_get_model", counting)
    return made


def _stages(doc) -> list[str]:
    """The accessible names of the lab regions in ``doc`` (each lab's stage model)."""
    return [model.label for model in doc.models if type(model).__name__.startswith("LabStage")]


@pytest.mark.smoke
def test_a_served_lesson_makes_its_labs_models_once_the_browser_says_the_page_has_loaded(monkeypatch):
    """The first piece is the frame and the text (12 models); the lab's 55 come when the page reports it has loaded."""
    made = _counting_lab_models(monkeypatch)
    doc = page_document("/lesson?id=overlap&exercise=growth", served=True)
    first = len(doc.models)
    assert made == [] and _stages(doc) == []
    assert any(type(model).__name__.startswith("LessonText") for model in doc.models)  # the text is there at once
    state._on_load(doc)  # what Panel runs when the browser's "document_ready" arrives
    assert len(made) == 1 and _stages(doc) == ["Queue lab"]
    assert len(doc.models) > 2 * first
    state._on_load(doc)  # a second report makes nothing more
    assert len(made) == 1 and _stages(doc) == ["Queue lab"]


def test_a_session_discarded_before_its_page_loaded_never_makes_its_labs_models(monkeypatch):
    """A student who closes the tab before the page has loaded costs the server no lab models."""
    made = _counting_lab_models(monkeypatch)
    doc = page_document("/lesson?id=overlap&exercise=growth", served=True)
    for destroyed in list(doc.session_destroyed_callbacks):  # what Bokeh runs when it discards the session
        destroyed(doc.session_context)
    assert made == [] and _stages(doc) == []
