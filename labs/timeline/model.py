"""The bucket timeline: one data-parallel training step on one rank, and what breaks its overlap.

Imports only param and numpy and the pure modules beside it: the controls and their text forms in
:mod:`labs.timeline.controls` (which this model extends with what follows from them), the Layers
field's language in :mod:`labs.timeline.layers`, the presets in :mod:`labs.timeline.presets`, DDP's
bucket layouts and the step's event simulation in :mod:`labs.timeline.schedule`, and what the
figures draw in :mod:`labs.timeline.drawn`.

Units: gradient sizes in MiB (2^20 bytes), bucket caps in MiB, backward times and every time on
the timeline in milliseconds, network bandwidth B in decimal GB/s (10^9 bytes/s), latency α in
microseconds per ring step.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import param

import labs.timeline.drawn as drawn
from labs.timed import format_number
from labs.timeline.controls import (
    AFTER_REBUILD,
    DEFAULT_CAPS,
    FIND_UNUSED,
    FIRST_ITERATION,
    ITERATIONS,
    LAYOUT_OF,
    NONE,
    TimelineControls,
    nice_step,
)
from labs.timeline.layers import (
    MAX_LAYERS,
    MIB,
    SIZE_RANGE_MIB,
    TIME_RANGE_MS,
    cap_to_bytes,
    format_layers,
    parse_layers,
    to_bytes,
)
from labs.timeline.presets import (
    CUSTOM,
    EMBEDDING_FIRST,
    EQUAL_LAYERS,
    EQUAL_LAYERS_BF16,
    PRESET_LAYERS,
    PRESETS,
    matching_preset,
    preset_layers,
)
from labs.timeline.schedule import Effects, Schedule, ring_allreduce_ms, step_end, step_schedule

__all__ = [
    "AFTER_REBUILD",
    "CUSTOM",
    "DEFAULT_CAPS",
    "EMBEDDING_FIRST",
    "EQUAL_LAYERS",
    "EQUAL_LAYERS_BF16",
    "FIND_UNUSED",
    "FIRST_ITERATION",
    "ITERATIONS",
    "MAX_LAYERS",
    "MIB",
    "NONE",
    "PLAY_SECONDS",
    "PRESETS",
    "PRESET_LAYERS",
    "SIZE_RANGE_MIB",
    "SWEEP_CAPS_MIB",
    "TIME_RANGE_MS",
    "Bucket",
    "Sweep",
    "TimelineModel",
    "format_layers",
    "nice_step",
    "parse_layers",
    "preset_layers",
    "to_bytes",
]

PLAY_SECONDS = 4.0
"""How long Play takes at 1× to show a whole step, whatever its length in ms."""

SAME_STEP_MS = 0.005
"""Two step times closer than this (ms) are "as long" as each other: half the 0.01 ms the lab prints."""

SWEEP_CAPS_MIB: tuple[float, ...] = tuple(0.25 * 2 ** (k / 4) for k in range(49))
"""The default bucket caps of :meth:`TimelineModel.step_time_sweep`: 0.25 to 1024 MiB, 4 per octave."""


class Bucket(NamedTuple):
    """One bucket of the step and its all-reduce (times in ms; ``inf`` for a time that never comes).

    Attributes
    ----------
    layers : tuple of int
        The layers it holds, as forward-order indices from 0, in ready order.
    nbytes : int
        Its size in bytes.
    mib : float
        Its size in MiB.
    ready : float
        When every rank has produced all its gradients.
    issue : float
        When the host issues its all-reduce.
    start, end : float
        Its all-reduce on the communication stream.
    """

    layers: tuple[int, ...]
    nbytes: int
    mib: float
    ready: float
    issue: float
    start: float
    end: float

    @property
    def cost(self) -> float:
        """How long its all-reduce takes, in ms."""
        return self.end - self.start


class Sweep(NamedTuple):
    """The step time against the bucket cap; unpacks as ``caps, steps``.

    Attributes
    ----------
    cap_mib : numpy.ndarray
        Bucket caps in MiB.
    step : numpy.ndarray
        The step time in ms at each cap, every other control as it is (``inf`` where the step hangs).
    """

    cap_mib: np.ndarray
    step: np.ndarray


class TimelineModel(TimelineControls):
    """One data-parallel training step on one rank, DDP's buckets and what breaks the overlap (ms).

    **Backward.** The network's layers are given in forward order, each with a gradient size and a
    backward time. Backward starts at t = 0 with the last layer and ends with the first; a layer's
    gradient is written when its backward slot ends.

    **Buckets** (the Iteration choice). After the rebuild (iteration 2 on), gradients are bucketed in
    ready order: the first bucket closes once it holds at least the first bucket cap, every later
    one at the bucket cap, the last holds the rest. The first iteration reduces one bucket holding
    every gradient. With ``find_unused_parameters=True`` the buckets are assigned over the layers in
    registration (forward) order and the list reversed, and never rebuilt: the first cap falls on the
    first layers, whose bucket is reduced last.

    **Straggler.** This rank is on time; the slowest rank produces every gradient d ms later, so
    every bucket is globally ready d ms after its last gradient here.

    **Host and stream.** The host issues bucket k at ``max(ready_k, issue_{k−1}) + g`` (launch gap
    g); its all-reduce starts at ``max(issue_k, end_{k−1})`` on the one stream and needs
    ``2(p−1)·α + 2(p−1)/p · n / B`` of solo time.

    **What breaks the ideal** (:class:`labs.timeline.schedule.Effects`): contention (backward at
    1/s_c of its rate while an all-reduce is in flight, the all-reduce at 1/s_m while backward
    runs), a missing event on one bucket (issued without waiting for its gradients), an optimizer
    that does not wait, a synchronization after every bucket (backward stops while each runs), and
    a rank that skips one layer's gradient (the step hangs unless the reducer marks unused
    gradients ready, as with ``find_unused_parameters=True``).

    **Step.** The optimizer starts at ``max(backward end, last all-reduce end)`` (at backward end if
    it does not wait); exposed communication is ``step end − backward end``. A result is invalid
    when an all-reduce read a gradient before every rank wrote it or the optimizer read one before
    its all-reduce ended. The no-overlap reference is backward, then one all-reduce of everything.

    **Time.** ``t`` is in ms since backward began; the horizon is the end of everything drawn (the
    step end, or the end of an all-reduce the optimizer did not wait for, or a stretch past the
    last event of a step that hangs); one Step is :func:`nice_step` of it, and Play shows the whole
    of it in :data:`PLAY_SECONDS` at 1× (:attr:`play_rate`). Editing a control keeps t, clamped.

    Every output is derived from the controls; the horizon and the step size are kept in step with
    them by one reaction (the shared transport reads them as parameters).
    """

    def __init__(self, **params):
        preset = params.get("preset", EQUAL_LAYERS)
        if "layers" not in params and preset != CUSTOM:
            params["layers"] = preset_layers(preset)
        self._parsed_text: str | None = None
        self._parsed: tuple[np.ndarray, np.ndarray] = (np.empty(0), np.empty(0))
        self._memo: dict[str, tuple[tuple, object]] = {}
        super().__init__(**params)
        self._layer_arrays()  # refuse bad layers given to the constructor
        self.preset = matching_preset(*self._layer_arrays())
        self._controls_changed()

    def reset(self) -> None:
        """Put every control back to its default and t back to 0 (horizon and step follow)."""
        super().reset()
        self._controls_changed()

    @property
    def play_rate(self) -> float:
        """Ms of the step that Play shows per second at 1×: the whole step in :data:`PLAY_SECONDS`."""
        return self.horizon / PLAY_SECONDS

    @param.depends("layers", watch=True)
    def _layers_changed(self) -> None:
        self.preset = matching_preset(*self._layer_arrays())

    @param.depends("preset", watch=True)
    def _preset_chosen(self) -> None:
        if self.preset == CUSTOM:
            self.preset = matching_preset(*self._layer_arrays())  # Custom is what edited layers read as
        else:
            self.layers = preset_layers(self.preset)

    @param.depends(*TimelineControls.controls, watch=True)
    def _controls_changed(self) -> None:
        gone = {}
        if self.missing_event is not None and self.missing_event > self.bucket_count:
            gone["missing_event"] = None  # that bucket no longer exists
        if self.skipped_layer is not None and self.skipped_layer > self.layer_count:
            gone["skipped_layer"] = None
        if gone:
            self.param.update(**gone)  # comes back here once more
            return
        end = self.display_end
        self.param.update(horizon=end, step_size=nice_step(end), t=min(self.t, end))

    # ----- the network -----------------------------------------------------------------------------

    def _layer_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        if self._parsed_text != self.layers:
            self._parsed = parse_layers(self.layers)
            self._parsed_text = self.layers
        return self._parsed

    @property
    def layer_count(self) -> int:
        """L, the number of layers."""
        return len(self._layer_arrays()[0])

    @property
    def sizes_mib(self) -> np.ndarray:
        """Each layer's gradient size in MiB, forward order."""
        return self._layer_arrays()[0].copy()

    @property
    def backward_times(self) -> np.ndarray:
        """Each layer's backward time in ms, forward order."""
        return self._layer_arrays()[1].copy()

    @property
    def sizes_bytes(self) -> np.ndarray:
        """Each layer's gradient size in whole bytes (see :func:`to_bytes`), forward order."""
        return to_bytes(self._layer_arrays()[0])

    @property
    def total_bytes(self) -> int:
        """All gradients together, in bytes."""
        return int(self.sizes_bytes.sum())

    @property
    def first_cap_bytes(self) -> int:
        """The first bucket's limit in bytes."""
        return cap_to_bytes(self.first_bucket_cap)

    @property
    def cap_bytes(self) -> int:
        """Every later bucket's limit in bytes."""
        return cap_to_bytes(self.bucket_cap)

    @property
    def first_iteration(self) -> bool:
        """Whether the first iteration (one bucket) is shown."""
        return self.iteration == FIRST_ITERATION

    @property
    def ddp_call(self) -> str:
        """Which DDP call gives the current caps, in words (PyTorch 2.13, checked by the fixtures).

        ``bucket_cap_mb`` left unset gives 25 MiB buckets after a 1 MiB first one; an explicit
        ``bucket_cap_mb`` caps every bucket, the first included.
        """
        first, cap = self.first_bucket_cap, self.bucket_cap
        if (first, cap) == DEFAULT_CAPS:
            return "DDP(model): bucket_cap_mb unset gives a 1 MiB first bucket, then 25 MiB buckets"
        if first == cap:
            return f"DDP(model, bucket_cap_mb={format_number(cap)}): an explicit cap applies to the first bucket too"
        return (
            "No DDP call gives these two caps: bucket_cap_mb unset gives 1 and 25 MiB, and an explicit "
            "bucket_cap_mb sets the first bucket's cap too"
        )

    # ----- the step ------------------------------------------------------------------------------

    @property
    def effects(self) -> Effects:
        """What breaks the ideal overlap, from the controls (indices from 0)."""
        return Effects(
            compute_slowdown=self.compute_slowdown,
            comm_slowdown=self.comm_slowdown,
            launch_gap=self.launch_gap,
            missing_event=None if self.missing_event is None else self.missing_event - 1,
            optimizer_waits=self.optimizer_waits,
            sync_each=self.sync_each,
            skipped_layer=None if self.skipped_layer is None else self.skipped_layer - 1,
            marks_unused=self.iteration == FIND_UNUSED,
        )

    def _schedule_for(self, cap: int, effects: Effects | None = None) -> Schedule:
        sizes, times = self._layer_arrays()
        return step_schedule(
            to_bytes(sizes),
            times,
            self.first_cap_bytes,
            cap,
            self.ranks,
            self.bandwidth,
            self.latency,
            self.straggler,
            layout=LAYOUT_OF[self.iteration],
            effects=self.effects if effects is None else effects,
        )

    def _memoized(self, what: str, names: tuple[str, ...], compute):
        key = tuple(getattr(self, name) for name in names)
        held = self._memo.get(what)
        if held is None or held[0] != key:
            held = self._memo[what] = (key, compute())
        return held[1]

    @property
    def schedule(self) -> Schedule:
        """The whole timeline under the current controls (computed once per set of controls)."""
        return self._memoized("schedule", self.controls, lambda: self._schedule_for(self.cap_bytes))

    @property
    def buckets(self) -> tuple[Bucket, ...]:
        """The buckets in bucket order (the order they are reduced): layers, size, ready, issue, start, end."""
        s = self.schedule
        return tuple(
            Bucket(
                layers=layers,
                nbytes=int(s.bucket_bytes[k]),
                mib=float(s.bucket_bytes[k] / MIB),
                ready=float(s.bucket_ready[k]),
                issue=float(s.bucket_issue[k]),
                start=float(s.bucket_start[k]),
                end=float(s.bucket_end[k]),
            )
            for k, layers in enumerate(s.buckets)
        )

    @property
    def bucket_count(self) -> int:
        """K, the number of buckets."""
        return len(self.schedule.buckets)

    @property
    def bucket_bytes(self) -> np.ndarray:
        """Each bucket's size in bytes."""
        return self.schedule.bucket_bytes.copy()

    @property
    def bucket_mib(self) -> np.ndarray:
        """Each bucket's size in MiB."""
        return self.schedule.bucket_bytes / MIB

    @property
    def bucket_ready(self) -> np.ndarray:
        """When each bucket is ready on every rank, in ms."""
        return self.schedule.bucket_ready.copy()

    @property
    def bucket_issue(self) -> np.ndarray:
        """When the host issues each bucket's all-reduce, in ms."""
        return self.schedule.bucket_issue.copy()

    @property
    def bucket_start(self) -> np.ndarray:
        """When each bucket's all-reduce starts, in ms (``inf``: never)."""
        return self.schedule.bucket_start.copy()

    @property
    def bucket_end(self) -> np.ndarray:
        """When each bucket's all-reduce ends, in ms (``inf``: never)."""
        return self.schedule.bucket_end.copy()

    @property
    def bucket_cost(self) -> np.ndarray:
        """How long each bucket's all-reduce takes, in ms (``inf``: never ends; ``nan``: never starts)."""
        return drawn.durations(self.schedule)

    @property
    def backward_end(self) -> float:
        """When this rank's backward ends, in ms (the sum of the backward times, without contention)."""
        return self.schedule.backward_end

    @property
    def backward_lost(self) -> float:
        """Backward time lost to contention, in ms: its length minus its solo time and its stalls."""
        return self.schedule.backward_lost

    @property
    def backward_stalled(self) -> float:
        """How long backward stood still for synchronizations, in ms."""
        return self.schedule.backward_stalled

    @property
    def hangs(self) -> bool:
        """Whether the step hangs: an all-reduce that one rank never issues."""
        return self.schedule.hangs

    @property
    def hung_bucket(self) -> int | None:
        """The bucket (numbered from 1) whose all-reduce never completes, or None."""
        hung = self.schedule.hung_bucket
        return None if hung is None else hung + 1

    @property
    def completed(self) -> int:
        """How many all-reduces complete (all of them unless the step hangs)."""
        return self.schedule.completed

    @property
    def valid(self) -> bool:
        """Whether every all-reduce read written gradients and the optimizer read reduced ones."""
        return self.schedule.valid

    @property
    def result(self) -> str:
        """``"valid"`` or ``"invalid"``: :attr:`valid` in the words a choice exercise offers."""
        return "valid" if self.valid else "invalid"

    @property
    def against_no_overlap(self) -> str:
        """The step against the no-overlap step: ``"shorter"``, ``"as long"`` (to 0.005 ms) or ``"longer"``."""
        difference = self.step_time - self.no_overlap_step
        if abs(difference) <= SAME_STEP_MS:
            return "as long"
        return "shorter" if difference < 0 else "longer"

    @property
    def cost_share(self) -> str:
        """What the all-reduces' solo time mostly pays for: latency, payload, or both alike.

        The ring's 2(p − 1)·α per bucket against 2(p − 1)/p · S / B for its bytes, summed over the
        buckets: ``"mostly latency"``, ``"mostly payload"`` or ``"half and half"`` (within 1%).
        """
        sizes = np.array([bucket.nbytes for bucket in self.buckets], dtype=float)
        latency = float(np.sum(ring_allreduce_ms(sizes, self.ranks, self.bandwidth, self.latency)))
        payload = float(np.sum(ring_allreduce_ms(sizes, self.ranks, self.bandwidth, 0.0)))
        latency -= payload
        if abs(latency - payload) <= 0.01 * max(latency, payload):
            return "half and half"
        return "mostly latency" if latency > payload else "mostly payload"

    @property
    def read_early(self) -> tuple[int, ...]:
        """Layers (numbered from 1) whose gradient an all-reduce read before every rank wrote it."""
        return tuple(i + 1 for i in self.schedule.read_early)

    @property
    def optimizer_early(self) -> tuple[int, ...]:
        """Layers (numbered from 1) whose gradient the optimizer read before their all-reduce ended."""
        return tuple(i + 1 for i in self.schedule.optimizer_early)

    @property
    def step_time(self) -> float:
        """The step end in ms: when the optimizer starts (``inf`` when the step hangs)."""
        return self.schedule.step_end

    @property
    def exposed(self) -> float:
        """Exposed communication in ms: step end − backward end on this rank (``inf`` when it hangs)."""
        return self.schedule.step_end - self.schedule.backward_end

    @property
    def exposed_interval(self) -> tuple[float, float]:
        """The exposed tail ``(backward end, step end)`` in ms, for shading."""
        return self.schedule.backward_end, self.schedule.step_end

    @property
    def comm_time(self) -> float:
        """The all-reduce stream's busy time in ms: the sum of every bucket's all-reduce."""
        return float(self.bucket_cost.sum())

    @property
    def no_overlap_step(self) -> float:
        """The reference step without overlap, in ms: backward, then one all-reduce of everything."""
        return self.schedule.no_overlap_step

    @property
    def slowest_backward_end(self) -> float:
        """When the slowest rank's backward ends, in ms: this rank's backward end plus the straggler delay."""
        return self.schedule.backward_end + self.straggler

    @property
    def slowest_rank_exposed(self) -> float:
        """Exposed communication on the slowest rank, in ms: step end − its backward end."""
        return max(0.0, self.schedule.step_end - self.slowest_backward_end)

    @property
    def straggler_wait(self) -> float:
        """Of this rank's exposed time, the part spent waiting for the slowest rank's gradients, in ms.

        The rest, :attr:`slowest_rank_exposed`, is what the slowest rank itself sees after its
        backward: communication the network still had to do.
        """
        return self.exposed - self.slowest_rank_exposed

    @property
    def read_early_count(self) -> int:
        """How many layers' gradients an all-reduce read before every rank had written them."""
        return len(self.schedule.read_early)

    @property
    def optimizer_early_count(self) -> int:
        """How many layers' gradients the optimizer read before their all-reduce ended."""
        return len(self.schedule.optimizer_early)

    @property
    def display_end(self) -> float:
        """Where the drawn timeline ends, in ms (:func:`labs.timeline.drawn.display_end`)."""
        return drawn.display_end(self.schedule)

    def bucket_table(self) -> dict[str, np.ndarray]:
        """The buckets as a table, one row each (:func:`labs.timeline.drawn.bucket_table`)."""
        return drawn.bucket_table(self.schedule, self.skipped_layer)

    def intervals(self) -> dict[str, dict[str, np.ndarray]]:
        """The Gantt's pieces of the step, clipped at the horizon (:func:`labs.timeline.drawn.intervals`)."""
        return drawn.intervals(self.schedule, self.horizon)

    def trajectory(self) -> dict[str, np.ndarray]:
        """The step's progress breakpoints up to the horizon (:func:`labs.timeline.drawn.trajectory`)."""
        return drawn.trajectory(self.schedule, self.horizon)

    def step_time_sweep(self, caps_mib: list[float] | np.ndarray | None = None) -> Sweep:
        """The step under every other control as it is, for a range of bucket caps.

        In the first iteration every cap gives the same one-bucket step. A missing event names a
        bucket of the current layout, so the sweep leaves it out (every bucket waits); every other
        control counts. Where the step hangs the sweep reads ``inf``.

        Parameters
        ----------
        caps_mib : sequence of float, optional
            Bucket caps in MiB, each above 0; by default :data:`SWEEP_CAPS_MIB`, 0.25 to 1024 MiB
            (computed once per set of the other controls).

        Returns
        -------
        Sweep
            ``(cap_mib, step)``: the caps and the step time in ms at each.
        """

        def compute() -> Sweep:
            caps = np.array(SWEEP_CAPS_MIB if caps_mib is None else caps_mib, dtype=float)
            effects = self.effects._replace(missing_event=None)
            sizes, times = self._layer_arrays()
            fixed = (to_bytes(sizes), times, self.first_cap_bytes)
            network = (self.ranks, self.bandwidth, self.latency, self.straggler, LAYOUT_OF[self.iteration], effects)
            steps = np.array([step_end(*fixed, cap_to_bytes(float(cap)), *network) for cap in caps])
            return Sweep(cap_mib=caps, step=steps)

        if caps_mib is not None:
            return compute()
        others = tuple(name for name in self.controls if name not in ("bucket_cap", "missing_event"))
        return self._memoized("sweep", others, compute)
