"""A fix for Panel 1.9: a click coming while another widget's change waits runs that change without the lock.

Panel holds back a widget's change from the browser for a moment (its debounce, 50 ms) before it
runs the Python watchers. A Bokeh event (a button's click) that arrives meanwhile first runs the
changes still held back, then the event, in one coroutine, ``Syncable._event_coroutine``, which
Panel schedules through ``state.execute``. For a coroutine that goes through Panel's
``async_execute``, which marks it ``nolock`` unless the function says ``lock``: the change's
watchers then run without the session's document lock, and the first Bokeh model they change
raises in Bokeh ("_pending_writes should be non-None when we have a document lock"), losing the
change and leaving a traceback in the server's log. On the trace page a student who typed the
world size, pressed Enter and at once clicked "Open in the bucket timeline lab" met it
(``tests/browser/test_trace_browser.py::test_a_run_whose_files_do_not_say_its_world_size_is_given_one_on_the_page``
failed so, once in three full runs, 5 December 2026).

:func:`install` marks ``_event_coroutine`` and ``_change_coroutine`` with ``lock = True``, the
attribute ``async_execute`` reads: Bokeh then runs them as it runs every other change from the
browser, holding the document lock. Neither awaits anything that needs the lock (the held-back
changes are plain calls inside them); a user's own async callback is still scheduled apart by param,
as before.
"""

from __future__ import annotations

from panel.reactive import Syncable

_MARKED = ("_event_coroutine", "_change_coroutine")
"""The coroutines of Panel's ``Syncable`` this fix marks."""


def applies() -> str:
    """Why the fix cannot be installed here (a coroutine it marks is gone), or ``""``."""
    missing = [name for name in _MARKED if not callable(Syncable.__dict__.get(name))]
    return f"panel.reactive.Syncable has no {', '.join(missing)}" if missing else ""


def install() -> None:
    """Have Panel run its event and change coroutines under the document lock (idempotent)."""
    for name in _MARKED:
        Syncable.__dict__[name].lock = True
