"""A fix for Panel 1.9's custom components: an update walked every model under the component.

Panel tags each ``DataModel`` under a custom component (``JSComponent``, ``ReactiveHTML``) with its
root's id (``__ref:<id>``), so that the session's cleanup finds them. It tags a component's own data
model and everything under it when the component's model is built, and then again after **every**
update of one of its properties (``ReactiveCustomBase._set_on_model`` ends with
``_patch_datamodel_ref``, a ``Model.select`` over every model reachable from the data model). The
lesson text (``app.course.lesson_text``) holds the lesson's lab as a child, so each change of one
exercise card walked the whole lab, some 400 models: in a class, 4% of the server's CPU.

A model reachable from the data model after an update either was reachable before (and was tagged
then) or arrived in one of the values just set. :func:`install` wraps ``_set_on_model`` so that the
walk after an update covers only the values it set: the same ``DataModel`` objects get the same tag,
without walking the ones already tagged. The walk when a component's model is built is Panel's own.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from bokeh.model import DataModel, Model
from bokeh.model.util import collect_models
from panel import reactive

_ORIGINAL_SET = None
"""Panel's ``ReactiveCustomBase._set_on_model``, kept by :func:`install`."""
_ORIGINAL_PATCH = None
"""Panel's ``ReactiveCustomBase._patch_datamodel_ref`` (the function under the classmethod), kept by :func:`install`."""

_SETTING: ContextVar[Model | None] = ContextVar("lean_datamodel_refs_setting", default=None)
"""The data model :func:`set_on_model` is updating: Panel's whole walk of it is left out."""

_NEEDED = ("_set_on_model", "_patch_datamodel_ref")
"""The private names of ``panel.reactive.ReactiveCustomBase`` this fix replaces."""


def tag_new_datamodels(model: Model, names: list[str], ref: str) -> None:
    """Tag the ``DataModel`` objects in ``model``'s properties ``names`` (and ``model``) with ``__ref:<ref>``.

    Parameters
    ----------
    model : bokeh.model.Model
        The data model just updated.
    names : list of str
        The properties set on it.
    ref : str
        The root model's id.
    """
    tag = f"__ref:{ref}"
    values = [getattr(model, name) for name in names]
    for found in [model, *collect_models(*values)]:
        if isinstance(found, DataModel) and tag not in found.tags:
            found.tags.append(tag)


def set_on_model(self: Any, msg: Any, root: Model, model: Model) -> list[str]:
    """Panel's ``_set_on_model``, with the tagging walk narrowed to the values it set.

    Parameters
    ----------
    self : panel.reactive.ReactiveCustomBase
        The component.
    msg : mapping
        Property names and values to set on ``model``.
    root : bokeh.model.Model
        The component's root model.
    model : bokeh.model.Model
        The model to set them on (the component's model or its data model).

    Returns
    -------
    list of str
        The properties that changed (Panel's answer).
    """
    token = _SETTING.set(model)
    try:
        changing = _ORIGINAL_SET(self, msg, root, model)
    finally:
        _SETTING.reset(token)
    if msg and isinstance(model, DataModel):
        tag_new_datamodels(model, list(msg), root.ref["id"])
    return changing


def patch_datamodel_ref(cls: type, props: Model, ref: str) -> None:
    """Panel's ``_patch_datamodel_ref``, except for the walk :func:`set_on_model` narrows."""
    if _SETTING.get() is props:
        return
    _ORIGINAL_PATCH(cls, props, ref)


def applies() -> str:
    """Why the fix cannot be installed here (a private name it replaces is gone), or ``""``."""
    base = getattr(reactive, "ReactiveCustomBase", None)
    if base is None:
        return "panel.reactive has no ReactiveCustomBase"
    missing = [name for name in _NEEDED if name not in vars(base)]
    if not missing and not isinstance(vars(base)["_patch_datamodel_ref"], classmethod):
        missing = ["classmethod _patch_datamodel_ref"]
    return f"panel.reactive.ReactiveCustomBase has no {', '.join(missing)}" if missing else ""


def install() -> None:
    """Use :func:`set_on_model` and :func:`patch_datamodel_ref` for every custom component (idempotent)."""
    global _ORIGINAL_SET, _ORIGINAL_PATCH
    base = reactive.ReactiveCustomBase
    if _ORIGINAL_SET is None:
        _ORIGINAL_SET = vars(base)["_set_on_model"]
        _ORIGINAL_PATCH = vars(base)["_patch_datamodel_ref"].__func__
    base._set_on_model = set_on_model
    base._patch_datamodel_ref = classmethod(patch_datamodel_ref)
