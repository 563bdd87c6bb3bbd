"""What the trace page shows of the traces it has read: the readout's words, the alert, the bucket table, the Gantt.

Pure functions of the parsed traces (no Panel), so the headless tests read them without a page;
:mod:`app.trace.page.view` puts them on the page, one :class:`~app.trace.page.view.TraceView` per session.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np

from app.trace import TraceError, parse_trace
from app.trace.intervals import clip
from app.trace.parse import RankTrace
from app.trace.ranks import RunTimeline
from app.trace.report import tail_text
from app.trace.summary import RunSummary
from app.trace.timeline import StepTimeline
from labs.ui import stylesheet
from labs.ui.palette import (
    BAR_LABEL_INK,
    BLUE,
    ERROR_RED,
    EXPOSED_DARK,
    ISSUE_BROWN,
    ORANGE,
    READY_NAVY,
)

READY_MARK, ISSUE_MARK = "▲", "▼"
LABEL_INK = BAR_LABEL_INK
COMPUTE_COLOUR, COMM_COLOUR, EXPOSED_COLOUR = BLUE, ORANGE, EXPOSED_DARK
GANTT_KEYS = ("start", "end", "row", "y", "color", "label", "height", "dy")
"""``row`` is the bar's row (a factor of the y range); ``y`` is ``(row, offset)``, where in the row it sits."""
EXPOSED_BAND = 0.2
"""Height of the exposed band, in rows; it lines the bottom of the 0.6-row all-reduce bar."""
LABEL_ROOM = {"bucket {k}": 0.2, "{k}": 0.03}
"""Each label's width as a share of the time axis on the narrowest plot (a phone's, about 300 px): a
bar's label is the longest that fits before the next bar in its row starts (or its own end), else none."""
TITLE_STYLE = "font-weight:600;margin:8px 0 4px"
"""A table's title, above it and outside its scrolling box (so it wraps at the screen's width)."""
NARROW = 700
"""Below this width (px) the tables may be wider than the screen: a cue says to scroll them."""
TABLE_CSS = (
    "<style>" + stylesheet(Path(__file__).parent / "assets" / "tables.css", compact=True, NARROW=NARROW) + "</style>"
)
"""Each table scrolls sideways in its own box, one line per row; on a narrow screen a line above it says so
and the box's right edge is drawn, where the table goes on past it."""
SCROLL_CUE = "Scroll the table sideways to see every column →"


def titled_table(key: str, title: str, table: str) -> str:
    """A table under its title, in a box that scrolls sideways, with the cue narrow screens show.

    Parameters
    ----------
    key : str
        Unique on the page: the title's id, which names the table (``aria-labelledby``).
    title : str
        The title, escaped.
    table : str
        ``<table …>`` HTML without a caption; ``aria-labelledby`` is added to its first tag.

    Returns
    -------
    str
        HTML.
    """
    labelled = table.replace("<table ", f"<table aria-labelledby='{key}' ", 1)
    return (
        f"{TABLE_CSS}<p id='{key}' style='{TITLE_STYLE}'>{title}</p>"
        f"<p class='scroll-cue'>{SCROLL_CUE}</p><div class='trace-scroll' tabindex='0' role='group' "
        f"aria-labelledby='{key}'>{labelled}</div>"
    )


def ms(value: float | None) -> str:
    """A time in ms with three decimals (a trace's clock has µs and better); ``unknown`` for None."""
    return "unknown" if value is None else f"{value:.3f}"


def _with_unit(value: float | None) -> str:
    return "unknown" if value is None else f"{ms(value)} ms"


def figures_text(tl: StepTimeline) -> str:
    """The readout's figures: ``all-reduces = N · tail = … ms · exposed = … ms · step = … ms``."""
    return (
        f"all-reduces = {len(tl.buckets)} · tail = {tail_text(tl.tail_ms)} · exposed = {_with_unit(tl.exposed_ms)} · "
        f"step = {ms(tl.step_ms)} ms"
    )


def headline_html(timelines: list[StepTimeline]) -> str:
    """The readout: one line per rank read, each naming its rank; the largest tail is said to be.

    Parameters
    ----------
    timelines : list of StepTimeline
        The step on every rank read (one for a single file).

    Returns
    -------
    str
        Escaped HTML: ``rank 0: all-reduces = 4 · tail = … ms · …`` lines; with more than
        :data:`HEADLINE_RANKS` ranks, the rank with the largest tail and a count of the others.
    """

    def line(tl: StepTimeline) -> str:
        return html.escape(f"{'rank ?' if tl.rank is None else f'rank {tl.rank}'}: {figures_text(tl)}")

    if len(timelines) == 1:
        return line(timelines[0])
    known = [tl for tl in timelines if tl.tail_ms is not None]
    slowest = max(known, key=lambda tl: tl.tail_ms) if known else None
    if len(timelines) > HEADLINE_RANKS and slowest is not None:
        return (
            html.escape(f"ranks = {len(timelines)}; the largest tail is on ")
            + line(slowest)
            + html.escape(" (the table below has every rank's steps)")
        )
    lines = [
        line(tl) + (html.escape(" (the largest tail)") if tl is slowest and len(known) > 1 else "") for tl in timelines
    ]
    return f"{html.escape(f'ranks = {len(timelines)}')}<br>" + "<br>".join(lines)


