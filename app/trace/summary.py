"""Every complete step of a run, per rank, and a summary over the warm ones.

The source texts ask to compare several warm, completed windows rather than one step. A step is
left out of the summary (and marked) when it is the first step the trace holds (the profiler's
first window often carries warm-up work) or ``ProfilerStep#0`` / ``#1`` (when profiling began with
training, DDP builds its buckets in iteration 0 and rebuilds them after it). A step that cannot be
read on every rank is listed with its reason.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field

from app.trace.errors import TraceError
from app.trace.parse import RankTrace
from app.trace.ranks import combine_ranks
from app.trace.timeline import StepTimeline


@dataclass(frozen=True)
class StepRow:
    """One step on every rank loaded.

    Parameters
    ----------
    number : int
        The step's number.
    timelines : tuple of StepTimeline
        One per rank, by rank (empty when the step could not be read).
    last_ready_rank : tuple of int
        Per bucket, the rank last ready (empty with one rank).
    left_out : str
        Why the step is not in the summary (empty when it is).
    """

    number: int
    timelines: tuple[StepTimeline, ...]
    last_ready_rank: tuple[int, ...] = ()
    left_out: str = ""


@dataclass(frozen=True)
class Spread:
    """The median, minimum and maximum of one figure over the warm steps (ms), and how many were known."""

    median: float | None
    low: float | None
    high: float | None
    count: int


@dataclass(frozen=True)
class RunSummary:
    """Per-step rows and the warm steps' spread of each figure, over every rank.

    Parameters
    ----------
    rows : tuple of StepRow
        Every step number all files hold, in order.
    figures : dict
        ``tail_ms``, ``exposed_ms``, ``step_ms``, ``compute_ms`` → :class:`Spread` over the warm
        steps' timelines (every rank's).
    last_ready : tuple of dict
        Per bucket, how often each rank was the last ready over the warm steps.
    """

    rows: tuple[StepRow, ...]
    figures: dict[str, Spread] = field(default_factory=dict)
    last_ready: tuple[dict[int, int], ...] = ()

    @property
    def warm(self) -> list[StepRow]:
        """The steps the summary is over."""
        return [r for r in self.rows if not r.left_out]


def _spread(values: list[float | None]) -> Spread:
    known = [v for v in values if v is not None]
    if not known:
        return Spread(None, None, None, 0)
    return Spread(statistics.median(known), min(known), max(known), len(known))


def summarize(traces: list[RankTrace]) -> RunSummary:
    """Read every step every file holds and summarize the warm ones.

    Parameters
    ----------
    traces : list of RankTrace
        One per rank (one file alone is fine).

    Returns
    -------
    RunSummary
        The rows and the summary.
    """
    common = set(traces[0].step_numbers()).intersection(*(t.step_numbers() for t in traces[1:]))
    first = min(min(t.step_numbers()) for t in traces)
    rows = []
    for number in sorted(common):
        why = ""
        if number == first:
            why = "the trace's first step"
        elif number in (0, 1) and all(t.steps[0].source == "ProfilerStep" for t in traces):
            why = "DDP builds or rebuilds its buckets in iterations 0-1"
        try:
            if len(traces) == 1:
                rows.append(StepRow(number, (traces[0].timeline(number),), (), why))
            else:
                run = combine_ranks(traces, number)
                rows.append(StepRow(number, run.timelines, run.last_ready_rank, why))
        except TraceError as err:
            rows.append(StepRow(number, (), (), f"not read: {err.reason}"))
    warm = [r for r in rows if not r.left_out]
    figures = {
        name: _spread([getattr(tl, name) for r in warm for tl in r.timelines])
        for name in ("tail_ms", "exposed_ms", "step_ms", "compute_ms")
    }
    counts: list[Counter] = []
    for r in warm:
        for k, rank in enumerate(r.last_ready_rank):
            while len(counts) <= k:
                counts.append(Counter())
            counts[k][rank] += 1
    return RunSummary(tuple(rows), figures, tuple(dict(sorted(c.items())) for c in counts))


def _cell(value: float | None) -> str:
    return "?" if value is None else f"{value:.3f}"


def summary_text(summary: RunSummary) -> str:
    """The per-step table and the warm steps' summary, for a terminal.

    Parameters
    ----------
    summary : RunSummary
        From :func:`summarize`.

    Returns
    -------
    str
        Several lines (ms throughout; a hidden tail is negative here, as in JSON).
    """
    lines = [f"{'step':>6} {'rank':>5} {'tail':>9} {'exposed':>9} {'step':>9} {'compute':>9}  (ms)  note"]
    for r in summary.rows:
        if not r.timelines:
            lines.append(f"{r.number:>6} {'':>5} {'':>9} {'':>9} {'':>9} {'':>9}        {r.left_out}")
        for tl in r.timelines:
            who = "?" if tl.rank is None else str(tl.rank)
            lines.append(
                f"{r.number:>6} {who:>5} {_cell(tl.tail_ms):>9} {_cell(tl.exposed_ms):>9} {_cell(tl.step_ms):>9} "
                f"{_cell(tl.compute_ms):>9}        {('left out: ' + r.left_out) if r.left_out else ''}"
            )
    warm = summary.warm
    if not warm:
        lines.append("summary: no warm step to summarize (every step is left out above)")
        return "\n".join(lines)
    lines.append(f"summary over {len(warm)} warm step(s) ({', '.join(str(r.number) for r in warm)}), every rank:")
    for name, spread in summary.figures.items():
        if spread.count:
            lines.append(
                f"  {name[:-3]:>8}: median {spread.median:.3f} ms, {spread.low:.3f}–{spread.high:.3f} ms "
                f"({spread.count} known)"
            )
        else:
            lines.append(f"  {name[:-3]:>8}: unknown")
    for k, counts in enumerate(summary.last_ready):
        said = ", ".join(f"rank {rank} {n}×" for rank, n in counts.items())
        lines.append(f"  bucket {k} last ready: {said}")
    return "\n".join(lines)


def summary_dict(summary: RunSummary) -> dict:
    """The per-step rows and the summary as plain data (JSON-ready).

    Parameters
    ----------
    summary : RunSummary
        From :func:`summarize`.

    Returns
    -------
    dict
        ``steps`` (number, left_out, per rank tail/exposed/step/compute ms) and ``summary``.
    """
    steps = [
        {
            "step": r.number,
            "left_out": r.left_out,
            "ranks": [
                {
                    "rank": tl.rank,
                    "tail_ms": tl.tail_ms,
                    "exposed_ms": tl.exposed_ms,
                    "step_ms": tl.step_ms,
                    "compute_ms": tl.compute_ms,
                }
                for tl in r.timelines
            ],
            "last_ready_rank": list(r.last_ready_rank),
        }
        for r in summary.rows
    ]
    figures = {
        name: {"median": s.median, "min": s.low, "max": s.high, "known": s.count} for name, s in summary.figures.items()
    }
    last_ready = [{str(rank): n for rank, n in c.items()} for c in summary.last_ready]
    return {
        "steps": steps,
        "summary": {"warm_steps": [r.number for r in summary.warm], **figures, "last_ready": last_ready},
    }
