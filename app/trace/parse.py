"""One rank's trace file: its rank, world size and backend, its steps, and the timeline of a step."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field, replace

from app.trace.errors import TraceError
from app.trace.events import (
    ACCUMULATE_INNER,
    BACKWARD_PREFIX,
    FSDP_MARKERS,
    OLD_BACKWARD,
    OLD_KERNEL_CATEGORY,
    OPTIMIZER_STEP,
    Event,
    compact,
)
from app.trace.links import NCCL_ANY
from app.trace.reader import MAX_WORLD, Limits, read_trace
from app.trace.refusals import FSDP_ONLY, ONE_GPU, RECORDS_DDP_FROM, TOO_OLD, WORLD_ONE, check_ranks, not_chrome
from app.trace.steps import Step, find_steps
from app.trace.timeline import StepReader, StepTimeline, collectives_named


@dataclass
class RankTrace:
    """One rank's trace, parsed: what it says about the run, and its steps.

    Parameters
    ----------
    source : str
        The file's name as given (only for messages).
    rank, world_size : int or None
        From ``distributedInfo``, else from the caller, else None.
    backend : str
        From ``distributedInfo``, else guessed from the events (``gloo``, ``nccl``, ``unknown``).
    rank_from : str
        ``"distributedInfo"``, ``"given"`` or ``"missing"``.
    steps : tuple of Step
        The steps that can be read (on a truncated file: only those read in full).
    truncated : str
        Empty, or the sentence saying where the file ended early.
    base_ns : int
        ``baseTimeNanoseconds`` (0 when absent).
    event_count : int
        Events in the file.
    """

    source: str
    rank: int | None
    world_size: int | None
    backend: str
    rank_from: str
    steps: tuple[Step, ...]
    truncated: str
    base_ns: int
    event_count: int
    _reader: StepReader = field(repr=False)
    _read: dict[int, StepTimeline] = field(default_factory=dict, repr=False)
    """The steps as parsing read them (by number), so that each is read once."""

    @property
    def needs_rank(self) -> bool:
        """Whether the trace lacks rank information (the UI should ask which rank it is)."""
        return self.rank is None

    def with_rank(self, rank: int, world_size: int | None = None) -> RankTrace:
        """The same trace with the rank (and world size) its reader says it has.

        Parameters
        ----------
        rank : int
            The rank, 0 or more.
        world_size : int, optional
            How many ranks ran; kept from the file when not given.

        Returns
        -------
        RankTrace
            A copy; a trace with ``distributedInfo`` keeps its own rank.
        """
        if self.rank_from == "distributedInfo":
            return self
        if rank < 0:
            raise TraceError(f"rank {rank} cannot be a rank: ranks count from 0", self.source)
        try:
            check_ranks(rank, world_size or self.world_size)
        except TraceError as refusal:
            raise refusal.named(self.source) from None
        return replace(self, rank=rank, world_size=world_size or self.world_size, rank_from="given")

    def with_world_size(self, world_size: int) -> RankTrace:
        """The same trace with the number of ranks its reader says the run had.

        Parameters
        ----------
        world_size : int
            p, 1 or more.

        Returns
        -------
        RankTrace
            A copy (or this trace if it already says so).

        Raises
        ------
        TraceError
            If the trace says another world size, or p is 1 (nothing to all-reduce across ranks).
        """
        if self.world_size == world_size:
            return self
        if self.world_size is not None:
            raise TraceError(f"the file says world size {self.world_size}, not {world_size}", self.source)
        if world_size < 2:
            raise TraceError(WORLD_ONE, self.source)
        if world_size > MAX_WORLD:
            raise TraceError(f"world_size {world_size} is more than this page reads (at most {MAX_WORLD})", self.source)
        if self.rank is not None and self.rank >= world_size:
            raise TraceError(f"rank {self.rank} cannot be in a run of {world_size} ranks", self.source)
        return replace(self, world_size=world_size)

    def require_rank(self) -> int:
        """The rank, or a TraceError asking for it.

        Returns
        -------
        int
            The rank.

        Raises
        ------
        TraceError
            If the trace has no ``distributedInfo`` and no rank was given.
        """
        if self.rank is None:
            raise TraceError(
                "the trace has no rank information (no distributedInfo): say which rank it is and how many ranks ran",
                self.source,
            )
        return self.rank

    def step_numbers(self) -> list[int]:
        """The numbers of the steps that can be read, in time order."""
        return [s.number for s in self.steps]

    def get_step(self, number: int | None = None) -> Step:
        """A step by number; by default the last one (after warm-up).

        Parameters
        ----------
        number : int, optional
            ``N`` of ``ProfilerStep#N``, or the position from 0 of a step split at the optimizer.

        Returns
        -------
        Step
            The step.

        Raises
        ------
        TraceError
            If there is no such step.
        """
        if number is None:
            return self.steps[-1]
        for s in self.steps:
            if s.number == number:
                return s
        listed = ", ".join(str(n) for n in self.step_numbers())
        raise TraceError(f"there is no step {number}; the steps are {listed}", self.source)

    def timeline(self, number: int | None = None) -> StepTimeline:
        """The bucket timeline of one step.

        Parameters
        ----------
        number : int, optional
            As for :meth:`get_step`.

        Returns
        -------
        StepTimeline
            The step's buckets, compute and figures.

        Raises
        ------
        TraceError
            If the step has no DDP all-reduce or cannot be read.
        """
        step = self.get_step(number)
        timeline = self._read.get(step.number)
        if timeline is None:
            try:
                timeline = self._reader.read(
                    step, self.rank, self.world_size, self.base_ns, strict=bool(self.truncated)
                )
            except TraceError as err:
                raise err.named(self.source) from None
        if (timeline.rank, timeline.world_size) != (self.rank, self.world_size):  # given after parsing
            timeline = replace(timeline, rank=self.rank, world_size=self.world_size)
        if self.truncated:
            listed = ", ".join(str(n) for n in self.step_numbers())
            note = f"{self.truncated}; the complete steps read are {listed}"
            timeline = replace(timeline, notes=(*timeline.notes, note))
        return timeline


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def parse_trace(
    data: bytes | bytearray | memoryview | list,
    *,
    source: str = "",
    rank: int | None = None,
    world_size: int | None = None,
    limits: Limits | None = None,
) -> RankTrace:
    """Parse one rank's Chrome trace (``.json``, ``.json.gz`` or a bare event list) from memory.

    Parameters
    ----------
    data : bytes-like or list
        The file's bytes, or an already decoded list of events.
    source : str, optional
        The file's name, for messages; never opened.
    rank, world_size : int, optional
        Used when the trace has no ``distributedInfo`` (which wins when present).
    limits : Limits, optional
        Size and time limits; :class:`Limits` ``()`` by default.

    Returns
    -------
    RankTrace
        The parsed trace; at least one step of it has a DDP all-reduce.

    Raises
    ------
    TraceError
        For every bad input, naming the real reason: not JSON; JSON but not a Chrome trace (an
        execution trace says so); truncated with nothing usable; over a limit; world size 1; no
        backward pass anywhere (inference); FSDP; no step; no DDP all-reduce; missing arguments.
    """
    try:
        return _parse(data, source, rank, world_size, limits or Limits())
    except TraceError as err:
        raise err.named(source) from None
    except RecursionError:
        raise TraceError("the file nests JSON too deeply to be a trace", source) from None


def _parse(data, source: str, rank: int | None, world_size: int | None, limits: Limits) -> RankTrace:
    deadline = time.monotonic() + limits.time_limit_s  # one limit for reading the file and its steps
    if isinstance(data, list):
        events: list[Event] = [e for e in (compact(raw, k) for k, raw in enumerate(data)) if e is not None]
        meta, truncated, count = {}, "", len(data)
    elif isinstance(data, bytes | bytearray | memoryview):
        raw = read_trace(data, limits)
        events, meta, truncated, count = raw.events, raw.meta, raw.truncated, raw.event_count
        if not raw.has_events and not truncated:
            raise TraceError(not_chrome(meta))
        if count and not raw.objects:
            raise TraceError(
                "the file is JSON but not a Chrome trace: its list holds no event objects (other JSON, such "
                "as a memory timeline?)"
            )
    else:
        raise TraceError("give the trace as the file's bytes or as a list of events")
    info = meta.get("distributedInfo")
    info = info if isinstance(info, dict) else {}
    if _int_or_none(info.get("rank")) is not None:
        rank, rank_from = info["rank"], "distributedInfo"
    else:
        rank_from = "given" if rank is not None else "missing"
    world_size = _int_or_none(info.get("world_size")) or world_size
    check_ranks(rank, world_size, limits.max_world_size)
    backend = info.get("backend") if isinstance(info.get("backend"), str) else None
    base = meta.get("baseTimeNanoseconds")
    base_ns = base if isinstance(base, int) and not isinstance(base, bool) else 0
    if not events and truncated:
        raise TraceError(truncated + ", before any event the analysis needs")
    names = {e.name for e in events}
    collectives = collectives_named(events) + sorted(
        {e.name for e in events if e.cat in ("kernel", OLD_KERNEL_CATEGORY) and NCCL_ANY.match(e.name)}
    )
    listed = "its collectives are " + ", ".join(collectives) if collectives else "it records no collective"
    if world_size == 1:
        raise TraceError(WORLD_ONE + ("" if collectives else "; " + listed))
    fsdp_only = any(marker in name for name in names for marker in FSDP_ONLY)
    sharded = any(marker in name for name in names for marker in FSDP_MARKERS)
    old_names = sorted(n for n in names if OLD_BACKWARD.match(n))
    new_backward = any(name.startswith(BACKWARD_PREFIX) for name in names)
    backward = new_backward or bool(old_names) or ACCUMULATE_INNER in names
    old = not new_backward and bool(old_names)
    if not fsdp_only and not backward and not truncated:
        raise TraceError(
            "the trace has no backward pass anywhere (no autograd backward node under any name it has had), "
            f"so it records inference or other work, not training; {listed}"
        )
    if not truncated and old and not any(n.startswith("c10d::allreduce") for n in names):
        on_gpu = any(e.cat in ("kernel", OLD_KERNEL_CATEGORY) for e in events)
        if world_size is None and on_gpu and not collectives:
            raise TraceError(ONE_GPU)
        example = Counter(e.name for e in events if e.name in old_names).most_common(1)[0][0]
        raise TraceError(
            TOO_OLD.format(version=RECORDS_DDP_FROM, example=example) + (f"; {listed}" if collectives else "")
        )
    one_gpu = not collectives and world_size is None and any(e.cat == "kernel" for e in events)
    if not truncated and one_gpu and any(n.startswith(OPTIMIZER_STEP) for n in names):
        raise TraceError(ONE_GPU)
    reader = StepReader(events, backend)
    steps = find_steps(events)
    if fsdp_only or (sharded and not reader.issues_everywhere):
        raise TraceError(
            "this is an FSDP trace (it shards parameters and reduce-scatters gradients), so DDP's bucket model "
            f"does not apply; {listed}"
        )
    if not steps:
        what = (
            truncated + ", before any complete step"
            if truncated
            else "no training step found (no ProfilerStep#N and no Optimizer.step#...)"
        )
        raise TraceError(what)
    usable, first_error, read = [], None, {}
    for step in steps:
        if time.monotonic() > deadline:
            raise TraceError(f"reading the steps took longer than the limit of {limits.time_limit_s:g} s")
        try:
            read[step.number] = reader.read(step, rank, world_size, base_ns, strict=bool(truncated))
            usable.append(step)
        except TraceError as err:
            first_error = first_error or err
    if not usable:
        if truncated:
            raise TraceError(truncated + ", before any complete step with a DDP all-reduce")
        if not reader.issues_everywhere:
            raise TraceError("no DDP all-reduce found (no c10d::allreduce_ in the trace: is the model wrapped in DDP?)")
        raise first_error
    return RankTrace(
        source, rank, world_size, reader.backend, rank_from, tuple(usable), truncated, base_ns, count, reader, read
    )
