"""app.upstream.session_sweep: a discarded session's cycles are freed without a full collection, and nothing alive is
touched."""

from __future__ import annotations

import gc
import sys
import weakref
from contextlib import contextmanager
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st
from panel.io.document import _cleanup_doc
from panel.io.state import state

from app.upstream import session_sweep
from tests.page_documents import document_shape, page_document


class Node:
    """An object of a made-up session: its edges are its references to other nodes."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.edges: list[Node] = []


@contextmanager
def collector_off():
    """No automatic collection while a test looks at what only a sweep may have freed."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


graphs = st.integers(min_value=1, max_value=30).flatmap(
    lambda size: st.tuples(
        st.just(size),
        st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1)), max_size=3 * size),
        st.sets(st.integers(0, size - 1), max_size=size),
        st.sets(st.integers(0, size - 1), min_size=1, max_size=size),
    )
)


def reach(starts, successors) -> set[int]:
    """The node indices reachable from ``starts`` (themselves included)."""
    seen: set[int] = set()
    stack = list(starts)
    while stack:
        index = stack.pop()
        if index not in seen:
            seen.add(index)
            stack.extend(successors[index])
    return seen


@settings(max_examples=150, deadline=None)
@given(graphs)
def test_a_sweep_frees_exactly_what_nothing_outside_reaches(graph):
    size, edges, held_indices, root_indices = graph
    successors = {i: [t for s, t in edges if s == i] for i in range(size)}
    cyclic = {i for i in range(size) if i in reach(successors[i], successors)}
    survives_refcounting = reach(held_indices | cyclic, successors)
    walked = reach(root_indices & survives_refcounting, successors)
    # Garbage the walk did not see refers to what it reaches as any outside holder does: kept, as CPython would keep it.
    kept = reach(held_indices | (survives_refcounting - walked), successors)
    with collector_off():
        nodes = [Node(i) for i in range(size)]
        for source, target in edges:
            nodes[source].edges.append(nodes[target])
        held = [nodes[i] for i in sorted(held_indices)]  # what the rest of the process still refers to
        roots = [weakref.ref(nodes[i]) for i in sorted(root_indices)]
        alive = [weakref.ref(node) for node in nodes]
        del nodes

        result = session_sweep.sweep(roots)

        assert not result.given_up and result.unreachable >= len(walked - kept)  # a node and its list of edges
        for index, ref in enumerate(alive):
            if index in kept:
                assert ref() is not None and [edge.index for edge in ref().edges] == successors[index]
            else:
                assert ref() is None
        del held


def test_no_other_thread_runs_during_a_sweep_and_the_switch_interval_comes_back():
    seen = []
    real_unreachable = session_sweep.unreachable

    def looking(objects):
        seen.append(sys.getswitchinterval())
        return real_unreachable(objects)

    before = sys.getswitchinterval()
    node = Node(0)
    with mock.patch.object(session_sweep, "unreachable", looking):
        session_sweep.sweep([weakref.ref(node)])
    assert seen == [session_sweep._NO_SWITCH_S] and sys.getswitchinterval() == before


def test_what_start_up_shared_is_never_walked_into(monkeypatch):
    shared = Node(0)
    shared.edges.append(Node(1))
    monkeypatch.setattr(session_sweep.Shared, "ids", frozenset({id(shared)}))
    session = Node(2)
    session.edges += [session, shared]
    found = session_sweep.walk([session])
    assert [getattr(obj, "index", None) for obj in found if isinstance(obj, Node)] == [2]


def test_a_walk_too_large_is_given_up_and_changes_nothing():
    with collector_off():
        nodes = [Node(i) for i in range(50)]
        for node, after in zip(nodes, nodes[1:] + nodes[:1], strict=True):
            node.edges.append(after)
        first = weakref.ref(nodes[0])
        del nodes, node, after
        assert session_sweep.walk([first()], limit=20) is None
        monkeypatch_limit = session_sweep.MAX_WALK
        try:
            session_sweep.MAX_WALK = 20
            result = session_sweep.sweep([first])
        finally:
            session_sweep.MAX_WALK = monkeypatch_limit
        assert result.given_up and first() is not None and len(first().edges) == 1
    gc.collect()


def test_containers_are_emptied_with_the_base_types_own_methods():
    class Noisy(dict):
        def clear(self):
            raise AssertionError("a subclass's clear (Bokeh's notify their owners) must not run")

    class Listy(list):
        def clear(self):
            raise AssertionError("a subclass's clear must not run")

    with collector_off():
        holder = Node(0)
        holder.edges += [Noisy(owner=holder), Listy([holder])]
        gone = [weakref.ref(holder), *(weakref.ref(edge) for edge in holder.edges)]
        del holder
        session_sweep.break_cycles(session_sweep.unreachable(session_sweep.walk([gone[0]()])))
        assert [ref() for ref in gone] == [None, None, None]


