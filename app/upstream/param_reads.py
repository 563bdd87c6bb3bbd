"""param 2.x reads every attribute of every Parameter through a Python ``__getattribute__``.

``Parameter.__getattribute__`` exists for one case: a Parameter not yet bound to a class (its
``name`` still None, while its class body runs) answers a slot it was not given, stored as
``Undefined``, with the slot's default. Once bound, param has filled every slot
(``ParameterizedMetaclass.__param_inheritance``) and the method only passes each read through. It
still runs, as a Python call, for every read of every slot: a Parameter's ``name`` and ``default`` at
each ``obj.value`` read, its bounds at each check. A lesson visit makes about 34,000 such reads; the
method was 11% of a visit's in-process CPU (75 against 67 ms with it taken away, 5 December 2026).

:func:`install` keeps param's behaviour for the unbound case and takes the call away from the bound
one:

- ``Parameter`` loses its ``__getattribute__``: a bound Parameter's reads are Python's own.
- A Parameter is made (``Parameter.__new__``) as an instance of an *unbound twin* of its class: a
  subclass with no slots of its own whose ``__getattribute__`` is param's, so a Parameter whose class
  body is still running reads its defaults as before.
- The first read once the Parameter has a name turns it back into its own class (the twin and the
  class have the same layout, so Python allows the switch). Bound Parameters, and the copies param
  makes of them, are thus of their own class: ``type(p)``, ``repr`` and pickling see no twin.
- Parameters made before :func:`install` and still unbound are turned into twins there.

:func:`applies` refuses the fix where param's method is not the one it was checked on (it reads
``_slot_defaults`` and ``Undefined`` as param 2.4 does) or where a Parameter class has a
``__new__`` or ``__getattribute__`` of its own.
"""

from __future__ import annotations

import gc
from typing import Any

from param import parameterized
from param.parameterized import Parameter, ParameterMetaclass, Undefined

_ORIGINAL_GETATTRIBUTE = Parameter.__dict__.get("__getattribute__")
_UNBOUND_TWIN = "_unbound_twin_of"
"""The class attribute naming the class a twin stands in for."""

_twins: dict[type, type] = {}


def unbound_getattribute(self: Parameter, key: str) -> Any:
    """The ``__getattribute__`` of param for an unbound Parameter; a bound one becomes its own class again.

    Parameters
    ----------
    self : Parameter
        An instance of an unbound twin.
    key : str
        The attribute read.

    Returns
    -------
    Any
        What param's method returns: the stored value, or for a slot left ``Undefined`` on a Parameter
        with no name yet, the slot's default (called with the Parameter where it is callable).
    """
    value = object.__getattribute__(self, key)
    try:
        name = object.__getattribute__(self, "name")
    except AttributeError:  # a slot not set yet: early in __init__
        name = None
    if name is not None:
        object.__setattr__(self, "__class__", getattr(type(self), _UNBOUND_TWIN))
        return object.__getattribute__(self, key) if key == "__class__" else value
    if value is Undefined and key != "name":
        try:
            value = self._slot_defaults[key]
        except KeyError as e:
            raise KeyError(
                f"Slot {key!r} on unbound parameter {self.__class__.__name__!r} "
                "has no default value defined in `_slot_defaults`"
            ) from e
        if callable(value):
            value = value(self)
    return value


def twin(cls: type) -> type:
    """The unbound twin of Parameter class ``cls``: made once, the same layout, param's reads.

    Parameters
    ----------
    cls : type
        A subclass of ``param.Parameter`` (or a twin, returned as it is).

    Returns
    -------
    type
        A subclass of ``cls`` with the same name and no slots of its own.
    """
    if _UNBOUND_TWIN in cls.__dict__:
        return cls
    found = _twins.get(cls)
    if found is None:
        namespace = {
            "__slots__": (),
            "__getattribute__": unbound_getattribute,
            "__module__": cls.__module__,
            "__qualname__": cls.__qualname__,
            _UNBOUND_TWIN: cls,
        }
        found = _twins[cls] = ParameterMetaclass(cls.__name__, (cls,), namespace)
    return found


def new_parameter(cls: type, *args: Any, **kwargs: Any) -> Parameter:
    """``Parameter.__new__``: an instance of ``cls``'s unbound twin (``__init__`` then runs as usual)."""
    return object.__new__(twin(cls))


def plain_new(cls: type, *args: Any, **kwargs: Any) -> Parameter:
    """``Parameter.__new__`` once uninstalled: ``object.__new__`` (Python keeps a ``__new__`` once assigned)."""
    return object.__new__(cls)


def parameter_classes() -> list[type]:
    """``Parameter`` and every subclass loaded now, twins left out."""
    found, todo = [], [Parameter]
    while todo:
        cls = todo.pop()
        if _UNBOUND_TWIN in cls.__dict__:
            continue
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def applies() -> str:
    """Why the fix cannot be installed here, or ``""``."""
    if not callable(_ORIGINAL_GETATTRIBUTE) or parameterized.Parameter is not Parameter:
        return "param.parameterized.Parameter has no __getattribute__ of its own"
    code = _ORIGINAL_GETATTRIBUTE.__code__
    if not {"_slot_defaults", "Undefined"} <= set(code.co_names):
        return "param's Parameter.__getattribute__ is not the one checked (no _slot_defaults, Undefined)"
    for cls in parameter_classes():
        own = cls.__dict__.get("__new__")
        if own is not None and getattr(own, "__func__", own) not in (new_parameter, plain_new):
            return f"{cls.__module__}.{cls.__qualname__} has a __new__ of its own"
        if cls is not Parameter and "__getattribute__" in cls.__dict__:
            return f"{cls.__module__}.{cls.__qualname__} has a __getattribute__ of its own"
    return ""


def install() -> None:
    """Take param's per-read call away from bound Parameters (idempotent)."""
    if "__getattribute__" not in Parameter.__dict__:
        return
    for obj in gc.get_objects():
        if issubclass(type(obj), Parameter) and getattr(obj, "name", None) is None:
            object.__setattr__(obj, "__class__", twin(type(obj)))
    Parameter.__new__ = staticmethod(new_parameter)
    del Parameter.__getattribute__


def uninstall() -> None:
    """Give ``Parameter`` param's own method back (tests, benches); twins made meanwhile keep theirs."""
    if "__getattribute__" in Parameter.__dict__:
        return
    Parameter.__new__ = staticmethod(plain_new)
    Parameter.__getattribute__ = _ORIGINAL_GETATTRIBUTE