HEADLINE_RANKS = 4
"""Ranks the readout gives a line each; with more, it names the one with the largest tail."""


def read_file(raw: bytes, name: str) -> RankTrace | str:
    """Parse one dropped file; a refusal comes back as the sentence the alert line shows."""
    try:
        return parse_trace(raw, source=name)
    except TraceError as refusal:
        return str(refusal)
    except Exception as error:  # noqa: BLE001 (a parser bug must not leave the page reading forever)
        return f"{name}: could not be read ({type(error).__name__}); nothing else changed."


def alert_html(message: str) -> str:
    """The alert line: why files could not be read or combined (empty when all is well)."""
    if not message:
        return ""
    return f'<p role="alert" style="color:{ERROR_RED};font-weight:600">{html.escape(message)}</p>'


def measured_window(tl: StepTimeline) -> tuple[float, float]:
    """Backward's start to the optimizer's start, in ms from backward's start: the window the lab models."""
    return 0.0, (tl.optimizer_start - tl.backward_start) / 1e3


def bucket_table(run: RunTimeline | None, tl: StepTimeline) -> str:
    """The per-bucket table: bytes, gradients, ready, issue, start, end (ms from backward's start), last ready rank."""
    zero = tl.backward_start
    several = run is not None and len(run.timelines) > 1
    heads = ["bucket", "MiB", "gradients", "ready", "issue", "start", "end"] + (["last ready"] if several else [])
    rows = []
    for b in tl.buckets:
        grads = "?" if b.gradients is None else str(len(b.gradients))
        cells = [
            str(b.index + 1),
            "?" if b.nbytes is None else f"{b.nbytes / 2**20:.3f}",
            grads,
            *(ms((x - zero) / 1e3) for x in (b.ready, b.issue)),
            *((ms((x - zero) / 1e3) if b.measured else "?") for x in (b.start, b.end)),
        ]
        if several:
            cells.append(f"rank {run.last_ready_rank[b.index]}")
        rows.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
    cell = "style='padding:2px 8px;text-align:right'"
    who = "rank ?" if tl.rank is None else f"rank {tl.rank}"
    title = (
        f"Buckets of {html.escape(tl.step.label)} on {who} ({html.escape(tl.backend)}), ms from the start of "
        f"backward: backward compute ends at {ms((tl.backward_end - zero) / 1e3)}, the optimizer starts at "
        f"{ms(measured_window(tl)[1])}"
    )
    return titled_table(
        "trace-buckets-title",
        title,
        "<table style='border-collapse:collapse;font-size:0.9rem'>"
        f"<thead><tr>{''.join(f'<th {cell}>{h}</th>' for h in heads)}</tr></thead>"
        f"<tbody>{''.join(rows).replace('<td>', f'<td {cell}>')}</tbody></table>",
    )


def gantt_columns(timelines: list[StepTimeline]) -> dict[str, list]:
    """Bars for every rank: backward compute, each all-reduce, the exposed stretches, ready and issue marks.

    Parameters
    ----------
    timelines : list of StepTimeline
        The step on every rank shown.

    Returns
    -------
    dict
        Columns :data:`GANTT_KEYS`, ms from the earliest backward start. An all-reduce's label is
        its bucket's number where it fits (:data:`LABEL_ROOM`); the exposed stretches are a dark band
        along the bottom of the all-reduce bars.
    """
    zero = min(t.backward_start for t in timelines)
    columns: dict[str, list] = {key: [] for key in GANTT_KEYS}
    ends = [(b.end - zero) / 1e3 for tl in timelines for b in tl.buckets if b.measured]
    ends += [(e - zero) / 1e3 for tl in timelines for _s, e in tl.compute]
    span = max(ends, default=1.0) or 1.0

    def bar(start, end, row, color, label="", height=0.6, dy=0, offset=0.0):
        values = ((start - zero) / 1e3, (end - zero) / 1e3, row, (row, offset), color, label, height, dy)
        for key, value in zip(columns, values, strict=True):
            columns[key].append(value)

    for tl in timelines:
        name = "rank ?" if tl.rank is None else f"rank {tl.rank}"
        compute_row, comm_row = f"{name} backward", f"{name} all-reduce"
        for start, end in tl.compute:
            bar(start, end, compute_row, COMPUTE_COLOUR)
        runs = sorted((b for b in tl.buckets if b.measured), key=lambda b: b.start)
        for k, b in enumerate(runs):  # an all-reduce with no run in the trace has no bar: its time is unknown
            room = (min(b.end, runs[k + 1].start) if k + 1 < len(runs) else b.end) - b.start
            fits = [text for text, share in LABEL_ROOM.items() if room / 1e3 >= share * span]
            bar(b.start, b.end, comm_row, COMM_COLOUR, fits[0].format(k=b.index + 1) if fits else "", 0.6, -3)
        for b in tl.buckets:
            bar(b.ready, b.ready, comm_row, READY_NAVY, READY_MARK, 0.0, -22)
            bar(b.issue, b.issue, comm_row, ISSUE_BROWN, ISSUE_MARK, 0.0, 8)
        measured = np.array([[b.start, b.end] for b in runs], float).reshape(-1, 2)
        window = clip(measured, tl.backward_start, tl.optimizer_start)
        for start, end in _uncovered_pieces(window, tl.compute):
            bar(start, end, comm_row, EXPOSED_COLOUR, "", EXPOSED_BAND, 0, -0.3 + EXPOSED_BAND / 2)
    return columns


