"""A fix for Panel 1.9's queued websocket writes: a queued update could wait until the next one.

When a change cannot be written at once (Bokeh is writing another message), Panel queues it in
``_WRITE_MSGS`` (module ``panel.io.document``), marks the page in ``_WRITE_BLOCK`` and starts a task,
``_dispatch_msgs``, to write the queue. A task that has just written the queue ends by clearing the
mark, even when another change was queued while it awaited its writes; the task started for that
change then finds no mark and returns, so the change stays queued until some later change of the
same page sends it along. On a page where nothing else changes, it never arrives: on a slow machine
a trace page kept showing "Reading 1 file…" after the server had shown the figures, an exercise step
stayed unticked after Reset, and a later Bokeh message referring to a model in the stuck update
raised "reference … isn't known" in the browser.

:func:`install` wraps ``_dispatch_msgs`` so that a task which leaves changes queued with no mark puts
the mark back and starts one more task for them. Panel looks the function up by name at each call,
so the wrapper is used for every write from then on.
"""

from __future__ import annotations

from panel.io import document as panel_dispatch

_ORIGINAL = None
"""Panel's ``_dispatch_msgs``, kept by :func:`install` (read then, never at import)."""

_NEEDED = ("_dispatch_msgs", "_WRITE_MSGS", "_WRITE_BLOCK", "_dispatch_write_task")
"""The private names of ``panel.io.document`` this fix reads."""


async def dispatch_queued_writes(doc) -> None:
    """Panel's ``_dispatch_msgs``, then a new task for whatever it left queued without a task.

    Parameters
    ----------
    doc : Document
        The document whose queued messages are written.
    """
    await _ORIGINAL(doc)
    if panel_dispatch._WRITE_MSGS.get(doc) and doc not in panel_dispatch._WRITE_BLOCK:
        panel_dispatch._WRITE_BLOCK[doc] = True
        panel_dispatch._dispatch_write_task(doc, dispatch_queued_writes, doc)


def applies() -> str:
    """Why the fix cannot be installed here (a private name it reads is gone), or ``""``."""
    missing = [name for name in _NEEDED if not hasattr(panel_dispatch, name)]
    return f"panel.io.document has no {', '.join(missing)}" if missing else ""


def install() -> None:
    """Use :func:`dispatch_queued_writes` for Panel's queued writes (idempotent)."""
    global _ORIGINAL
    if _ORIGINAL is None:
        _ORIGINAL = panel_dispatch._dispatch_msgs
    panel_dispatch._dispatch_msgs = dispatch_queued_writes
