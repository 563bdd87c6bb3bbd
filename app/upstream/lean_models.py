"""Bokeh 3.9 builds every empty list and dict a new model could hold, as the model is made.

``HasProps.__init__`` ends by reading every property with an *unstable* default, one built anew for
each model (a list, a dict, a model made by a factory), so that the model keeps it
(``_unstable_default_values``). For most properties that default is an empty list or dict
(``tags``, ``css_classes``, ``stylesheets``, ``js_property_callbacks``, ...): a lesson page with
its lab makes about 75 models and fills in some 9 such defaults for each, containers that nothing
reads before the model is sent and that are not sent while left empty. Leaving them took 30-60 ms
off the first lesson's build in-process on the 2-core machine, and 100 ms or more off the third's.

:func:`install` makes a model build such an empty container the first time it is read instead
(Bokeh's own path for any property it had not filled in), and keeps every other unstable default,
among them a model-valued one and a ``None`` that Bokeh sends, built at once as Bokeh does. Which
properties are which depends only on the class, so it is worked out once per class. A page's
document is the same either way (``tests/upstream/test_lean_models.py``).
"""

from __future__ import annotations

from typing import Any

from bokeh.core.has_props import HasProps
from bokeh.core.property.descriptors import PropertyDescriptor
from bokeh.core.property.singletons import Intrinsic, Undefined
from bokeh.core.property.wrappers import PropertyValueContainer

_ORIGINAL = HasProps.__init__
_EMPTY_CONTAINERS = (list, dict, set)
_built_at_once: dict[type, tuple[str, ...]] = {}


def _unsent_empty_container(cls: type[HasProps], name: str) -> bool:
    """Whether a plain property of ``cls`` starts as an empty list, dict or set that Bokeh does not send.

    Its default (its class's override first) is an empty container, and the property wraps it in
    one of Bokeh's own containers (``PropertyValueContainer``), which a model's serialization leaves
    out while it is left at the default. (A ``Seq`` keeps a plain list, which Bokeh sends.)
    """
    descriptor = cls.lookup(name)
    if type(descriptor) is not PropertyDescriptor:  # an alias, a data source's columns: as Bokeh does
        return False
    overrides = cls._overridden_defaults()
    default = overrides[name] if name in overrides else descriptor.property._default
    if type(default) not in _EMPTY_CONTAINERS or default:
        return False
    return isinstance(descriptor.property.wrap(type(default)()), PropertyValueContainer)


def built_at_once(cls: type[HasProps]) -> tuple[str, ...]:
    """The properties whose unstable default a new ``cls`` builds at once (all but unsent empty containers).

    Parameters
    ----------
    cls : type
        A Bokeh model class.

    Returns
    -------
    tuple of str
        In Bokeh's order (``cls.properties``).
    """
    if cls not in _built_at_once:
        _built_at_once[cls] = tuple(
            name
            for name in cls.properties(_with_props=True)
            # Bokeh's own test, which reads only the class (its overrides), not the instance
            if cls.lookup(name).has_unstable_default(cls) and not _unsent_empty_container(cls, name)
        )
    return _built_at_once[cls]


def __init__(self: HasProps, **properties: Any) -> None:
    """Bokeh's ``HasProps.__init__``, leaving empty container defaults to be built when first read.

    Parameters
    ----------
    **properties
        The model's initial property values.
    """
    super(HasProps, self).__init__()
    self._property_values = {}
    self._unstable_default_values = {}
    self._unstable_themed_values = {}
    for name, value in properties.items():
        if value is Undefined or value is Intrinsic:
            continue
        setattr(self, name, value)
    for name in built_at_once(type(self)):
        if name not in properties:
            self.lookup(name)._get(self)  # fills in ``_unstable_default_values``, as Bokeh does
    self._initialized = True


def install() -> None:
    """Make every Bokeh model with :func:`__init__` (idempotent)."""
    HasProps.__init__ = __init__
