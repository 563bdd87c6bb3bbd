"""app.upstream.collector: open sessions are frozen out of full collections; discarded ones are collected when due."""

from __future__ import annotations

import gc
import time
import weakref

import pytest
from bokeh.document import Document
from panel.io import document
from panel.io.state import state

from app.site.server import routes
from app.upstream import collector, session_sweep
from app.upstream.collector import Collector
from tests.page_documents import page_document


class Node:
    """An object in a reference cycle: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture(autouse=True)
def clean_counts(monkeypatch):
    for name in Collector.COUNTS:
        monkeypatch.setattr(Collector, name, 0)
    monkeypatch.setattr(Collector, "longest_sweep_ms", 0.0)
    monkeypatch.setattr(Collector, "pending", [])
    monkeypatch.setattr(document, "_panel_last_cleanup", 0.0)  # no discard "just now": no debounce
    yield
    gc.unfreeze()


def test_a_frozen_session_is_not_walked_and_its_cycles_wait_for_the_process_to_empty():
    session = Node()
    alive = weakref.ref(session)
    collector.freeze_session()
    assert gc.get_freeze_count() > 0 and Collector.freezes == 1
    Collector.open_sessions = 3
    del session  # the session is discarded: its cycle is frozen garbage now
    collector._discarded(None, None)
    gc.collect()
    assert alive() is not None  # a full collection does not walk frozen objects
    collector.collect_discarded()  # 1 discarded, 2 open: a thaw would hold them up
    assert alive() is not None and Collector.thaws == 0
    collector._discarded(None, None)
    collector.collect_discarded()  # 2 discarded, 1 open: still none
    assert alive() is not None and Collector.thaws == 0
    collector._discarded(None, None)
    collector.collect_discarded()  # the last one gone: the thaw runs
    assert alive() is None and Collector.thaws == 1 and Collector.discarded_since_thaw == 0
    assert gc.get_freeze_count() > 0  # what is still alive is frozen again


def test_the_last_session_discarded_thaws_at_once():
    Collector.open_sessions = 1
    collector._discarded(None, None)
    collector.collect_discarded()
    assert Collector.thaws == 1 and Collector.open_sessions == 0


def test_a_discard_just_now_waits_like_panels_collection(monkeypatch):
    scheduled = []
    monkeypatch.setattr(collector.state, "schedule_task", lambda name, callback, at: scheduled.append((name, at)))
    monkeypatch.setattr(document, "_panel_last_cleanup", collector.time.monotonic())
    collector._discarded(None, None)
    collector.collect_discarded()
    assert Collector.thaws == 0 and scheduled and scheduled[0][0] == "gc.collect"


def test_install_replaces_panels_full_collection(monkeypatch):
    monkeypatch.setattr(document, "_garbage_collect", collector._PANEL_COLLECT)
    collector.install()
    assert document._garbage_collect is collector.collect_discarded


def test_the_report_counts():
    report = Collector.report()
    assert set(report) == {*Collector.COUNTS, "longest_sweep_ms", "installed"}
    assert {"thaws", "swept", "sweeps_given_up", "objects_swept", "survivors"} <= set(report)  # what the benches read
    assert Collector.report(count_frozen=True)["frozen_objects"] == gc.get_freeze_count()


def no_loop_callbacks(monkeypatch) -> None:
    """Each sweep's next step is called by the test, not the event loop; returns the delays it was asked for."""
    delays: list[float] = []

    class Loop:
        def call_later(self, delay, callback):
            delays.append(delay)

    monkeypatch.setattr(collector.IOLoop, "current", lambda: Loop())
    return delays


def test_a_swept_discard_is_freed_at_once_and_no_number_of_discards_thaws_while_one_is_open(monkeypatch):
    no_loop_callbacks(monkeypatch)
    Collector.open_sessions = 3
    session = Node()
    alive = weakref.ref(session)
    collector.freeze_session()
    roots = [weakref.ref(session)]
    del session
    collector._discarded(roots, None)  # Bokeh's destroy callback, with this session's roots
    assert Collector.pending == [roots] and Collector.open_sessions == 2
    collector.collect_discarded()  # sweeps it: its cycle is freed, no thaw
    assert alive() is None and Collector.swept == 1 and Collector.thaws == 0
    Collector.open_sessions = 5500
    for _ in range(5000):
        collector._discarded([], None)  # without roots: a whole session's garbage each
    collector.sweep_next()
    assert Collector.unswept == 5000 and Collector.open_sessions == 500
    assert Collector.thaws == 0  # it would walk all 500 at once
    Collector.open_sessions = 0
    collector.sweep_next()
    assert Collector.thaws == 1 and Collector.discarded_since_thaw == 0


