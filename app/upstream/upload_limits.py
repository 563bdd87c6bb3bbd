"""A fix for Panel 1.9's FileDropper: the limits it is given are kept on the server too, not only in the browser.

Panel's ``FileDropper._process_event`` appends every chunk the browser sends to
``_file_buffer[name]`` until a chunk's number equals the ``total_chunks`` the same browser states,
and only then joins them into ``value``. ``max_file_size``, ``max_total_file_size`` and
``max_files`` are handed to FilePond, in the browser; the server checks none of them. A script in
the page can so send 10 MB chunks of a file that claims a billion of them: 30 such chunks took a
server from 149 to 449 MB (security review v6, H4), held until the session went.

:func:`install` wraps ``FileDropper._process_event``. Before a chunk is kept it checks, against the
widget's own parameters (each only where it is set, as FilePond reads them):

- the chunk's fields are what Panel's browser code sends (a name, whole numbers, bytes);
- chunks come in order, 1 to ``total_chunks``, and ``total_chunks`` stays what the first said;
- ``total_chunks`` is no more than a file of ``max_file_size`` needs at ``chunk_size`` bytes a chunk,
  and no chunk is longer than ``chunk_size``;
- the file's bytes stay within ``max_file_size``, and the bytes the widget holds (files still
  arriving and files in ``value``) within ``max_total_file_size``;
- a new file finds fewer than ``max_files`` files held.

A chunk that fails is refused: the file's chunks so far are dropped, the rest of that file's
chunks are ignored, one line is logged, and whoever asked with :func:`on_refused` is told why.
Files still arriving are dropped at once when the session ends (a hook on the session's document,
set at a widget's first chunk) and when the widget's last model goes (``FileDropper._cleanup``,
wrapped), not whenever the collector gets to the widget.
"""

from __future__ import annotations

import logging
import math
import re
import weakref
from collections.abc import Callable

from panel.io.state import state as panel_state
from panel.widgets import FileDropper

LOG = logging.getLogger("app.upstream.upload_limits")

REFUSED = "the upload was refused"
"""The words every refusal begins with (after the file's name)."""
_UNITS = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9}
"""FilePond's units (``fileSizeBase`` 1000), as ``max_file_size="200MB"`` is read in the browser."""
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMG]?B?)\s*$", re.IGNORECASE)
_STATE = "_upload_limits_state"
"""The instance attribute holding each arriving file's next chunk, chunk count and bytes."""
_REFUSED_NAMES = "_upload_limits_refused"
"""The instance attribute holding the names of files refused (their later chunks are ignored)."""
KEEP_REFUSED = 64
"""How many refused files' names a widget remembers, to ignore the rest of their chunks quietly."""
NAME_SHOWN = 200
"""The most characters of a file's name a refusal repeats."""
_HOOKED = "_upload_limits_sessions"
"""The instance attribute holding the documents whose end drops the widget's files still arriving."""
_LISTENERS = "_upload_limits_listeners"
"""The instance attribute holding the callables :func:`on_refused` registered."""

_ORIGINAL: dict[str, Callable] = {}
"""Panel's ``_process_event`` and ``_cleanup``, kept by :func:`install` (read then, never at import)."""


def size_in_bytes(text: str | None) -> int | None:
    """A FilePond size (``"200MB"``, ``"750KB"``) in bytes; None when not set or not readable.

    Parameters
    ----------
    text : str or None
        As given to ``max_file_size`` or ``max_total_file_size``.

    Returns
    -------
    int or None
        Bytes, with FilePond's base of 1000.
    """
    found = _SIZE.match(text or "")
    if found is None:
        return None
    unit = found.group(2).upper()
    return int(float(found.group(1)) * _UNITS[unit if unit.endswith("B") or not unit else unit + "B"])


def on_refused(dropper: FileDropper, callback: Callable[[str, str], None]) -> None:
    """Call ``callback(name, reason)`` when an upload to ``dropper`` is refused.

    Where the fix is not installed nothing is refused, and ``callback`` is never called.

    Parameters
    ----------
    dropper : FileDropper
        The widget.
    callback : callable
        Given the file's name as the browser sent it and one sentence: ``"x.json: the upload was
        refused: …"``. Called under the session's lock, from the event's handling.
    """
    dropper.__dict__.setdefault(_LISTENERS, []).append(callback)


def _held_bytes(self: FileDropper, state: dict, leaving: str) -> int:
    """Bytes the widget holds now: files arriving and files in ``value``, but the one being replaced."""
    arriving = sum(entry[2] for name, entry in state.items() if name != leaving)
    kept = sum(len(v) for name, v in self.value.items() if name != leaving and isinstance(v, bytes | str))
    return arriving + kept


