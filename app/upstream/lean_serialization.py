"""Bokeh 3.9 serializes a model by reading every property, defaults included, then dropping them.

``HasProps.query_properties_with_values(include_defaults=False)``, which every model's
``to_serializable`` calls, first works out which properties it will send (those set on the model,
its unstable defaults and its theme's values), and then still computes the value of every other
property, building and copying each default, only to skip it; Bokeh's own comment there says the
check should come first. A lesson page's document has about 100 models with dozens of properties
each, so a session's first ``PULL-DOC-REPLY`` spent about 90 ms in-process on defaults it never
sent (``bench/session_cost.py`` and ``tests/upstream/test_lean_serialization.py``).

:func:`install` replaces the method with one that skips a property it will not send before computing
its value. What is sent does not change: a property Bokeh would have refused (a required one left
unset) is still read, so it still raises ``UnsetValueError``; with ``include_defaults=True`` the
original runs unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bokeh.core.has_props import HasProps
from bokeh.core.property.descriptors import PropertyDescriptor
from bokeh.core.property.singletons import Undefined
from bokeh.core.property.wrappers import PropertyValueContainer

_ORIGINAL = HasProps.query_properties_with_values


def _required(overrides: dict[str, Any], key: str, descriptor: PropertyDescriptor[Any]) -> bool:
    """Whether ``key`` has no default (its class's overrides first), so that reading it unset raises."""
    default = overrides[key] if key in overrides else descriptor.property._default
    return default is Undefined


def query_properties_with_values(
    self: HasProps,
    query: Callable[[PropertyDescriptor[Any]], bool],
    *,
    include_defaults: bool = True,
    include_undefined: bool = False,
) -> dict[str, Any]:
    """Bokeh's ``HasProps.query_properties_with_values``, computing only the values it returns.

    Parameters
    ----------
    query : callable
        Takes a property descriptor; True selects the property.
    include_defaults : bool
        Whether properties left at their defaults are included (then Bokeh's own method runs).
    include_undefined : bool
        Whether a required property left unset is returned as ``Undefined`` rather than raising.

    Returns
    -------
    dict
        Property names and values, exactly as Bokeh's method returns them.
    """
    if include_defaults:
        return _ORIGINAL(self, query, include_defaults=True, include_undefined=include_undefined)
    themed = self.themed_values()
    themed_keys = set(themed) if themed is not None else set()
    selected = self._property_values.keys() | self._unstable_default_values.keys() | themed_keys
    overrides = type(self)._overridden_defaults()
    result: dict[str, Any] = {}
    for key in self.properties(_with_props=True):
        descriptor = self.lookup(key)
        if not query(descriptor):
            continue
        if key not in selected:
            if _required(overrides, key, descriptor):  # left unset: Bokeh raises, or says Undefined
                if include_undefined:
                    result[key] = Undefined
                else:
                    descriptor.get_value(self)  # raises UnsetValueError, as Bokeh's method does
            continue
        value = descriptor.get_value(self)
        unstable = key in self._unstable_default_values
        if unstable and key not in themed_keys and isinstance(value, PropertyValueContainer):
            continue  # a container left at its default: Bokeh does not send it
        result[key] = value
    return result


def install() -> None:
    """Use :func:`query_properties_with_values` for every Bokeh model (idempotent)."""
    HasProps.query_properties_with_values = query_properties_with_values
