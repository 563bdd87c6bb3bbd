"""app.upstream.lean_datamodel_refs: a custom component's update tags what Panel's would, without walking its lab."""

from __future__ import annotations

import json

import panel as pn
import pytest
from bokeh.document import Document
from bokeh.model import DataModel, Model
from panel import reactive
from panel.custom import Child, JSComponent

from app.course.exercise_card import ExerciseCard
from app.course.lesson_text import LessonText
from app.upstream import lean_datamodel_refs
from labs.queue.view import QueueLab


class Holder(JSComponent):
    """A component whose child can be swapped after it is drawn."""

    inner = Child(default=None, allow_None=True, doc="What it holds.")
    _esm = "export function render({ model }) { return model.get_child('inner') }"


class Box(JSComponent):
    """A component with a data model of its own, to be put in a Holder."""

    _esm = "export function render() { return document.createElement('div') }"


@pytest.fixture
def refs(monkeypatch):
    """``use(lean)``: Panel's own ``_set_on_model``/``_patch_datamodel_ref`` (False) or the fix's (True)."""
    base = reactive.ReactiveCustomBase

    def use(lean: bool) -> None:
        if lean:
            monkeypatch.setattr(base, "_set_on_model", lean_datamodel_refs.set_on_model)
            monkeypatch.setattr(base, "_patch_datamodel_ref", classmethod(lean_datamodel_refs.patch_datamodel_ref))
        else:
            monkeypatch.setattr(base, "_set_on_model", lean_datamodel_refs._ORIGINAL_SET)
            monkeypatch.setattr(base, "_patch_datamodel_ref", classmethod(lean_datamodel_refs._ORIGINAL_PATCH))

    return use


def _tags(root: Model) -> list[list[str]]:
    """Each DataModel's tags under ``root``, in walk order."""
    return [list(model.tags) for model in root.references() if isinstance(model, DataModel)]


def _lesson_text() -> tuple[LessonText, ExerciseCard, Model]:
    card = ExerciseCard(label="Exercise: one")
    text = LessonText(["Some prose.", card], lab=QueueLab())
    root = text.get_root(Document())
    return text, card, root


def _selects(monkeypatch) -> list[Model]:
    """Record the models ``Model.select`` is called on from now."""
    called: list[Model] = []
    original = Model.select

    def select(self, selector):
        called.append(self)
        return original(self, selector)

    monkeypatch.setattr(Model, "select", select)
    return called


@pytest.mark.parametrize("lean", [True, False])
def test_a_card_change_tags_every_data_model_as_panel_does(refs, lean):
    refs(lean)
    text, card, root = _lesson_text()
    before = _tags(root)
    card.steps_html = "<p>changed</p>"
    assert json.loads(root.data.card_updates)["0"][list(text.card_fields).index("steps_html")] == "<p>changed</p>"
    assert _tags(root) == before
    assert all(f"__ref:{root.ref['id']}" in tags for tags in before) and len(before) >= 2


def test_a_card_change_walks_not_the_lab(refs, monkeypatch):
    refs(True)
    _text, card, root = _lesson_text()
    called = _selects(monkeypatch)
    card.steps_html = "<p>changed</p>"
    assert root.data not in called


def test_panel_alone_walks_the_lab_on_every_card_change(refs, monkeypatch):
    """Fails once Panel walks only what an update set: delete the fix then."""
    refs(False)
    _text, card, root = _lesson_text()
    called = _selects(monkeypatch)
    card.steps_html = "<p>changed</p>"
    assert root.data in called


@pytest.mark.parametrize("lean", [True, False])
def test_a_new_child_is_tagged_with_its_root(refs, lean):
    refs(lean)
    holder = Holder(inner=pn.pane.HTML("first"))
    root = holder.get_root(Document())
    holder.inner = Box()
    new = root.data.inner
    assert isinstance(new, Model) and new is not None
    tag = f"__ref:{root.ref['id']}"
    found = [model for model in new.references() if isinstance(model, DataModel)]
    assert found and all(tag in model.tags for model in found)