def test_a_discarded_lesson_page_is_freed_and_another_open_one_is_untouched():
    """A real lesson page, built as a server builds it, discarded as Panel discards it."""
    page_document("/lesson?id=overlap")  # as the server's warm-up does: what a first build caches is shared
    gc.collect()
    session_sweep.mark_shared()
    try:
        kept = page_document("/lesson?id=overlap")
        kept_shape = document_shape(kept)
        discarded = page_document("/lesson?id=overlap")
        roots = session_sweep.session_roots(discarded)
        gc.freeze()  # as app.upstream.collector does once a session has loaded: only a sweep or a thaw reaches them now
        _cleanup_doc(discarded)
        del discarded

        result = session_sweep.sweep(roots)

        gc.unfreeze()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            left = len(gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
        assert result.unreachable > 1000 and not result.given_up and result.survivors == 0
        assert left < result.unreachable / 10  # what a thaw would still find: a small part (3 of 3,503)
        assert all(ref() is None for ref in roots[:1])  # the document itself is gone
        assert document_shape(kept) == kept_shape  # the page still open: the same models, the same values
    finally:
        gc.unfreeze()
        session_sweep.forget_shared()


class Slotted:
    """An object with slots and no ``__dict__`` (param's Parameters are such objects)."""

    __slots__ = ("other", "__private", "__weakref__")


def test_a_cycle_through_slots_is_broken_and_nothing_survives():
    with collector_off():
        first, second = Slotted(), Slotted()
        first.other, second.other = second, first
        second._Slotted__private = first
        refs = [weakref.ref(first), weakref.ref(second)]
        del first, second
        result = session_sweep.sweep(refs)
        assert result.unreachable == 2 and result.survivors == 0
        assert [ref() for ref in refs] == [None, None]


def test_a_walk_stops_at_a_page_still_open_and_finds_the_same_garbage():
    """Sessions opened at the same moment share a freeze: a discarded one's roots hold the others' objects."""
    page_document("/lesson?id=overlap")
    gc.collect()
    session_sweep.mark_shared()
    try:
        kept = page_document("/lesson?id=overlap")  # its objects are among the roots below, unfrozen
        discarded = page_document("/lesson?id=overlap")
        roots = session_sweep.session_roots(discarded)
        gc.freeze()
        _cleanup_doc(discarded)
        del discarded
        objects = session_sweep.walk(ref() for ref in roots)
        walked = set(map(id, objects))
        assert id(kept) not in walked and not walked & set(map(id, kept.models))
        found = len(session_sweep.unreachable(objects))  # held by nothing else while counted
        del objects
        with mock.patch.object(session_sweep, "hub_types", lambda: ()):  # the walk as it was: into the open page
            everything = session_sweep.walk(ref() for ref in roots)
        assert len(everything) > len(walked) and id(kept) in set(map(id, everything))
        assert len(session_sweep.unreachable(everything)) == found > 1000
    finally:
        gc.unfreeze()
        session_sweep.forget_shared()


def test_an_open_pages_document_models_and_panes_are_open_and_a_destroyed_pages_are_not():
    doc = page_document("/queue")
    panes = [pane for pane, _root, shown_in, _comm in state._views.values() if shown_in is doc]
    models = list(doc.models)
    assert panes and models
    assert session_sweep.still_open(doc)
    assert all(session_sweep.still_open(model) for model in models)
    assert all(session_sweep.still_open(pane) for pane in panes)
    _cleanup_doc(doc)
    assert not session_sweep.still_open(doc)
    assert not any(session_sweep.still_open(model) for model in models)
    assert not any(session_sweep.still_open(pane) for pane in panes)


def test_what_a_walk_does_with_each_object_of_a_page_is_what_isinstance_says():
    """The walk decides per type (``_kinds``); on a real page's objects that is the per-object test it replaced."""
    gc.collect()
    gc.freeze()
    try:
        doc = page_document("/lesson?id=overlap&exercise=growth")
        objects = [obj for obj in gc.get_objects() if type(obj) is not weakref.ProxyType]
        hubs = session_sweep.hub_types()
        expected = [
            session_sweep._STOP
            if isinstance(obj, session_sweep._STOP_TYPES)
            else session_sweep._HUB
            if isinstance(obj, hubs)
            else session_sweep._PLAIN
            for obj in objects
        ]
        assert session_sweep._kinds(objects, hubs) == expected
        assert {session_sweep._HUB, session_sweep._PLAIN} <= set(expected)  # the page's models and its dicts
        assert doc.models
    finally:
        gc.unfreeze()
