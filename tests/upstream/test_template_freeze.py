"""app.upstream.template_freeze: a page's document counts its models once, and is the same as Panel builds it.

Each test puts the fix in place or Panel's own method itself, so that they check the same either way
when the suite runs with every fix skipped (tests/upstream/test_upstream.py).
"""

from __future__ import annotations

import pytest
from bokeh.document import Document
from panel.template.base import BasicTemplate

from app.upstream import template_freeze
from tests.page_documents import PAGE_PATHS, document_shape, page_document

PANEL_INIT_DOC = template_freeze.panel_init_doc()


def use(monkeypatch: pytest.MonkeyPatch, frozen: bool) -> None:
    """Build templates with the fix (True) or with Panel's own ``_init_doc`` (False) for one test."""
    monkeypatch.setattr(BasicTemplate, "_init_doc", template_freeze.wrap(PANEL_INIT_DOC) if frozen else PANEL_INIT_DOC)


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_page_document_is_the_same_as_panel_builds_it(path, monkeypatch):
    use(monkeypatch, frozen=True)
    frozen = document_shape(page_document(path))
    use(monkeypatch, frozen=False)
    assert document_shape(page_document(path)) == frozen


def test_the_models_are_counted_once(monkeypatch):
    recounts = []
    original = type(Document().models).recompute

    def counted(models) -> None:
        recounts.append(models)
        original(models)

    monkeypatch.setattr(type(Document().models), "recompute", counted)
    use(monkeypatch, frozen=True)
    page_document("/lesson?id=overlap")
    frozen = len(recounts)
    recounts.clear()
    use(monkeypatch, frozen=False)
    page_document("/lesson?id=overlap")
    assert frozen < len(recounts)
    assert frozen <= 2


def test_it_is_refused_where_panel_no_longer_builds_in_init_doc(monkeypatch):
    monkeypatch.delattr(BasicTemplate, "_init_doc")
    assert template_freeze.applies() == "panel.template.base.BasicTemplate has no _init_doc to wrap"
