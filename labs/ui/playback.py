"""What the page and the server share about playback, and the server's twins of what ``player.js`` draws.

design.md measured a server-driven animation at about 2 ms of server CPU per frame, so during Play
no message passes between page and server. The model hands the browser the breakpoints of its
piecewise-linear trajectory in :class:`PlaybackState`; ``player.js`` advances t, moves the marker,
reveals the path and rewrites the readout with ``setv(..., {sync: false})``. The functions here
compute on the server exactly what it draws at a given t (``tests/labs/test_js_twins.py`` holds them equal
under Node). The buttons and commands are :mod:`labs.ui.transport`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

import numpy as np
from bokeh.core.properties import Any, Bool, Dict, Float, Int, String
from bokeh.model import DataModel

from labs.numbers import fixed
from labs.ui.styles import READOUT_STYLE

_PLACEHOLDER = re.compile(r"\{(\w+)(?::(\d+))?\}")


class PlaybackState(DataModel):
    """What the page and the server share about playback; the server owns all but ``command``."""

    t = Float(default=0.0, help="The model's elapsed time as the server last set it.")
    horizon = Float(default=10.0, help="Where playback ends.")
    rate = Float(default=1.0, help="Model time per second of playback at 1× (the model's play_rate).")
    report_play = Bool(default=False, help="Whether the page sends a 'play' command when Play starts.")
    stop_at = Float(default=1e300, help="An earlier stop set by a guided exercise (pause_at).")
    template = String(default="", help="The readout's HTML while playing, with {t} and {column[:digits]} placeholders.")
    epoch = Int(default=0, help="Bumped by the server to stop any playback in the browser.")
    allowed = Bool(default=True, help="Whether Step and Play may run (gating); Step returns to this on Pause.")
    ask_time = Int(default=0, help="Bumped by the server after a control edit: a playing page reports t.")
    command = Dict(String, Any, help="Browser to server: {action, t, seq}, one per user action.")
    trajectory = Dict(String, Any, help="The model's trajectory breakpoints by column, with 't'; player.js plays them.")
    intervals = Dict(String, Any, help="Interval bars (start, end, row, label columns) that player.js clips at t.")


def fill_template(template: str, values: Mapping[str, float]) -> str:
    """Fill ``{name}`` / ``{name:digits}`` placeholders exactly as ``player.js`` does.

    Parameters
    ----------
    template : str
        Readout text with placeholders; two decimals unless ``:digits`` says otherwise, by
        :func:`labs.numbers.fixed` (no negative zero, ``m × 10^e`` from 10^12 on).
    values : mapping of str to float
        The numbers to put in.

    Returns
    -------
    str
        The readout text; unknown placeholders are left as they are.
    """

    def number(match: re.Match[str]) -> str:
        key, digits = match.group(1), match.group(2)
        if key not in values:
            return match.group(0)
        return fixed(values[key], 2 if digits is None else int(digits))

    return _PLACEHOLDER.sub(number, template)


def readout_html(text: str, busy: bool = False, live: bool = True, room: str = "") -> str:
    """Wrap readout text in the readout's element: by default the live status element (``role="status"``).

    Parameters
    ----------
    text : str
        Already-escaped readout text.
    busy : bool
        True while the figures are changing, so that screen readers hold announcements until they stop.
    live : bool
        False for a lab's readout: there the Bokeh ``Div``'s own element is the live region
        (:data:`LIVE_REGION`), because Bokeh re-renders the ``Div``'s content, this element
        included, on every change, and a live region must stay in the page to be announced.
    room : str
        The longest text this readout shows (plain text), whose height it keeps whatever it shows
        at the page's width now: the text goes in a ``<span>`` and the room in ``data-room``, which
        :data:`labs.ui.styles.READOUT_ROOM_CSS` lays under it, unseen and unread. Empty: none kept.

    Returns
    -------
    str
        The HTML.
    """
    if not live:
        if room:
            kept = html.escape(room, quote=True)
            return f'<div class="readout" data-room="{kept}" style="{READOUT_STYLE}"><span>{text}</span></div>'
        return f'<div class="readout" style="{READOUT_STYLE}">{text}</div>'
    return (
        f'<div role="status" aria-live="polite" aria-atomic="true" aria-busy="{"true" if busy else "false"}" '
        f'class="readout" style="{READOUT_STYLE}">{text}</div>'
    )


LIVE_REGION = {"role": "status", "aria-live": "polite", "aria-atomic": "true", "aria-busy": "false"}
"""The lab readout's live region, on the ``Div``'s own element, which Bokeh keeps across re-renders
(``html_attributes``); ``player.js`` sets its ``aria-busy`` while playing."""


def sample(trajectory: Mapping[str, np.ndarray], t: float) -> dict[str, float]:
    """Interpolate every column of a trajectory at time ``t``.

    Parameters
    ----------
    trajectory : mapping of str to numpy.ndarray
        Breakpoints with a ``"t"`` column.
    t : float
        Model time in seconds.

    Returns
    -------
    dict of str to float
        ``"t"`` and each column's value at t.
    """
    values = {"t": float(t)}
    for key, column in trajectory.items():
        if key != "t":
            values[key] = float(np.interp(t, trajectory["t"], column))
    return values


def revealed(trajectory: Mapping[str, np.ndarray], t: float) -> dict[str, list[float]]:
    """The part of a trajectory from 0 up to ``t``, ending exactly at t.

    Parameters
    ----------
    trajectory : mapping of str to numpy.ndarray
        Breakpoints with a ``"t"`` column.
    t : float
        Model time in seconds.

    Returns
    -------
    dict of str to list of float
        Breakpoints before t plus the interpolated point at t.
    """
    before = trajectory["t"] < t
    end = sample(trajectory, t)
    return {key: [*map(float, column[before]), end[key]] for key, column in trajectory.items()}


def clipped(intervals: Mapping[str, Sequence], t: float) -> dict[str, list]:
    """Interval bars as drawn at time ``t``, exactly as ``player.js`` draws them.

    A bar that has not started by ``t`` has zero width, no label and no outline (``edge`` 0: its
    outline alone would draw a line where it will start, telling when the all-reduces come before
    they do); a bar under way ends at ``t``; a finished bar is whole. Extra columns (rows, labels,
    colours) are passed through.

    Parameters
    ----------
    intervals : mapping of str to sequence
        Columns ``start``, ``end`` and ``label`` (and any others), one entry per bar.
    t : float
        Model time.

    Returns
    -------
    dict of str to list
        The same columns with ``end`` clipped to ``t``, ``label`` blank until the bar starts, and
        ``edge`` (the outline's alpha) 1 once it has started, else 0.
    """
    starts = [float(x) for x in intervals["start"]]
    ends = [float(x) for x in intervals["end"]]
    data = {key: list(column) for key, column in intervals.items()}
    data["end"] = [max(start, min(end, t)) for start, end in zip(starts, ends, strict=True)]
    data["label"] = [label if t >= start else "" for label, start in zip(intervals["label"], starts, strict=True)]
    data["edge"] = [1.0 if t >= start else 0.0 for start in starts]
    return data


def plain_columns(columns: Mapping[str, Sequence]) -> dict[str, list]:
    """Columns as plain lists (floats stay floats, labels stay text), as the page receives them."""
    return {key: [v.item() if isinstance(v, np.generic) else v for v in column] for key, column in columns.items()}


def float_columns(trajectory: Mapping[str, np.ndarray]) -> dict[str, list[float]]:
    """The trajectory as plain lists of floats, as the page receives it."""
    return {key: list(map(float, column)) for key, column in trajectory.items()}


def escape(text: str) -> str:
    """Escape text for the readout template (placeholders survive: braces are not escaped).

    Parameters
    ----------
    text : str
        Plain text.

    Returns
    -------
    str
        HTML-safe text.
    """
    return html.escape(text, quote=False)
