"""app.upstream.lean_models: every page's document is the one Bokeh's own model creation gives, with fewer defaults
built."""

from __future__ import annotations

import pytest
from bokeh.core.has_props import HasProps
from bokeh.core.properties import Instance, List, Nullable, String
from bokeh.model import Model

from app.upstream import lean_models
from tests.page_documents import PAGE_PATHS, document_shape, page_document, switch


@pytest.fixture
def creation(monkeypatch):
    """Switch between Bokeh's own ``HasProps.__init__`` and the lean one within a test."""

    return switch(monkeypatch, HasProps, "__init__", lean_models.__init__, lean_models._ORIGINAL)


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_page_document_is_the_same_as_with_bokehs_own_creation(path, creation):
    creation(lean=True)
    lean = document_shape(page_document(path))
    creation(lean=False)
    assert document_shape(page_document(path)) == lean


class Leaf(Model):
    """A model made by a factory default."""

    __implementation__ = ""  # never sent to a browser


class Holder(Model):
    """One property of each kind of unstable default."""

    __implementation__ = ""
    names = List(String)  # an empty list
    made = Instance(Model, default=lambda: Leaf())  # a model, built by a factory
    maybe = Nullable(List(String))  # None, which Bokeh counts as unstable and sends


@pytest.mark.parametrize("lean", [True, False])
def test_an_empty_container_is_built_when_first_read_and_kept(lean, creation):
    creation(lean=lean)
    holder = Holder()
    assert ("names" in holder._unstable_default_values) is not lean  # Bokeh builds it at once
    names = holder.names
    assert holder.names is names and names == []
    names.append("a")
    assert holder.names == ["a"]
    assert holder.properties_with_values(include_defaults=False)["names"] == ["a"]


@pytest.mark.parametrize("lean", [True, False])
def test_other_unstable_defaults_are_built_at_once_as_bokeh_does(lean, creation):
    creation(lean=lean)
    holder = Holder()
    assert isinstance(holder._unstable_default_values["made"], Leaf)
    assert "maybe" in holder._unstable_default_values and holder.maybe is None
    sent = holder.properties_with_values(include_defaults=False)
    assert set(sent) >= {"made", "maybe"} and "names" not in sent


def test_install_is_idempotent(monkeypatch):
    monkeypatch.setattr(HasProps, "__init__", lean_models._ORIGINAL)
    lean_models.install()
    lean_models.install()
    assert HasProps.__init__ is lean_models.__init__
