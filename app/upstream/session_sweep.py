"""Free a discarded session's reference cycles without walking the sessions still open.

Once a session is discarded, most of its objects are still held in reference cycles (a Bokeh model's
change callbacks hold the Panel object that holds the model; a Parameterized object's watchers are
its own bound methods), about 4,300 objects for a lesson session. Only a full garbage collection
frees those, and a full collection walks every open session too (``app.upstream.collector`` keeps them
frozen for that reason, and walks everything only in a rare thaw).

This module does for one discarded session what the collector does for a generation, over just that
session's objects:

1. **The walk** (:func:`walk`): from the session's roots (weak references to the objects it made,
   taken as its page was built and loaded: :func:`session_roots`, :func:`served_roots`), follow
   references (``gc.get_referents``), stopping at what the process shared before any student came
   (the objects alive when start-up settled, :func:`mark_shared`), at types, modules and code,
   and at the documents, models, Panel objects and connections of sessions still open
   (:func:`still_open`).
2. **What is unreachable** (:func:`unreachable`): CPython's own test. An object is referred to
   from outside the walked set when its reference count is more than the references to it from
   inside; such an object is alive, and so is everything it reaches. The rest is garbage in
   cycles: nothing outside refers to any of it.
3. **Breaking the cycles** (:func:`break_cycles`): empty the garbage's dicts, lists, sets, slots
   and closure cells (with the base types' own methods: Bokeh's containers notify their owners from
   theirs), and reference counting frees the rest at once.

Unlike CPython's collector, a sweep cannot clear the weak references to the garbage before it
empties it, so an emptied object that a cycle of tuples, functions or frames alone still held
would stay reachable through them. :attr:`SweepResult.survivors` counts such objects (none in a
lesson session, measured); they wait for the thaw like anything else a sweep misses.

A walk that grows past :data:`MAX_WALK` objects (something shared that start-up did not hold, a
path into other sessions) is given up: the session waits for the collector's thaw as before.
"""

from __future__ import annotations

import gc
import operator
import sys
import types
import weakref
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, partial
from itertools import compress, repeat
from typing import TypeVar

from app.upstream.open_sessions import hub_types, still_open

T = TypeVar("T")

MAX_WALK = 15_000
"""Objects one walk may gather before it is given up.

A discarded lesson session walks about 4,300-7,500 (10-35 ms on the 2-core machine, December 2026;
``bench/discard_pauses.py``'s longest sweep 37 ms); a walk given up at this size takes about 30-40 ms."""

_STOP_TYPES = (type, types.ModuleType, types.CodeType, types.BuiltinFunctionType, weakref.ReferenceType)
_NO_SWITCH_S = 1.0
"""The interpreter's thread switch interval during a sweep (5 ms by default).

Between counting the references to an object and emptying the garbage, another thread that removed
a reference held inside the walked set could make a live object look unreachable. A worker thread
(a trace parse, a class database read) gets the interpreter only when the sweep is done, a few tens
of milliseconds later, as it would after a collection by CPython, which holds it throughout.
"""
_PLAIN, _STOP, _HUB = 0, 1, 2
"""What a walk does with an object, by its type: follow it, stop there (:data:`_STOP_TYPES`), or
follow it unless it belongs to a session still open (:func:`hub_types`, :func:`still_open`)."""


class Shared:
    """The objects alive once start-up settled, and their ids: a walk stops there.

    The objects themselves are kept: were one of them freed, a session's object could be given its
    address, and a walk would stop at it (never a wrong result, but a missed cycle; measured, it
    left half of a discarded page to the thaw in some runs and not in others).
    """

    objects: tuple[object, ...] = ()
    ids: frozenset[int] = frozenset()


@dataclass
class SweepResult:
    """What one sweep found and freed (for ``/healthz`` and the bench).

    Attributes
    ----------
    walked : int
        Objects the walk gathered.
    unreachable : int
        Of those, garbage in cycles.
    survivors : int
        Of the garbage that takes weak references, what was still alive after its cycles were broken.
    given_up : bool
        The walk passed :data:`MAX_WALK`: nothing was changed.
    """

    walked: int = 0
    unreachable: int = 0
    survivors: int = 0
    given_up: bool = False


def mark_shared() -> None:
    """Remember every object alive now as shared by all sessions (call once start-up has settled)."""
    Shared.objects = tuple(gc.get_objects())
    Shared.ids = frozenset(map(id, Shared.objects))


def forget_shared() -> None:
    """Undo :func:`mark_shared` (for tests)."""
    Shared.objects, Shared.ids = (), frozenset()


