"""What Python's garbage collector walks on a server holding a class, and when it walks everything.

A full collection walks every tracked object and holds the event loop while it does: with a
lecture hall of sessions open (about 7,000 objects each) that is about half a second at 150
sessions on the 2-core machine, every time it happens, and two things make it happen often: Panel
runs a full ``gc.collect()`` a few seconds after any session is discarded, and CPython runs one
whenever the objects that survived since the last full one reach a quarter of the rest (about every
40 new sessions at that size).

The objects of an open session are not garbage, so there is no need to walk them again and again.
After each piece of a session's page is built, :func:`freeze_session` collects the young
generations (the build's own short-lived cycles) and then freezes everything (``gc.freeze``): full
collections from then on walk only what was made since. A discarded session's objects are freed at
once where nothing else refers to them; what they hold in cycles is frozen garbage.

:mod:`app.upstream.session_sweep` frees most of that without a full collection: it finds the cycles from the
session's own objects (weak references taken as its page was built and loaded) and breaks them,
walking that session and not the open ones. :func:`collect_discarded` (in place of Panel's own
collection) sweeps the discarded sessions one at a time, resting between two as long as the first
took (:data:`SWEEP_REST`), so that clicks are answered in between. What a sweep misses (a few
objects of a lesson session, measured: a timer's callback frozen while it was pending; a whole
session when a walk is given up) waits for a thaw, which unfreezes and walks everything. A thaw
walks every open session at once (3 s with 500 open on the 2-core machine), so it runs only when
none is open: at the end of a lecture, or in any quiet moment of a hosted course. While a class is
open the process holds back what sweeps missed, counted in ``/healthz`` (``swept``,
``sweeps_given_up``, ``unswept``).
"""

from __future__ import annotations

import datetime as dt
import gc
import os
import time
import weakref
from functools import partial

from panel.io import document as panel_cleanup
from panel.io.state import state
from tornado.ioloop import IOLoop

from app.upstream import session_sweep

_PANEL_COLLECT = None
"""Panel's own collection after a discard, kept by :func:`install` (read then, never at import)."""

POLICY_ENV = "OVERLAP_GC"
"""Set to ``panel`` to serve without this module (Panel's and CPython's own collections), to compare."""


class Collector:
    """Counts behind the policy, shown in ``/healthz`` (``gc`` key)."""

    installed = False
    open_sessions = 0
    discarded_since_thaw = 0
    freezes = 0
    thaws = 0
    swept = 0
    sweeps_given_up = 0
    unswept = 0  # discarded sessions that left no roots to sweep from (held back for the thaw)
    objects_swept = 0
    objects_walked = 0
    survivors = 0
    longest_sweep_ms = 0.0
    pending: list[list[weakref.ref]] = []  # discarded sessions' roots, not yet swept

    COUNTS = (
        "open_sessions",
        "discarded_since_thaw",
        "freezes",
        "thaws",
        "swept",
        "sweeps_given_up",
        "unswept",
        "objects_swept",
        "objects_walked",
        "survivors",
    )
    """The whole-number counts, in the order ``/healthz`` shows them."""

    @classmethod
    def report(cls, count_frozen: bool = False) -> dict[str, int]:
        """The counts, and how many objects are frozen now if asked.

        Parameters
        ----------
        count_frozen : bool
            Add ``frozen_objects``. CPython counts them by walking its list of frozen objects, a
            pause of tens of milliseconds with a class open, so only a bench asks
            (``/healthz?frozen=1``), never a load balancer's or Kubernetes' probe.
        """
        report = {name: getattr(cls, name) for name in cls.COUNTS}
        report["longest_sweep_ms"] = round(cls.longest_sweep_ms, 1)
        report["installed"] = int(cls.installed)
        if count_frozen:
            report["frozen_objects"] = gc.get_freeze_count()
        return report


_TAKEN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""Each session's roots taken so far (:func:`before_build`, :func:`track_session`), by its document."""


def _take(doc) -> None:
    """Add what was made since the last freeze to ``doc``'s roots, then freeze it."""
    _TAKEN.setdefault(doc, []).extend(session_sweep.session_roots(doc))
    freeze_session()


