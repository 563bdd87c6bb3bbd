"""app.upstream.lean_serialization: every page serializes exactly as with Bokeh's own method, without its waste."""

from __future__ import annotations

import pytest
from bokeh.core.has_props import HasProps
from bokeh.core.properties import Int, List, Required, String
from bokeh.core.property.descriptors import UnsetValueError
from bokeh.core.property.singletons import Undefined
from bokeh.model import Model

from app.upstream import lean_serialization
from tests.page_documents import PAGE_PATHS, page_document, switch


@pytest.fixture
def bokeh_method(monkeypatch):
    """Switch between Bokeh's own method and the lean one within a test."""
    lean = lean_serialization.query_properties_with_values
    return switch(monkeypatch, HasProps, "query_properties_with_values", lean, lean_serialization._ORIGINAL)


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_page_serializes_as_bokeh_would(path, bokeh_method):
    doc = page_document(path)
    bokeh_method(lean=True)  # first: Bokeh's own method fills in defaults as it goes, the lean one does not
    lean = doc.to_json()
    bokeh_method(lean=False)
    assert lean == doc.to_json()


class Probe(Model):
    """A model whose list default counts how often it is built."""

    __implementation__ = ""  # never sent to a browser
    built = 0
    label = String(default="")
    count = Int(default=0)
    items = List(Int, default=lambda: Probe._build_default())

    @staticmethod
    def _build_default() -> list[int]:
        Probe.built += 1
        return []


class Needy(Model):
    """A model with a required property."""

    __implementation__ = ""
    needed = Required(String)


def test_defaults_it_will_not_send_are_not_built(bokeh_method):
    probe = Probe(label="set")
    bokeh_method(lean=False)
    Probe.built = 0
    Probe(label="set").properties_with_values(include_defaults=False)
    assert Probe.built == 1  # Bokeh's own method builds the unsent default
    bokeh_method(lean=True)
    Probe.built = 0
    sent = probe.properties_with_values(include_defaults=False)
    assert Probe.built == 0
    assert sent == {"label": "set"}
    assert "items" in probe.properties_with_values(include_defaults=True)


def test_a_required_property_left_unset_is_still_refused(bokeh_method):
    for lean in (False, True):
        bokeh_method(lean=lean)
        with pytest.raises(UnsetValueError):
            Needy().properties_with_values(include_defaults=False)
        assert (
            Needy().query_properties_with_values(
                lambda descriptor: descriptor.serialized, include_defaults=False, include_undefined=True
            )["needed"]
            is Undefined
        )


def test_install_is_idempotent(monkeypatch):
    monkeypatch.setattr(HasProps, "query_properties_with_values", lean_serialization._ORIGINAL)
    lean_serialization.install()
    lean_serialization.install()
    assert HasProps.query_properties_with_values is lean_serialization.query_properties_with_values
