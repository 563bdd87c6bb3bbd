"""Several ranks' traces of one step, checked to come from one run, and who was last ready for each bucket."""

from __future__ import annotations

from dataclasses import dataclass

from app.trace.errors import TraceError
from app.trace.parse import RankTrace
from app.trace.timeline import StepTimeline

PLAUSIBLE_GAP_S = 60.0
"""Ranks' steps further apart than this (after the step's own length) are not one step of one run."""


@dataclass(frozen=True)
class RunTimeline:
    """One step on every rank loaded.

    Parameters
    ----------
    timelines : tuple of StepTimeline
        One per rank, by rank.
    world_size : int or None
        p, from the files (or ``--world-size``); None when no file says (never the number of files:
        two of eight ranks are still a run of eight).
    last_ready_rank : tuple of int
        For each bucket, the rank whose gradients were ready last (the one that set its start).
    """

    timelines: tuple[StepTimeline, ...]
    world_size: int | None
    last_ready_rank: tuple[int, ...]

    @property
    def ranks(self) -> tuple[int, ...]:
        """The ranks loaded."""
        return tuple(t.rank for t in self.timelines)


def combine_ranks(traces: list[RankTrace], step: int | None = None) -> RunTimeline:
    """Check that rank files come from one run and read the same step on each.

    Parameters
    ----------
    traces : list of RankTrace
        One per rank (any order).
    step : int, optional
        The step's number; by default the last step every file has.

    Returns
    -------
    RunTimeline
        The step on every rank, by rank.

    Raises
    ------
    TraceError
        If a file has no rank, the world sizes or backends differ, a rank appears twice, the step is
        not in every file, the steps do not overlap in time, or the bucket layouts differ.
    """
    if not traces:
        raise TraceError("no trace was given")
    for t in traces:
        t.require_rank()
    sizes = {t.world_size for t in traces if t.world_size is not None}  # a file without one says nothing
    if len(sizes) > 1:
        raise TraceError(f"these ranks come from different runs: their world sizes differ ({sorted(map(str, sizes))})")
    ranks = [t.rank for t in traces]
    if len(set(ranks)) < len(ranks):
        twice = sorted({r for r in ranks if ranks.count(r) > 1})
        raise TraceError(f"rank {twice[0]} is loaded twice: load one file per rank")
    world = sizes.pop() if sizes else None
    if world is not None and any(r >= world for r in ranks):
        raise TraceError(f"rank {max(ranks)} cannot be in a run of {world} ranks")
    backends = {t.backend for t in traces}
    if len(backends) > 1:
        raise TraceError(f"these ranks come from different runs: their backends differ ({', '.join(sorted(backends))})")
    common = set(traces[0].step_numbers()).intersection(*(t.step_numbers() for t in traces[1:]))
    if not common:
        raise TraceError("these ranks come from different runs: no step number is in every file")
    number = max(common) if step is None else step
    if number not in common:
        raise TraceError(f"step {number} is not in every file; the steps in all of them are {sorted(common)}")
    timelines = sorted((t.timeline(number) for t in traces), key=lambda tl: tl.rank)
    starts = [tl.absolute_us(tl.step.start) for tl in timelines]
    ends = [tl.absolute_us(tl.step.end) for tl in timelines]
    if max(starts) - min(ends) > PLAUSIBLE_GAP_S * 1e6:
        raise TraceError("these ranks come from different runs: their steps are not at the same time")
    layouts = {tuple(b.numel for b in tl.buckets) for tl in timelines}
    if len(layouts) > 1:
        shortest = min(e - s for s, e in zip(starts, ends, strict=True))
        raise TraceError(_different_buckets(timelines, max(starts) - min(starts) < shortest))
    last = []
    for k in range(len(timelines[0].buckets)):
        ready = [tl.absolute_us(tl.buckets[k].ready) for tl in timelines]
        last.append(timelines[ready.index(max(ready))].rank)
    return RunTimeline(tuple(timelines), world, tuple(last))


def _mib_list(tl: StepTimeline) -> str:
    sizes = [f"{b.nbytes / 2**20:.1f}" if b.nbytes else "?" for b in tl.buckets]
    listed = sizes[0] if len(sizes) == 1 else ", ".join(sizes[:-1]) + " and " + sizes[-1]
    return f"rank {tl.rank} lists {listed} MiB"


def _different_buckets(timelines: list[StepTimeline], same_time: bool) -> str:
    """Why ranks whose step lists different buckets cannot be read together, naming the step and buckets.

    Parameters
    ----------
    timelines : list of StepTimeline
        The step on each rank.
    same_time : bool
        Whether the ranks' steps start within one step of each other (then they are one run).

    Returns
    -------
    str
        One sentence.
    """
    listed = "; ".join(_mib_list(tl) for tl in timelines)
    label = timelines[0].step.label
    if same_time:
        return (
            f"these files are one run ({label} runs at the same time on every rank) but list different "
            f"buckets ({listed}), though DDP all-reduces the same buckets on every rank: the trace is "
            "event-sampled (each file kept different all-reduces), so the buckets cannot be matched; "
            "read each rank alone"
        )
    return f"these ranks come from different runs: {label} lists different buckets ({listed})"