def _uncovered_pieces(pairs: np.ndarray, cover: np.ndarray) -> list[tuple[float, float]]:
    pieces = []
    for start, end in pairs:
        cursor = start
        for c_start, c_end in cover:
            if c_end <= cursor or c_start >= end:
                continue
            if c_start > cursor:
                pieces.append((cursor, c_start))
            cursor = max(cursor, c_end)
        if cursor < end:
            pieces.append((cursor, end))
    return pieces


SUMMARY_ROWS = 24
"""Per-step rows the page shows at most (the command line prints them all)."""


def summary_html(summary: RunSummary) -> str:
    """Every step per rank (up to :data:`SUMMARY_ROWS` rows) and the warm steps' median and spread.

    Parameters
    ----------
    summary : RunSummary
        From :func:`app.trace.summary.summarize`.

    Returns
    -------
    str
        A table and a list, or empty when the files hold one step only.
    """
    if len(summary.rows) < 2:
        return ""
    cell = "style='padding:2px 8px;text-align:right'"
    heads = ["step", "rank", "tail", "exposed", "step time", "backward compute", "note"]
    rows = []
    for r in summary.rows:
        for tl in r.timelines or (None,):
            if tl is None:
                cells = [str(r.number), "", "", "", "", "", r.left_out]
            else:
                cells = [
                    str(r.number),
                    "?" if tl.rank is None else str(tl.rank),
                    ms(tl.tail_ms),
                    ms(tl.exposed_ms),
                    ms(tl.step_ms),
                    ms(tl.compute_ms),
                    f"left out: {r.left_out}" if r.left_out else "",
                ]
            rows.append("<tr>" + "".join(f"<td {cell}>{html.escape(c)}</td>" for c in cells) + "</tr>")
    more = len(rows) - SUMMARY_ROWS
    shown = rows[:SUMMARY_ROWS] + (
        [f"<tr><td colspan='7'>… {more} more rows: python -m app.trace prints them all</td></tr>"] if more > 0 else []
    )
    warm = summary.warm
    if warm:
        said = ", ".join(str(r.number) for r in warm)
        items = [f"Over {len(warm)} warm step{'s' * (len(warm) != 1)} ({html.escape(said)}), every rank:"]
        for name, label in (
            ("tail_ms", "tail"),
            ("exposed_ms", "exposed"),
            ("step_ms", "step"),
            ("compute_ms", "backward compute"),
        ):
            spread = summary.figures[name]
            items.append(
                f"{label}: median {ms(spread.median)} ms, {ms(spread.low)}–{ms(spread.high)} ms"
                if spread.count
                else f"{label}: unknown"
            )
        for k, counts in enumerate(summary.last_ready):
            items.append(f"bucket {k + 1} last ready: " + ", ".join(f"rank {r} {n}×" for r, n in counts.items()))
        listed = "".join(f"<li>{item}</li>" for item in items)
    else:
        listed = "<li>No warm step to summarize: every step is left out above.</li>"
    title = (
        "Every step, ms (a hidden tail is negative here; the trace's first step and DDP's bucket (re)build "
        "steps are left out of the summary)"
    )
    table = (
        "<table style='border-collapse:collapse;font-size:0.9rem'>"
        f"<thead><tr>{''.join(f'<th {cell}>{h}</th>' for h in heads)}</tr></thead>"
        f"<tbody>{''.join(shown)}</tbody></table>"
    )
    return titled_table("trace-steps-title", title, table) + f"<ul style='font-size:0.9rem'>{listed}</ul>"
