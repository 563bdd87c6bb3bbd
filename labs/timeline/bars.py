"""The Gantt's pieces as interval columns, one entry per piece, that playback clips at t in the browser.

:func:`bar_columns` reads the model's intervals: backward's slots, the all-reduces (coloured and
hatched by what happened to them), overlays where contention slowed either one or backward stood
still for a synchronization, and each bucket's ready (▲) and issue (▼) marks on the host row. What
went wrong reads in greyscale too: each state has its own hatch. The figure that draws them is
:class:`labs.timeline.figures.Gantt`.
"""

from __future__ import annotations

from labs.timeline.model import TimelineModel
from labs.timeline.text import COMM, COMPUTE, HOST, layer_list
from labs.ui.palette import (
    BLUE,
    DARK_GREY,
    EXPOSED_RED,
    HUNG_GREY,
    INVALID_MAROON,
    ISSUE_BROWN,
    ORANGE,
    PALE_BLUE,
    READY_NAVY,
    SLOWED_BLUE_HATCH,
    SLOWED_ORANGE_HATCH,
    STALL_GREY,
    WHITE,
)

__all__ = [
    "BAR_FONT",
    "COLUMNS",
    "COMM_COLOUR",
    "COMPUTE_COLOUR",
    "EXPOSED_COLOUR",
    "HUNG_COLOUR",
    "HUNG_HATCH",
    "INVALID_COLOUR",
    "INVALID_HATCH",
    "ISSUE_MARK",
    "MARK_FONT",
    "READY_MARK",
    "SLOWED_HATCH",
    "STALL_COLOUR",
    "STALL_HATCH",
    "bar_columns",
]

COMPUTE_COLOUR, COMM_COLOUR, EXPOSED_COLOUR = BLUE, ORANGE, EXPOSED_RED
INVALID_COLOUR, HUNG_COLOUR, STALL_COLOUR = INVALID_MAROON, HUNG_GREY, STALL_GREY
SLOWED_HATCH, INVALID_HATCH, HUNG_HATCH, STALL_HATCH = "/", "x", "-", "."
READY_MARK, ISSUE_MARK = "▲", "▼"

MARK_FONT, BAR_FONT = "18px", "12px"

COLUMNS = (
    "start",
    "end",
    "row",
    "color",
    "label",
    "short",
    "hatch",
    "hatch_color",
    "height",
    "text_color",
    "font",
    "dx",
    "dy",
    "kind",
)


def _piece(columns: dict[str, list], start: float, end: float, row: str, **style: object) -> None:
    piece = {
        "start": float(start),
        "end": float(end),
        "row": row,
        "color": COMPUTE_COLOUR,
        "label": "",
        "short": "",
        "hatch": " ",
        "hatch_color": WHITE,
        "height": 0.6,
        "text_color": WHITE,
        "font": BAR_FONT,
        "dx": 3,
        "dy": 0,
        "kind": "bar",
        **style,
    }
    for key in COLUMNS:
        columns[key].append(piece[key])


def bar_columns(m: TimelineModel) -> dict[str, list]:
    """Every piece of the Gantt as interval columns (start, end, row, colour, label, hatch, ...).

    Parameters
    ----------
    m : TimelineModel
        The model, as it is now.

    Returns
    -------
    dict of str to list
        One entry per piece: backward slots, all-reduces (coloured and hatched by what happened to
        them), overlays where contention or a synchronization acted, and the ready and issue marks
        (zero-length pieces whose label is the mark).
    """
    pieces = m.intervals()
    columns: dict[str, list] = {key: [] for key in COLUMNS}
    compute = pieces["compute"]
    slots = zip(compute["start"], compute["end"], compute["label"], compute["layer"], strict=True)
    for start, end, label, layer in slots:
        _piece(columns, start, end, COMPUTE, label=str(label), short=str(layer))
    stalled = m.sync_each
    slowed_compute, slowed_comm = m.compute_slowdown > 1, m.comm_slowdown > 1
    for start, end in zip(pieces["shared"]["start"], pieces["shared"]["end"], strict=True):
        if end <= start:
            continue
        if stalled:
            _piece(
                columns,
                start,
                end,
                COMPUTE,
                color=STALL_COLOUR,
                hatch=STALL_HATCH,
                hatch_color=DARK_GREY,
                kind="overlay",
            )
        elif slowed_compute:
            _piece(
                columns,
                start,
                end,
                COMPUTE,
                color=PALE_BLUE,
                hatch=SLOWED_HATCH,
                hatch_color=SLOWED_BLUE_HATCH,
                kind="overlay",
            )
    comm = pieces["comm"]
    buckets = m.buckets
    for start, end, label, state, number in zip(
        comm["start"], comm["end"], comm["label"], comm["state"], comm["bucket"], strict=True
    ):
        style: dict[str, object] = {"color": COMM_COLOUR, "label": str(label), "short": ""}
        if state != "done":
            style["short"] = str(label)  # a long label that does not fit falls back to the size alone
        if state == "read early":
            early = sorted(i + 1 for i in buckets[number - 1].layers if i + 1 in m.read_early)
            style.update(color=INVALID_COLOUR, hatch=INVALID_HATCH, label=f"{label}: read {layer_list(early)} early")
        elif state == "unfinished":
            style.update(color=INVALID_COLOUR, hatch=INVALID_HATCH, label=f"{label}: still running for the optimizer")
        elif state == "hung":
            style.update(
                color=HUNG_COLOUR, hatch=HUNG_HATCH, label=f"{label}: never ends (a rank skips layer {m.skipped_layer})"
            )
        _piece(columns, start, end, COMM, **style)
    if slowed_comm and not stalled:
        for start, end in zip(pieces["shared"]["start"], pieces["shared"]["end"], strict=True):
            if end > start:
                _piece(
                    columns,
                    start,
                    end,
                    COMM,
                    color=COMM_COLOUR,
                    hatch=SLOWED_HATCH,
                    hatch_color=SLOWED_ORANGE_HATCH,
                    kind="overlay",
                    height=0.3,
                )
    ticks = pieces["ticks"]
    for time, kind in zip(ticks["time"], ticks["kind"], strict=True):
        ready = kind == "ready"
        _piece(
            columns,
            time,
            time,
            HOST,
            label=READY_MARK if ready else ISSUE_MARK,
            height=0.0,
            text_color=READY_NAVY if ready else ISSUE_BROWN,
            font=MARK_FONT,
            dx=-7,
            dy=-11 if ready else 11,
            kind="tick",
        )
    return columns
