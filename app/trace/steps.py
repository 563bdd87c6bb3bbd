"""Training steps in a trace: ``ProfilerStep#N`` where the profile had a schedule, else split at the optimizer."""

from __future__ import annotations

from dataclasses import dataclass

from app.trace.errors import TraceError
from app.trace.events import GPU_CATEGORIES, OPTIMIZER_STEP, PROFILER_STEP, Event

STEP_DIGITS = 18
"""The most digits of ``N`` in ``ProfilerStep#N`` (ASCII digits only): a longer number is refused, never converted."""


@dataclass(frozen=True)
class Step:
    """One training step.

    Parameters
    ----------
    number : int
        ``N`` of ``ProfilerStep#N``, or the step's position (from 0) when split at the optimizer.
    label : str
        How the trace names it.
    start, end : float
        Its span in µs on the trace's clock.
    source : str
        ``"ProfilerStep"`` or ``"optimizer split"``.
    """

    number: int
    label: str
    start: float
    end: float
    source: str

    @property
    def duration(self) -> float:
        """Its length in µs."""
        return self.end - self.start


def find_steps(events: list[Event], first_ts: float | None = None) -> list[Step]:
    """The steps, in time order.

    ``ProfilerStep#N`` annotations are used when there are any. Otherwise step k runs from the end
    of the optimizer step before it (for the first one: the trace's first event, ``first_ts``) to
    the end of its own ``Optimizer.step#...`` on the host.

    Parameters
    ----------
    events : list of Event
        The kept events.
    first_ts : float, optional
        Start of the trace's first host event (µs); default: the first kept event's.

    Returns
    -------
    list of Step
        Possibly empty (no step marker and no optimizer step).
    """
    marked = []
    for ev in events:
        if ev.ph == "X" and ev.name.startswith(PROFILER_STEP) and ev.cat not in GPU_CATEGORIES:
            suffix = ev.name[len(PROFILER_STEP) :]
            if suffix.isdigit():
                if not suffix.isascii() or len(suffix) > STEP_DIGITS:
                    shown = suffix if len(suffix) <= 24 else suffix[:24] + "…"
                    raise TraceError(f"step number {shown} is more than this page reads (at most {STEP_DIGITS} digits)")
                marked.append(Step(int(suffix), ev.name, ev.ts, ev.end, "ProfilerStep"))
    if marked:
        marked.sort(key=lambda s: s.start)
        return marked
    optimizer = sorted(
        (ev for ev in events if ev.ph == "X" and ev.name.startswith(OPTIMIZER_STEP) and ev.cat not in GPU_CATEGORIES),
        key=lambda ev: ev.ts,
    )
    if not optimizer:
        return []
    if first_ts is None:
        first_ts = min(ev.ts for ev in events if ev.ph == "X")
    steps = []
    start = min(first_ts, optimizer[0].ts)
    for k, ev in enumerate(optimizer):
        steps.append(Step(k, f"step {k} (split at {ev.name})", start, ev.end, "optimizer split"))
        start = ev.end
    return steps