def test_a_sweep_given_up_is_counted_and_waits_for_the_process_to_empty(monkeypatch):
    no_loop_callbacks(monkeypatch)
    monkeypatch.setattr(collector.session_sweep, "MAX_WALK", 0)
    Collector.open_sessions = 5
    session = Node()
    collector._discarded([weakref.ref(session)], None)
    collector.sweep_next()  # given up
    collector.sweep_next()  # nothing pending: 4 open, no thaw
    assert Collector.sweeps_given_up == 1 and Collector.thaws == 0


def test_the_next_sweep_waits_at_least_as_long_as_the_last_one_took(monkeypatch):
    """Sweeps back to back took a turn of the event loop each, and a click waited behind several."""
    delays = no_loop_callbacks(monkeypatch)
    took = []
    real_sweep = collector.session_sweep.sweep

    def timed_sweep(roots):
        started = time.perf_counter()
        result = real_sweep(roots)
        while time.perf_counter() - started < 0.02:  # a sweep as long as a lesson session's
            pass
        took.append(time.perf_counter() - started)
        return result

    monkeypatch.setattr(collector.session_sweep, "sweep", timed_sweep)
    Collector.open_sessions = 3
    for _ in range(2):
        collector._discarded([weakref.ref(Node())], None)
    collector.sweep_next()
    collector.sweep_next()
    assert len(delays) == 2 and Collector.pending == []
    assert all(delay >= collector.SWEEP_REST * spent for delay, spent in zip(delays, took, strict=True))
    assert min(delays) >= 0.02


def test_start_up_settling_freezes_nothing_without_the_collector(monkeypatch):
    """OVERLAP_GC=panel (or a Panel without the hook): Panel's and CPython's collections see everything."""
    monkeypatch.setattr(Collector, "installed", False)
    gc.unfreeze()
    collector.settle()
    assert gc.get_freeze_count() == 0


def test_start_up_settling_marks_what_an_early_session_froze_as_shared(monkeypatch):
    """A student whose page loaded before the warm-up ended froze everything: it is still start-up's."""
    monkeypatch.setattr(Collector, "installed", True)
    early = Node()
    gc.freeze()  # as a session loaded during the warm-up does
    try:
        collector.settle()
        assert id(early) in collector.session_sweep.Shared.ids
    finally:
        collector.session_sweep.forget_shared()


def build_as_served(doc: Document, path: str) -> None:
    """Build ``path`` into ``doc`` as ``app.site.sessions.counted`` does for a served session: between freezes."""
    state.curdoc = doc
    state._loaded[doc] = False  # as for a served page until its browser reports it loaded
    try:
        collector.before_build(doc)
        template = routes()[path].__wrapped__()  # the page builder itself, without counted()'s check for a session
        template.on_rendered(collector.track_session)
        template.server_doc(doc)  # Panel builds the models after the builder returns, as _eval_panel does
    finally:
        state.curdoc = None


def test_a_sessions_roots_are_its_own_pieces_and_what_came_between_never_another_page(monkeypatch):
    """Pages are built in pieces with other students' pieces in between: no other page is among a session's roots.

    When a piece took roots only at its end, a page built between another session's first piece and
    its load was among that session's roots, and every sweep walked it (issue 47: 120 ms with 500
    open); taking nothing between pieces left 2,966 objects a session to the thaw.
    """
    monkeypatch.setattr(Collector, "installed", True)
    page_document("/queue")  # as the warm-up: what a first build caches is shared
    gc.collect()
    session_sweep.mark_shared()
    try:
        doc = Document()
        made: list[object] = []
        state.curdoc = doc
        state._loaded[doc] = False
        try:
            collector.before_build(doc)
            made.append(Node())  # the session's first piece
            state.onload(lambda: made.append(Node()))  # the page's own onload piece (the lab, app.web.shell.deferred)
            collector.track_session(doc)
        finally:
            state.curdoc = None
        before = set(map(id, gc.get_objects()))
        other = Document()
        build_as_served(other, "/queue")  # another student's page, while this one loads
        still_unfrozen = set(map(id, gc.get_objects())) - before
        taken = {id(ref()) for ref in collector._TAKEN[other] if ref() is not None}  # frozen with its own pieces
        theirs = still_unfrozen | taken | set(map(id, other.models))
        between = Node()  # made between this session's pieces, in a cycle in no page (a callback's closure) ...
        between.held = made[0]  # ... that points into this one
        state._on_load(doc)  # the browser reports this page loaded: its onload pieces, then its roots
        (destroyed,) = doc.session_destroyed_callbacks
        roots = {id(ref()) for ref in destroyed.args[0] if ref() is not None}
        assert {id(node) for node in made} <= roots  # both pieces of this session
        assert id(between) in roots
        assert len(other.models) > 5 and len(taken) > 100  # the other page was built, and taken into its own roots
        assert not roots & theirs
    finally:
        session_sweep.forget_shared()
