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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bokeh.core.has_props import HasProps
from bokeh.model import util as model_util

_ORIGINAL = model_util.visit_immediate_value_references


def visit_immediate_value_references(value: Any, visitor: Callable[[Any], None]) -> None:
    """Bokeh's ``visit_immediate_value_references``, not reading properties that hold no model.

    Parameters
    ----------
    value : object
        A model, or any value that may contain models.
    visitor : callable
        Called with each model referred to (a model referred to twice is visited twice).
    """
    if not isinstance(value, HasProps):
        model_util.visit_value_and_its_immediate_references(value, visitor)
        return
    themed = value.themed_values()
    held = (value._property_values, value._unstable_default_values, value._unstable_themed_values, themed or ())
    for attr in value.properties_with_refs():
        if any(attr in values for values in held):
            model_util.visit_value_and_its_immediate_references(getattr(value, attr), visitor)


def install() -> None:
    """Use :func:`visit_immediate_value_references` in every reference walk (idempotent)."""
    model_util.visit_immediate_value_references = visit_immediate_value_references
