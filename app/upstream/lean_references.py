"""Bokeh 3.9 looks for a model's references by reading every property that can hold one, defaults included.

A document finds its models by walking references (``bokeh.model.util.collect_models``: each time
roots are added or a change is unfrozen, and in every ``Model.select``), and the walk reads every
property that can hold a model, ``visit_immediate_value_references``. For a property still at a
stable default each read builds that default again (its theme, its class's overrides, a copy),
only for the walk to find no model in it. Building a lesson page with its lab walks its models
about forty times (``Model.select`` in Panel, the document's recounts), some 4,000 reads; skipping
the ones that cannot hold a model took 20-40 ms off the first lesson's build in-process on the
2-core machine, and about 100 ms off the third's (its lab has two figures).

A stable default never holds a model: Bokeh requires a model-valued default to be given as a
factory (``InstanceDefault`` or a callable), and such an *unstable* default is built when the model
is created and kept in ``_unstable_default_values``. So a property that is neither set, nor an
unstable default, nor a theme's value holds no reference, and :func:`install` makes the walk skip
it before reading it. Every other property is read as before, in the same order, so the walk
visits the same models in the same order (``tests/upstream/test_lean_references.py``).

The value visit under it, ``visit_value_and_its_immediate_references``, imports ``Model`` at each of
its calls and sends ``None`` and booleans through every check down to a dataclass test before
finding nothing in them. :func:`install` replaces it too: ``Model`` imported once, plain values
(numbers, strings, booleans, None) returned from at once, the rest checked in Bokeh's order. A
property the model holds is read from the dictionary Bokeh's descriptor reads it from. A walk of a
lesson page's 67 models took 1.12 ms before this and 0.17 ms after (December 2026); a lesson page
walks its models a dozen times as it is built.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from bokeh.core.has_props import HasProps
from bokeh.model import Model
from bokeh.model import util as model_util
from bokeh.util.dataclasses import entries, is_dataclass

_ORIGINAL = model_util.visit_immediate_value_references
_ORIGINAL_VALUE = model_util.visit_value_and_its_immediate_references

_NO_MODEL_TYPES = frozenset({int, float, str, bool, type(None)})
"""Values that hold no model: Bokeh's own visit finds nothing in them after every other check."""


@cache
def _themes_on_instance(kind: type) -> bool:
    """Whether a model of ``kind`` keeps its theme's values only on itself (no class defines ``__themed_values__``)."""
    return not any("__themed_values__" in vars(base) for base in kind.__mro__)


def visit_value_and_its_immediate_references(obj: Any, visitor: Callable[[Any], None]) -> None:
    """Bokeh's ``visit_value_and_its_immediate_references``, with no import per call and scalars and None first.

    Parameters
    ----------
    obj : object
        A value: a model (handed to ``visitor``), a container or a plain value.
    visitor : callable
        Called with each model found, in Bokeh's order.
    """
    typ = type(obj)
    if typ in _NO_MODEL_TYPES:
        return
    if typ is list or issubclass(typ, (list, tuple)):
        for item in obj:
            visit_value_and_its_immediate_references(item, visitor)
    elif issubclass(typ, dict):
        for key, value in obj.items():
            visit_value_and_its_immediate_references(key, visitor)
            visit_value_and_its_immediate_references(value, visitor)
    elif issubclass(typ, HasProps):
        if issubclass(typ, Model):
            visitor(obj)
        else:
            visit_immediate_value_references(obj, visitor)
    elif is_dataclass(obj):
        for _, value in entries(obj):
            visit_value_and_its_immediate_references(value, visitor)


def visit_immediate_value_references(value: Any, visitor: Callable[[Any], None]) -> None:
    """Bokeh's ``visit_immediate_value_references``, not reading properties that hold no model.

    A property the model holds (set, an unstable default, an unstable themed value) is read from
    where Bokeh's descriptor reads it; any other themed one through the descriptor.

    Parameters
    ----------
    value : object
        A model, or any value that may contain models.
    visitor : callable
        Called with each model referred to (a model referred to twice is visited twice).
    """
    if not isinstance(value, HasProps):
        visit_value_and_its_immediate_references(value, visitor)
        return
    kind = type(value)
    themed = value.__dict__.get("__themed_values__") if _themes_on_instance(kind) else value.themed_values()
    values, defaults = value._property_values, value._unstable_default_values
    themed_defaults = value._unstable_themed_values
    for attr in value.properties_with_refs():
        if attr in values:
            held = values[attr]
        elif themed is not None and attr in themed:
            held = themed_defaults[attr] if attr in themed_defaults else getattr(value, attr)
        elif attr in defaults:
            held = defaults[attr]
        elif attr in themed_defaults:
            held = getattr(value, attr)
        else:
            continue
        visit_value_and_its_immediate_references(held, visitor)


def install() -> None:
    """Use :func:`visit_immediate_value_references` and its value visit in every reference walk (idempotent)."""
    model_util.visit_immediate_value_references = visit_immediate_value_references
    model_util.visit_value_and_its_immediate_references = visit_value_and_its_immediate_references