def before_build(doc) -> None:
    """Before a session's first piece, and before its page's own onload pieces: take what came before, freeze.

    A session's roots are what was made since the last freeze. Pages are built in pieces with other
    students' pieces and clicks in between. When each piece took its roots only at its end, they
    held every piece of other pages built since the last freeze too (their lesson state, their
    Bokeh property containers, their watchers: everything but what
    :func:`app.upstream.open_sessions.still_open` stops at), and a sweep walked those: about 6,000
    objects per page built in between, 120 ms with 500 open (issue 47). Now every piece starts and
    ends with a freeze, so no other page's piece is ever among a session's roots.

    What was made between pieces (this session's websocket and Bokeh session before its first
    piece, the page's first messages before its onload pieces; other students' clicks) is taken
    too, not only frozen: some of it is in cycles that point into the session (a callback's closure
    holding an exercise's runner) without the session pointing back, and frozen outside a sweep's
    walk it would make the whole page look alive (measured: 2,966 objects a session left for the
    thaw, against 8 when taken: 20 sessions discarded among 10 open, `gc.DEBUG_SAVEALL`).

    Panel runs a page's onload callbacks in the order they were registered, in one task, so the one
    registered here runs just before the lab is built (``app.web.shell.deferred``).

    Parameters
    ----------
    doc : Document
        The session's document, in its page builder, before the page is built.
    """
    if not (Collector.installed and session_sweep.Shared.ids):
        return
    _take(doc)
    state.onload(partial(_take, doc))


def track_session(doc) -> None:
    """Once a session's first document is built, and once its page has loaded: take its roots, watch for its discard.

    Call :func:`before_build` before the first piece, and this once Panel has built the page's
    models into the document (``app.web.shell.CourseTemplate.on_rendered``), in the same task.

    A session no browser loads (the cached pages the HTML comes from) is never counted; without
    :func:`install` (``OVERLAP_GC=panel``) nothing is.

    Parameters
    ----------
    doc : Document
        The session's document (the current one, in a page builder), right after its first piece.
    """
    if not Collector.installed:
        return
    capturing = bool(session_sweep.Shared.ids)  # not for the warm-up's cached pages: no browser loads them

    def loaded() -> None:
        Collector.open_sessions += 1
        if capturing:
            _take(doc)
            roots = _TAKEN.pop(doc, []) + session_sweep.served_roots(doc)
        else:
            roots = None
        doc.on_session_destroyed(partial(_discarded, roots))

    state.onload(loaded)  # after the page's own onload callbacks: the lab is built by then
    if capturing:
        _take(doc)  # the piece, this callback included: the next session's roots do not hold them


def _discarded(roots: list[weakref.ref] | None, _session_context: object) -> None:
    Collector.open_sessions = max(0, Collector.open_sessions - 1)
    Collector.discarded_since_thaw += 1
    if roots:
        Collector.pending.append(roots)
    else:
        # No roots: its first piece was built before start-up settled (track_session took none)
        Collector.unswept += 1


def freeze_session() -> None:
    """Collect the young generations, then keep every object alive now out of later collections."""
    gc.collect(1)
    gc.freeze()
    Collector.freezes += 1


def thaw() -> None:
    """Walk everything once: unfreeze, collect in full, and freeze what is still alive again."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    Collector.discarded_since_thaw = 0
    Collector.thaws += 1


def collect_discarded() -> None:
    """In place of Panel's full collection after a discard: sweep the discarded sessions, then thaw if due.

    Like Panel's, it waits until no session has been discarded for a few seconds (a tab closed in
    a crowd is followed by others). Each sweep is its own event-loop callback, so that clicks are
    answered between them.
    """
    quiet_for = time.monotonic() - panel_cleanup._panel_last_cleanup
    if quiet_for < panel_cleanup.GC_DEBOUNCE:
        at = dt.datetime.now() + dt.timedelta(seconds=panel_cleanup.GC_DEBOUNCE - quiet_for)
        state.schedule_task("gc.collect", collect_discarded, at=at)
        return
    sweep_next()


SWEEP_REST = 1.0
"""After a sweep, the event loop runs without one for this many times as long as the sweep took.