def session_roots(doc) -> list[weakref.ref]:
    """Weak references to what a discarded session's cycles can be found from.

    Everything made since the last freeze that takes a weak reference: the session's Bokeh models,
    its Panel and param objects, its functions. Taken right after the page's first piece is built
    and again once it has loaded (``app.upstream.collector``). Bokeh's and Panel's cleanup detach these from the
    document and from each other when the session is discarded, so the document alone would reach
    almost nothing then.

    Parameters
    ----------
    doc : Document
        The session's document, right after a piece of its page was built.

    Returns
    -------
    list of weakref.ref
        One per object; objects of other sessions made since the last freeze may be among them,
        which costs a longer walk, never a wrong result (:func:`unreachable` finds them alive).
    """
    objects = gc.get_objects()
    taken = _per_type(objects, lambda kind: bool(kind.__weakrefoffset__) and not issubclass(kind, _STOP_TYPES))
    return [weakref.ref(doc), *map(weakref.ref, compress(objects, taken))]


def served_roots(doc) -> list[weakref.ref]:
    """Weak references to what serves the page: its Bokeh models, Bokeh's session, its connections, their websockets.

    Some were made before the page was built (the websocket, its connection, Bokeh's session), the
    models after it (as Panel renders the page into the document): another session's freeze may
    have hidden either from :func:`session_roots`. Their cycles hold the session's own objects (a
    connection's protocol handlers, a model's change callbacks), so a walk starts from them too.

    Parameters
    ----------
    doc : Document
        The session's document, while its websocket is open.

    Returns
    -------
    list of weakref.ref
        The models only, outside a server session.
    """
    objects = list(doc.models)
    session = getattr(doc.session_context, "_session", None)  # Bokeh's ServerSession (kept private)
    if session is not None:
        connections = list(getattr(session, "_subscribed_connections", ()))
        objects += [session, *connections, *(getattr(connection, "_socket", None) for connection in connections)]
    return [weakref.ref(obj) for obj in objects if obj is not None and type(obj).__weakrefoffset__]


def walk(roots: Iterable[object], limit: int | None = None) -> list[object] | None:
    """Every object reachable from ``roots`` that is not shared, a type, a module, code or a session still open's.

    Level by level: one ``gc.get_referents`` call for a whole level, untracked referents (strings,
    numbers) filtered out in C, set operations on ids, and what to do with each object worked out
    once per type (:func:`_kinds`), so that no Python code runs per object but :func:`still_open`
    for the few hubs (a lesson session's Bokeh models and Panel objects: about 90 of the 2,900 walked).

    Parameters
    ----------
    roots : iterable
        Where to start.
    limit : int, optional
        Give up past this many objects (:data:`MAX_WALK` by default).

    Returns
    -------
    list or None
        The objects, or None when there were more than ``limit``.
    """
    limit = MAX_WALK if limit is None else limit
    shared = Shared.ids
    hubs = hub_types()
    seen: set[int] = set()
    found: list[object] = []
    level = _by_id(obj for obj in roots if obj is not None and gc.is_tracked(obj))
    while level:
        fresh = level.keys() - seen - shared
        seen |= fresh
        candidates = list(map(level.__getitem__, fresh))
        kinds = _kinds(candidates, hubs)
        kept = list(compress(candidates, map(operator.not_, kinds)))  # _PLAIN is 0
        kept += [hub for hub in compress(candidates, map(partial(operator.eq, _HUB), kinds)) if not still_open(hub)]
        found += kept
        if len(found) > limit:
            return None
        level = _by_id(_tracked_referents(kept))
    return found


def _by_id(objects: Iterable[object]) -> dict[int, object]:
    """``{id(obj): obj}`` for ``objects``, built in C."""
    listed = list(objects)
    return dict(zip(map(id, listed), listed, strict=True))


def _kinds(objects: list[object], hubs: tuple[type, ...]) -> list[int]:
    """Each object's :data:`_PLAIN`, :data:`_STOP` or :data:`_HUB`, worked out once per type.

    By the object's type, as ``isinstance`` decides for any object that does not pretend to be of
    another class through ``__class__`` (a proxy, a mock: followed as a plain object, which only
    makes a walk longer).
    """
    return _per_type(
        objects, lambda kind: _STOP if issubclass(kind, _STOP_TYPES) else _HUB if issubclass(kind, hubs) else _PLAIN
    )


