"""What Python's garbage collector walks on a server holding a class, and when it walks everything.

A full collection walks every tracked object and holds the event loop while it does: with a
lecture hall of sessions open (about 7,000 objects each) that is about half a second at 150
sessions on the 2-core machine, every time it happens, and two things make it happen often: Panel
runs a full ``gc.collect()`` a few seconds after any session is discarded, and CPython runs one
whenever the objects that survived since the last full one reach a quarter of the rest (about every
40 new sessions at that size).

The objects of an open session are not garbage, so there is no need to walk them again and again.
Once a session has been built (both its pieces), :func:`freeze_session` collects the young
generations (the build's own short-lived cycles) and then freezes everything (``gc.freeze``): full
collections from then on walk only what was made since. A discarded session's objects are freed at
once where nothing else refers to them; what they hold in cycles waits, frozen, for a thaw:
:func:`collect_discarded` (in place of Panel's own collection) unfreezes and walks everything only
once as many sessions have been discarded since the last thaw as are still open, and always when
none is open (the end of a lecture). The pause is then as rare as the garbage is large, the memory
held back at most about the open sessions' own.
"""

from __future__ import annotations

import datetime as dt
import gc
import time

from panel.io import document as panel_cleanup
from panel.io.state import state

_PANEL_COLLECT = panel_cleanup._garbage_collect

POLICY_ENV = "OVERLAP_GC"
"""Set to ``panel`` to serve without this module (Panel's and CPython's own collections), to compare."""


class Collector:
    """Counts behind the policy, shown in ``/healthz`` (``gc`` key)."""

    installed = False
    open_sessions = 0
    discarded_since_thaw = 0
    freezes = 0
    thaws = 0

    @classmethod
    def report(cls) -> dict[str, int]:
        """The counts, and how many objects are frozen now."""
        return {
            "open_sessions": cls.open_sessions,
            "discarded_since_thaw": cls.discarded_since_thaw,
            "freezes": cls.freezes,
            "thaws": cls.thaws,
            "frozen_objects": gc.get_freeze_count(),
            "installed": int(cls.installed),
        }


def track_session(doc) -> None:
    """Once the session's page has loaded (both its pieces built): count it, freeze it, watch for its discard.

    A session no browser loads (the cached pages the HTML comes from) is never counted; without
    :func:`install` (``OVERLAP_GC=panel``) nothing is.

    Parameters
    ----------
    doc : Document
        The session's document (the current one, in a page builder).
    """
    if not Collector.installed:
        return

    def loaded() -> None:
        Collector.open_sessions += 1
        doc.on_session_destroyed(_discarded)
        freeze_session()

    state.onload(loaded)  # after the page's own onload callbacks: the lab is built by then


def _discarded(_session_context: object) -> None:
    Collector.open_sessions = max(0, Collector.open_sessions - 1)
    Collector.discarded_since_thaw += 1


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
    """In place of Panel's full collection after a discard: a young one, or a thaw when it is due.

    Like Panel's, it waits until no session has been discarded for a few seconds (a tab closed in
    a crowd is followed by others).
    """
    quiet_for = time.monotonic() - panel_cleanup._panel_last_cleanup
    if quiet_for < panel_cleanup.GC_DEBOUNCE:
        at = dt.datetime.now() + dt.timedelta(seconds=panel_cleanup.GC_DEBOUNCE - quiet_for)
        state.schedule_task("gc.collect", collect_discarded, at=at)
        return
    if Collector.discarded_since_thaw >= max(1, Collector.open_sessions):
        thaw()
    else:
        gc.collect(1)


def install() -> None:
    """Use :func:`collect_discarded` where Panel would collect in full after a discard."""
    panel_cleanup._garbage_collect = collect_discarded
    Collector.installed = True
