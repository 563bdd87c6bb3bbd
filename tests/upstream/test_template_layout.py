"""app.upstream.template_layout: a served page's template builds no notebook widget, and pages are the same."""

from __future__ import annotations

import panel as pn
import pytest
from panel.template.base import BaseTemplate, BasicTemplate

from app.upstream import template_layout
from app.web.shell import CourseTemplate
from tests.page_documents import PAGE_PATHS, shapes_without_and_with


@pytest.fixture
def panel_own(monkeypatch):
    """``use(False)`` gives BasicTemplate Panel's own ``_build_layout`` for the rest of the test."""

    def use(fixed: bool) -> None:
        if fixed:
            monkeypatch.setattr(BasicTemplate, "_build_layout", template_layout.no_layout, raising=False)
        else:
            monkeypatch.setattr(BasicTemplate, "_build_layout", BaseTemplate._build_layout, raising=False)

    return use


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_page_is_the_same_document_with_the_fix(path, panel_own):
    own, fixed = shapes_without_and_with(path, panel_own)
    assert fixed == own


def test_a_course_template_builds_no_notebook_widget(panel_own, monkeypatch):
    built: list[type] = []
    own_init = pn.widgets.Button.__init__

    def counting(self, **params):
        built.append(type(self))
        own_init(self, **params)

    monkeypatch.setattr(pn.widgets.Button, "__init__", counting)
    panel_own(True)
    template = CourseTemplate(title="A page")
    assert template._layout is None and built == []
    panel_own(False)  # Panel's own: a "Launch server" button for every template
    assert CourseTemplate(title="A page")._layout is not None and built == [pn.widgets.Button]


def test_panels_own_template_keeps_its_notebook_widget():
    """``pn.Template`` reads ``_layout`` in ``add_panel``: the fix leaves it Panel's method."""
    template = pn.Template("<html>{{ embed(roots.a) }}</html>")
    template.add_panel("a", pn.pane.HTML("x"))
    assert "a" in template._layout[0].object


def test_it_does_not_apply_where_basic_template_has_a_method_of_its_own(monkeypatch):
    monkeypatch.setattr(BasicTemplate, "_build_layout", lambda self: None, raising=False)
    assert template_layout.applies() == "panel.template.base.BasicTemplate has a _build_layout of its own"
    monkeypatch.setattr(BasicTemplate, "_build_layout", template_layout.no_layout, raising=False)
    assert template_layout.applies() == ""