def _per_type(objects: list[object], decide: Callable[[type], T]) -> list[T]:
    """``decide(type(obj))`` for each object, called once per type and mapped over the objects in C."""
    types_ = list(map(type, objects))
    decided = {kind: decide(kind) for kind in set(types_)}
    return list(map(decided.__getitem__, types_))


def _tracked_referents(objects: list[object]) -> Iterable[object]:
    """What ``objects`` refer to, less what the collector does not track (strings, numbers: no cycles)."""
    return filter(gc.is_tracked, gc.get_referents(*objects))


def unreachable(objects: list[object]) -> list[object]:
    """The objects of a walk that nothing outside it refers to, directly or through the others.

    Parameters
    ----------
    objects : list
        From :func:`walk`; the caller holds no other reference to them.

    Returns
    -------
    list
        The garbage among them.
    """
    counts = list(map(sys.getrefcount, objects))  # first, while the list is all that holds them here
    ids = list(map(id, objects))
    inside = Counter(map(id, _tracked_referents(objects)))
    outside = map(operator.sub, counts, repeat(_own_references()))
    level = list(compress(objects, map(operator.gt, outside, map(inside.get, ids, repeat(0)))))
    walked = set(ids)
    reached = set(map(id, level))
    while level:
        referents = _by_id(_tracked_referents(level))
        fresh = (referents.keys() & walked) - reached
        reached |= fresh
        level = list(map(referents.__getitem__, fresh))
    return list(compress(objects, map(operator.not_, map(reached.__contains__, ids))))


@cache
def _own_references() -> int:
    """What ``sys.getrefcount`` adds, mapped over a list, to the count of an object that only the list holds.

    The list's own reference and the call's, as this interpreter counts them: measured once rather
    than assumed (CPython 3.11 counts 2; a listcomp's loop variable would add one).
    """
    return next(map(sys.getrefcount, [object()]))


def break_cycles(garbage: list[object]) -> None:
    """Empty the containers among ``garbage`` so that reference counting frees it.

    Parameters
    ----------
    garbage : list
        From :func:`unreachable`: objects nothing outside refers to.
    """
    for obj in garbage:
        if isinstance(obj, dict):
            dict.clear(obj)
        elif isinstance(obj, list):
            list.clear(obj)
        elif isinstance(obj, set):
            set.clear(obj)
        elif isinstance(obj, types.CellType):
            try:
                del obj.cell_contents
            except ValueError:  # already empty
                pass
        else:
            instance_dict = _instance_dict(obj)
            if instance_dict is not None:
                dict.clear(instance_dict)
            for slot in _slots(type(obj)):
                try:
                    slot.__delete__(obj)
                except AttributeError:  # never set
                    pass


@cache
def _slots(kind: type) -> tuple[types.MemberDescriptorType, ...]:
    """The ``__slots__`` of a class and its bases, as the descriptors that delete them."""
    found = []
    for base in kind.__mro__:
        names = base.__dict__.get("__slots__", ())
        for name in (names,) if isinstance(names, str) else names:
            private = (
                f"_{base.__name__.lstrip('_')}{name}" if name.startswith("__") and not name.endswith("__") else name
            )
            descriptor = base.__dict__.get(private)
            if isinstance(descriptor, types.MemberDescriptorType):
                found.append(descriptor)
    return tuple(found)


def _instance_dict(obj: object) -> dict | None:
    """The object's own ``__dict__``, if it has one (never a class's or a module's: the walk stops there)."""
    try:
        found = object.__getattribute__(obj, "__dict__")
    except (AttributeError, TypeError):
        return None
    return found if isinstance(found, dict) else None


def sweep(roots: list[weakref.ref]) -> SweepResult:
    """Free one discarded session's cycles (see the module's docstring).

    Parameters
    ----------
    roots : list of weakref.ref
        From :func:`session_roots`.

    Returns
    -------
    SweepResult
        What was found and freed.
    """
    interval = sys.getswitchinterval()
    sys.setswitchinterval(_NO_SWITCH_S)  # one piece, as CPython's collector is: see _NO_SWITCH_S
    try:
        objects = walk(ref() for ref in roots)
        if objects is None:
            return SweepResult(given_up=True)
        garbage = unreachable(objects)
        result = SweepResult(walked=len(objects), unreachable=len(garbage))
        del objects
        watched = [weakref.ref(obj) for obj in garbage if type(obj).__weakrefoffset__]
        break_cycles(garbage)
        del garbage
        result.survivors = sum(ref() is not None for ref in watched)
        return result
    finally:
        sys.setswitchinterval(interval)