Sweeps queued one right after another (the next as the loop's next callback) left one in every
turn of the event loop, and a click needs several turns (its frame read, Bokeh's handling under the
document's lock, Panel's update, the reply written): with a class arriving and leaving, a click
waited behind four or five sweeps. That was most of the click tail of 1,000 students through the
cluster: p95 455 ms with sweeps queued so, 108 ms with no session discarded during the run
(``bench/class_load.py --scenario thousand``, 5 December 2026). Resting as long as it swept, a
sweep takes at most half the loop's time, and a click's turns run in between."""

SWEEP_REST_MIN_S = 0.005
"""The shortest rest between two sweeps, in seconds (a sweep of a tiny session takes well under 1 ms)."""


def sweep_next() -> None:
    """Sweep one discarded session and come back for the next after a rest; once none is left, thaw if none is open."""
    if Collector.pending:
        started = time.perf_counter()
        result = session_sweep.sweep(Collector.pending.pop(0))
        took = time.perf_counter() - started
        Collector.longest_sweep_ms = max(Collector.longest_sweep_ms, 1000 * took)
        if result.given_up:
            Collector.sweeps_given_up += 1
        else:
            Collector.swept += 1
            Collector.objects_swept += result.unreachable
            Collector.objects_walked += result.walked
            Collector.survivors += result.survivors
        IOLoop.current().call_later(max(SWEEP_REST * took, SWEEP_REST_MIN_S), sweep_next)
        return
    if Collector.discarded_since_thaw and thaw_due():
        thaw()
    else:
        gc.collect(1)


def thaw_due() -> bool:
    """Whether a thaw may run now: only when no session is open, so that it holds up no student.

    A thaw walks every frozen object, each open session's 8,300 with the rest: about 3 s with 500
    open on the 2-core machine (issue 47), 150 ms with none. What the sweeps miss while a class is
    open is small enough to wait for the process to empty. Measured 5 December 2026 (10 lesson
    sessions open, 40 opened and discarded in batches of 10, then a full collection with
    ``gc.DEBUG_SAVEALL``): 160 garbage objects left in all, 4 a session (10 timer callbacks'
    closures, frozen while they were pending; about 10 a session in a run with 20), none given up;
    before the walk stopped at open sessions (:func:`app.upstream.open_sessions.still_open`),
    13,546, 3 of the 40 given up. A thousand students leaving a process that never empties hold
    back a few thousand objects until it does; a sweep given up (``sweeps_given_up``) holds back
    its whole session, about 8,000.
    """
    return Collector.open_sessions == 0


def applies() -> str:
    """Why the collector is not installed here (``OVERLAP_GC=panel``, or a Panel without the hook), or ``""``."""
    if os.environ.get(POLICY_ENV, "frozen") == "panel":
        return f"{POLICY_ENV}=panel"
    if not callable(getattr(panel_cleanup, "_garbage_collect", None)):
        return "panel.io.document has no _garbage_collect to replace"
    return ""


def install() -> None:
    """Use :func:`collect_discarded` where Panel would collect in full after a discard."""
    global _PANEL_COLLECT
    if _PANEL_COLLECT is None:
        _PANEL_COLLECT = panel_cleanup._garbage_collect
    panel_cleanup._garbage_collect = collect_discarded
    Collector.installed = True


def mark_shared() -> None:
    """What start-up left alive is shared by every session: a sweep stops there (only when installed)."""
    if Collector.installed:
        session_sweep.mark_shared()


def settle() -> None:
    """Keep what start-up built out of every later full collection (``gc.freeze``), where installed.

    A full collection walks every tracked object and holds the event loop meanwhile. The modules,
    Panel's and Bokeh's own objects and the cached pages never become garbage, so after start-up
    (``app.site.sessions.warm_up``) they are moved out of the collector's sight: each full collection
    then walks only the students' sessions. Without :func:`install` (``OVERLAP_GC=panel``, or a Panel
    without the hook) nothing is frozen, so that Panel's and CPython's own collections are measured
    as they are.
    """
    if not Collector.installed:
        return
    gc.unfreeze()  # a session loaded before the warm-up ended froze start-up's objects too: mark them all
    gc.collect()
    mark_shared()  # app.upstream.session_sweep stops at these objects
    gc.freeze()
