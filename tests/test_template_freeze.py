"""app.shell.CourseTemplate: a page's document counts its models once, and is the same as Panel builds it."""

from __future__ import annotations

import json
import re

import panel as pn
import pytest
from bokeh.document import Document

from app.server import routes
from app.sessions import warm_up_paths
from app.shell import CourseTemplate
from tests.test_lean_serialization import _page_document

_NUMBER = re.compile(
    r'(?<="p)\d+(?=")'  # a model id, "p1018"
    r'|(?<=__ref:p)\d+(?=")'  # Panel's tag naming a model, "__ref:p1018"
    r'|(?<=-)\d{8,}(?=")'  # a root's name with a Python object id, "main-140307240808080"
    r'|(?<=[A-Za-z])\d{5}(?=")'  # a Parameterized object's default name, "ConnectionWatch00164"
)


def _renumbered(text: str) -> str:
    """``text`` with each id and counter replaced by its order of first appearance (they differ between builds)."""
    seen: dict[str, str] = {}
    return _NUMBER.sub(lambda match: seen.setdefault(match.group(), f"#{len(seen)}"), text)


def _shape(doc: Document) -> tuple[str, int]:
    """What the browser is sent and the template's sizing per root (numbers renumbered), and how many models."""
    sent = json.dumps([doc.to_json().content, doc._template_variables.get("sizing_modes", {})], default=repr)
    return _renumbered(sent), len(doc.models)


@pytest.mark.parametrize("path", warm_up_paths(routes()))
def test_every_page_document_is_the_same_as_panel_builds_it(path, monkeypatch):
    frozen = _shape(_page_document(path))
    monkeypatch.setattr(CourseTemplate, "_init_doc", pn.template.BootstrapTemplate._init_doc)
    assert _shape(_page_document(path)) == frozen


def test_the_models_are_counted_once(monkeypatch):
    recounts = []
    original = type(Document().models).recompute

    def counted(models) -> None:
        recounts.append(models)
        original(models)

    monkeypatch.setattr(type(Document().models), "recompute", counted)
    _page_document("/lesson?id=overlap")
    frozen = len(recounts)
    recounts.clear()
    monkeypatch.setattr(CourseTemplate, "_init_doc", pn.template.BootstrapTemplate._init_doc)
    _page_document("/lesson?id=overlap")
    assert frozen < len(recounts)
    assert frozen <= 2
