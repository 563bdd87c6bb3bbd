"""app.web.shell.CourseTemplate: a page's document counts its models once, and is the same as Panel builds it."""

from __future__ import annotations

import panel as pn
import pytest
from bokeh.document import Document

from app.web.shell import CourseTemplate
from tests.page_documents import PAGE_PATHS, document_shape, page_document


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_page_document_is_the_same_as_panel_builds_it(path, monkeypatch):
    frozen = document_shape(page_document(path))
    monkeypatch.setattr(CourseTemplate, "_init_doc", pn.template.BootstrapTemplate._init_doc)
    assert document_shape(page_document(path)) == frozen


def test_the_models_are_counted_once(monkeypatch):
    recounts = []
    original = type(Document().models).recompute

    def counted(models) -> None:
        recounts.append(models)
        original(models)

    monkeypatch.setattr(type(Document().models), "recompute", counted)
    page_document("/lesson?id=overlap")
    frozen = len(recounts)
    recounts.clear()
    monkeypatch.setattr(CourseTemplate, "_init_doc", pn.template.BootstrapTemplate._init_doc)
    page_document("/lesson?id=overlap")
    assert frozen < len(recounts)
    assert frozen <= 2
