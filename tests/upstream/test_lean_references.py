"""app.upstream.lean_references: every page's reference walks find what Bokeh's own would, without reading defaults."""

from __future__ import annotations

from unittest import mock

import pytest
from bokeh.core.properties import Instance, List, Nullable, String
from bokeh.core.property.descriptors import PropertyDescriptor
from bokeh.model import Model
from bokeh.model import util as model_util

from app.upstream import lean_references
from tests.page_documents import PAGE_PATHS, page_document, switch


@pytest.fixture
def walk(monkeypatch):
    """Switch between Bokeh's own reference walk (both of its visits) and the lean one within a test."""

    model = switch(
        monkeypatch,
        model_util,
        "visit_immediate_value_references",
        lean_references.visit_immediate_value_references,
        lean_references._ORIGINAL,
    )
    value = switch(
        monkeypatch,
        model_util,
        "visit_value_and_its_immediate_references",
        lean_references.visit_value_and_its_immediate_references,
        lean_references._ORIGINAL_VALUE,
    )

    def use(lean: bool) -> None:
        model(lean)
        value(lean)

    return use


def _found(doc) -> list[list[str]]:
    """The ids each root's walk finds, in order, then those the document's own recount finds."""
    per_root = [[model.id for model in model_util.collect_models(root)] for root in doc.roots]
    doc.models.recompute()
    return [*per_root, [model.id for model in doc.models]]


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_page_walk_finds_the_same_models_in_the_same_order(path, walk):
    doc = page_document(path)
    walk(lean=True)  # first: Bokeh's own walk fills in defaults as it reads them, the lean one does not
    lean = _found(doc)
    walk(lean=False)
    assert lean == _found(doc)
    assert sum(len(ids) for ids in lean[:-1]) >= len(lean[-1]) >= 5  # a real page, every model reached


class Leaf(Model):
    """A model to be found."""

    __implementation__ = ""  # never sent to a browser
    name_ = String(default="")


class Holder(Model):
    """A model holding others: one set, one built with it (an unstable default), one left at None."""

    __implementation__ = ""
    chosen = Nullable(Instance(Model))
    made = Instance(Model, default=lambda: Leaf(name_="made"))
    left = Nullable(Instance(Model))
    kids = List(Instance(Model))


def _reads(lean: bool, holder: Holder, walk) -> tuple[list[str], set[str]]:
    """What a walk from ``holder`` finds, and which of its defaults it builds on the way."""
    walk(lean=lean)
    built = set()
    original = PropertyDescriptor._get_default

    def counted(descriptor, obj):
        if obj is holder:
            built.add(descriptor.name)
        return original(descriptor, obj)

    with mock.patch.object(PropertyDescriptor, "_get_default", autospec=True, side_effect=counted):
        found = [model.name_ for model in model_util.collect_models(holder) if isinstance(model, Leaf)]
    return found, built


def test_a_default_that_holds_no_model_is_not_read(walk):
    holder = Holder(chosen=Leaf(name_="chosen"), kids=[Leaf(name_="kid")])
    lean_found, lean_built = _reads(True, holder, walk)
    bokeh_found, bokeh_built = _reads(False, holder, walk)
    assert lean_found == bokeh_found == ["chosen", "made", "kid"]
    assert "left" in bokeh_built  # Bokeh's walk builds the unset default (None) to look in it
    assert "left" not in lean_built


def test_a_model_set_later_is_found(walk):
    walk(lean=True)
    holder = Holder()
    assert [m.name_ for m in model_util.collect_models(holder) if isinstance(m, Leaf)] == ["made"]
    holder.left = Leaf(name_="later")
    assert [m.name_ for m in model_util.collect_models(holder) if isinstance(m, Leaf)] == ["made", "later"]


def test_a_themed_model_and_values_of_every_kind_are_found_as_bokeh_finds_them(walk):
    """A theme's model-holding value, nested containers, a dataclass, None and booleans: the same finds."""
    from dataclasses import dataclass

    @dataclass
    class Pair:
        left: object
        right: object

    holder = Holder(kids=[Leaf(name_="a"), Leaf(name_="b")])
    holder.apply_theme({"chosen": Leaf(name_="themed")})
    values = [holder, (None, True, 1.5, "s", {"k": Leaf(name_="in a dict")}), Pair(Leaf(name_="left"), [False])]
    found = {}
    for lean in (True, False):
        walk(lean=lean)
        found[lean] = [model.name_ for model in model_util.collect_models(*values) if isinstance(model, Leaf)]
    assert found[True] == found[False]
    assert {"themed", "made", "a", "b", "in a dict", "left"} <= set(found[True])


def test_install_is_idempotent(monkeypatch):
    monkeypatch.setattr(model_util, "visit_immediate_value_references", lean_references._ORIGINAL)
    monkeypatch.setattr(model_util, "visit_value_and_its_immediate_references", lean_references._ORIGINAL_VALUE)
    lean_references.install()
    lean_references.install()
    assert model_util.visit_immediate_value_references is lean_references.visit_immediate_value_references
    lean_value = lean_references.visit_value_and_its_immediate_references
    assert model_util.visit_value_and_its_immediate_references is lean_value