def why_refused(self: FileDropper, data: object, state: dict) -> str:
    """Why this chunk may not be kept, or ``""``; the checks the module's docstring lists.

    Parameters
    ----------
    self : FileDropper
        The widget, with its limits.
    data : object
        The upload event's data as the browser sent it.
    state : dict
        Each arriving file's ``[next chunk, total chunks, bytes so far]``.

    Returns
    -------
    str
        A reason, without the file's name.
    """
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return "the upload event is not one Panel's page sends"
    name, chunk, total, body = data["name"], data.get("chunk"), data.get("total_chunks"), data.get("data")
    whole = all(isinstance(n, int) and not isinstance(n, bool) for n in (chunk, total))
    if not whole or not isinstance(body, bytes | bytearray) or not isinstance(data.get("type", ""), str):
        return "the upload event is not one Panel's page sends"
    if not 1 <= chunk <= total:
        return f"chunk {chunk} of {total} is not a chunk of the file"
    most = size_in_bytes(self.max_file_size)
    step = self.chunk_size
    if most is not None and total > math.ceil((most + 1) / step):  # Panel's page sends ceil((size + 1) / chunk_size)
        needed = math.ceil((most + 1) / step)
        return f"{total} chunks of {step:,} bytes is more than a file of at most {self.max_file_size} needs ({needed})"
    if len(body) > step:
        return f"a chunk of {len(body):,} bytes is longer than the chunk size of {step:,} bytes"
    if chunk == 1:
        files = set(state) | {n for n, v in self.value.items() if v is not None}
        if self.max_files is not None and name not in files and len(files) >= self.max_files:
            return f"it would be file {len(files) + 1}, and this page takes at most {self.max_files} at once"
        so_far = 0
    else:
        entry = state.get(name)
        if entry is None or entry[0] != chunk or entry[1] != total:
            return f"chunk {chunk} of {total} came out of order"
        so_far = entry[2]
    if most is not None and so_far + len(body) > most:
        return f"the file is over {self.max_file_size}, the largest this page takes"
    every = size_in_bytes(self.max_total_file_size)
    if every is not None and _held_bytes(self, state, name) + so_far + len(body) > every:
        return f"the files held for this page would pass {self.max_total_file_size} in all"
    return ""


def _process_event(self: FileDropper, event) -> None:
    """Panel's ``_process_event`` for a chunk within the widget's limits; a refusal for any other."""
    if getattr(event, "event_name", "") != "upload_event":
        _ORIGINAL["_process_event"](self, event)
        return
    state = self.__dict__.setdefault(_STATE, {})
    refused = self.__dict__.setdefault(_REFUSED_NAMES, {})
    _drop_when_the_session_ends(self)
    data = event.data
    reason = why_refused(self, data, state)
    if reason:
        name = data["name"] if isinstance(data, dict) and isinstance(data.get("name"), str) else ""
        self._file_buffer.pop(name, None)
        state.pop(name, None)
        if name in refused and not (isinstance(data, dict) and data.get("chunk") == 1):
            return  # the rest of a file refused already: said once
        refused[name] = None
        while len(refused) > KEEP_REFUSED:  # the oldest first: a stream of new names keeps a bounded set
            del refused[next(iter(refused))]
        _refuse(self, name[:NAME_SHOWN] or "a file", reason)
        return
    name, chunk, total = data["name"], data["chunk"], data["total_chunks"]
    refused.pop(name, None)
    if chunk == 1:
        state[name] = [1, total, 0]
    entry = state[name]
    entry[0], entry[2] = chunk + 1, entry[2] + len(data["data"])
    if chunk == total:
        del state[name]
    _ORIGINAL["_process_event"](self, event)


def _refuse(self: FileDropper, name: str, reason: str) -> None:
    said = f"{name}: {REFUSED}: {reason}"
    LOG.warning("%s", said)
    for callback in self.__dict__.get(_LISTENERS, ()):
        callback(name, said)


def drop_arriving(self: FileDropper) -> None:
    """Drop the files still arriving at ``self`` (their chunks so far), as a session's end does.

    Parameters
    ----------
    self : FileDropper
        The widget; files already in ``value`` stay.
    """
    self._file_buffer.clear()
    self.__dict__.pop(_STATE, None)
    self.__dict__.pop(_REFUSED_NAMES, None)


def _drop_when_the_session_ends(self: FileDropper) -> None:
    """Once per widget and session: drop its files still arriving when the session is destroyed.

    Panel cleans a widget up when its session ends only where each layout above it passes the
    cleanup on; this hook does not depend on that. It holds the widget weakly.
    """
    doc = panel_state.curdoc
    hooked = self.__dict__.setdefault(_HOOKED, weakref.WeakSet())
    if doc is None or doc.session_context is None or doc in hooked:
        return
    hooked.add(doc)
    widget = weakref.ref(self)

    def ended(_session_context) -> None:
        alive = widget()
        if alive is not None:
            drop_arriving(alive)

    doc.on_session_destroyed(ended)


def _cleanup(self: FileDropper, root=None) -> None:
    """Panel's ``_cleanup``; once the widget has no model left, the files still arriving are dropped."""
    _ORIGINAL["_cleanup"](self, root)
    if not self._models:
        drop_arriving(self)


def applies() -> str:
    """Why the fix cannot be installed here, or ``""``.

    Returns
    -------
    str
        Empty where ``FileDropper`` handles its events with ``_process_event``, keeps chunks in
        ``_file_buffer`` and has the limits and the chunk size as parameters.
    """
    if not callable(FileDropper.__dict__.get("_process_event")):
        return "panel.widgets.FileDropper has no _process_event to wrap"
    if not callable(getattr(FileDropper, "_cleanup", None)):
        return "panel.widgets.FileDropper has no _cleanup"
    for name in ("max_file_size", "max_total_file_size", "max_files", "chunk_size"):
        if name not in FileDropper.param:
            return f"panel.widgets.FileDropper has no {name} parameter"
    if "_file_buffer" not in FileDropper.__init__.__code__.co_names:
        return "panel.widgets.FileDropper no longer keeps its chunks in _file_buffer"
    return ""


def install() -> None:
    """Check each chunk against the widget's limits before Panel keeps it (idempotent)."""
    if _ORIGINAL:
        return
    _ORIGINAL["_process_event"] = FileDropper.__dict__["_process_event"]
    _ORIGINAL["_cleanup"] = FileDropper._cleanup
    FileDropper._process_event = _process_event
    FileDropper._cleanup = _cleanup
