"""A fix for param 2.x: every object of the app's classes made its own copy of every Parameter it read.

param gives an object its own copy of a class's Parameter (``per_instance``) the first time
``obj.param[name]`` is read once the object is initialised, so that one object may change a
Parameter's attributes (its bounds, label or ``constant``) without changing another's. Panel reads
each Parameter of a component that way when it builds the component's Bokeh model
(``JSComponent._get_properties``) and when it resolves a ``param.depends`` method, so every exercise
card, field, lesson text and lab model of every session copied nearly all of its Parameters, each
copy itself a copy of a dozen slots: 499 copies for one lesson visit (248 of the app's own Parameters,
251 of Panel's inherited by the app's components).

None of the app's objects changes a Parameter's attributes (``tests/upstream/test_lean_params.py``
reads the app's source for such a change), so they can share their class's Parameters, as param lets a
class do (``param.parameterized.no_instance_params`` sets the flag this fix sets). :func:`install` sets
it on every class of the app (modules ``app.*`` and ``labs.*``) built directly on
``param.Parameterized``, Panel's ``Viewer`` or ``JSComponent``: on those loaded at once, and on later
ones as they are defined (``ParameterizedMetaclass.__init__`` wrapped). Panel's own classes, its
widgets, layouts and templates, keep their copies: some change a Parameter per object.

An object's values, watchers and dependencies are its own either way: param keeps them on the
object, not on the Parameter. What is shared is the Parameter's description. One thing changes it
for a moment: when the browser sets a read-only property, Panel's ``edit_readonly`` lifts
``readonly`` and ``constant`` around the assignment; shared, they are lifted for the class for that
moment, on the event loop's thread (so the fix is ``one_thread``).
"""

from __future__ import annotations

from collections.abc import Iterator

import param
from panel.custom import JSComponent
from panel.viewable import Viewer
from param import parameterized

APP_MODULES = ("app.", "labs.")
"""The modules whose classes share their Parameters (the app's own)."""

_ORIGINAL_INIT = None
"""param's ``ParameterizedMetaclass.__init__``, kept by :func:`install`."""

_FLAG = "disable_instance_params"
"""The attribute of a class's ``_param__private`` that param reads before copying a Parameter."""


def sharing_bases() -> tuple[type, ...]:
    """The library classes an app class may be built on directly and still share its Parameters."""
    return (param.Parameterized, Viewer, JSComponent)


def is_app_class(cls: type) -> bool:
    """Whether ``cls`` is the app's own and built directly on one of :func:`sharing_bases`.

    Parameters
    ----------
    cls : type
        A subclass of ``param.Parameterized``.

    Returns
    -------
    bool
        True for ``ExerciseCard`` (on ``param.Parameterized``), ``QueueLab`` (through the app's
        ``LabView``, on ``Viewer``), ``LabStage`` (on ``JSComponent``); False for Panel's own classes
        and for an app class built on a Panel widget, layout or template.
    """
    if not cls.__module__.startswith(APP_MODULES):
        return False
    library = next(base for base in cls.__mro__[1:] if not base.__module__.startswith(APP_MODULES))
    return library in sharing_bases()


def share_parameters(cls: type, share: bool = True) -> None:
    """Let every object of ``cls`` use the class's Parameters, as ``param.parameterized.no_instance_params`` does.

    Parameters
    ----------
    cls : type
        A subclass of ``param.Parameterized``.
    share : bool
        False gives the class param's own behaviour back (``bench/visit_cost.py`` compares the two).
    """
    setattr(cls._param__private, _FLAG, share)


def app_classes() -> Iterator[type]:
    """Every loaded subclass of ``param.Parameterized`` that :func:`is_app_class` accepts."""
    stack = list(param.Parameterized.__subclasses__())
    seen: set[type] = set()
    while stack:
        cls = stack.pop()
        if cls in seen:
            continue
        seen.add(cls)
        stack.extend(cls.__subclasses__())
        if is_app_class(cls):
            yield cls


def _init_sharing(mcs: type, name: str, bases: tuple[type, ...], namespace: dict) -> None:
    _ORIGINAL_INIT(mcs, name, bases, namespace)
    if is_app_class(mcs):
        share_parameters(mcs)


def applies() -> str:
    """Why the fix cannot be installed here (param reads no such flag), or ``""``."""
    private = getattr(param.Parameterized, "_param__private", None)
    if private is None or not hasattr(private, _FLAG):
        return "param.Parameterized has no _param__private.disable_instance_params"
    if not callable(getattr(parameterized, "_instantiated_parameter", None)):
        return "param.parameterized has no _instantiated_parameter"
    return ""


def install() -> None:
    """Share the Parameters of the app's classes, loaded now and defined later (idempotent)."""
    global _ORIGINAL_INIT
    metaclass = parameterized.ParameterizedMetaclass
    if _ORIGINAL_INIT is None:
        _ORIGINAL_INIT = metaclass.__init__
        metaclass.__init__ = _init_sharing
    for cls in app_classes():
        share_parameters(cls)
