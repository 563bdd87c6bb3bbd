"""The bucket timeline: one data-parallel training step on one rank, and what breaks its overlap.

Imports only param and numpy and the pure modules beside it: the controls and their text forms in
:mod:`labs.timeline.controls` (which this model extends with what follows from them), the Layers
field's language in :mod:`labs.timeline.layers`, the presets in :mod:`labs.timeline.presets`, DDP's
bucket layouts and the step's event simulation in :mod:`labs.timeline.schedule`, and what is read
from the step's schedule (the buckets, the step time, exposed communication, what the figures draw)
in :mod:`labs.timeline.readings`, whose mixin the model inherits.

Units: gradient sizes in MiB (2^20 bytes), bucket caps in MiB, backward times and every time on
the timeline in milliseconds, network bandwidth B in decimal GB/s (10^9 bytes/s), latency α in
microseconds per ring step.
"""

from __future__ import annotations

import numpy as np
import param

from labs.timed import format_number
from labs.timeline.choices import (
    AFTER_REBUILD,
    DEFAULT_CAPS,
    FIND_UNUSED,
    FIRST_ITERATION,
    ITERATIONS,
    LIBRARIES,
    MPI_NO_PROGRESS,
    MPI_PROGRESS,
    NCCL,
    NONE,
    layout_of,
    nice_step,
)
from labs.timeline.controls import TimelineControls
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
from labs.timeline.readings import SAME_STEP_MS, SWEEP_CAPS_MIB, Bucket, StepReadings, Sweep
from labs.timeline.schedule import Effects, Schedule, step_end, step_schedule

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
    "LIBRARIES",
    "MAX_LAYERS",
    "MIB",
    "MPI_NO_PROGRESS",
    "MPI_PROGRESS",
    "NCCL",
    "NONE",
    "PLAY_SECONDS",
    "PRESETS",
    "PRESET_LAYERS",
    "SAME_STEP_MS",
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


class TimelineModel(StepReadings, TimelineControls):
    """One data-parallel training step on one rank, DDP's buckets and what breaks the overlap (ms).

    **Backward.** The network's layers are given in forward order, each with a gradient size and a
    backward time. Backward starts at t = 0 with the last layer and ends with the first; a layer's
    gradient is written when its backward slot ends.

    **Buckets** (the Iteration choice). After the rebuild (iteration 2 on), gradients are bucketed in
    ready order: the first bucket closes once it holds at least the first bucket cap, every later
    one at the bucket cap, the last holds the rest. The first iteration reduces one bucket holding
    every gradient. With ``find_unused_parameters=True`` the buckets are assigned over the layers in
    registration (forward) order and the list reversed, and never rebuilt: the first cap falls on the
    first layers, whose bucket is reduced last. With ``DDP_SET_LAST_BUCKET_CAP=1`` (the
    ``last_bucket_cap`` switch) the rebuild fills the buckets from the far end of the ready order and
    turns the list back, so the small first-cap bucket holds the last gradients ready and is reduced
    last (:data:`labs.timeline.buckets.REBUILT_SMALL_LAST`); the other two layouts ignore it.

    **Network.** The ring crosses machines when ``machine_ranks`` < p and runs at its slowest
    link (:attr:`ring_bandwidth`): B with one rank per machine, the slower of B and the bandwidth
    inside a machine when machines hold several ranks, the inside bandwidth when one machine holds
    them all. Every all-reduce, the no-overlap reference and the sweep use it.

    **Straggler.** This rank is on time; the slowest rank produces every gradient d ms later, so
    every bucket is globally ready d ms after its last gradient here.

    **Host and stream.** The host issues bucket k at ``max(ready_k, issue_{k−1}) + g`` (launch gap
    g); its all-reduce starts at ``max(issue_k, end_{k−1})`` on the one stream and needs
    ``2(p−1)·α + 2(p−1)/p · n / B`` of solo time (B: :attr:`ring_bandwidth`). Launched as one NCCL
    group, or with MPI without a progress thread, no all-reduce starts before the host's last issue
    (:attr:`host_return`); in a group each counts as complete only at the group's end.

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
        self.param.update(horizon=end, step_size=nice_step(end), t=self.kept_time(end))

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

    @property
    def layout(self) -> str:
        """The bucket layout shown: the Iteration choice's, turned round by ``DDP_SET_LAST_BUCKET_CAP=1``."""
        return layout_of(self.iteration, self.last_bucket_cap)

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
            group=self.nccl_group,
            no_progress=self.progress == MPI_NO_PROGRESS,
        )

    @property
    def ring_bandwidth(self) -> float:
        """The bandwidth the ring all-reduce runs at, in GB/s: its slowest link.

        B (between machines) with one rank per machine; the slower of B and the bandwidth inside a
        machine when each machine holds more than one rank but fewer than p; the bandwidth inside a
        machine when one machine holds all p ranks.
        """
        if self.machine_ranks <= 1:
            return float(self.bandwidth)
        if self.machine_ranks >= self.ranks:
            return float(self.intra_bandwidth)
        return float(min(self.bandwidth, self.intra_bandwidth))

    @property
    def ring_link(self) -> str:
        """Which link the ring runs at, in one sentence (the network panel's line)."""
        rate = format_number(round(self.ring_bandwidth, 4))
        if self.machine_ranks >= self.ranks:
            where = "inside the one machine that holds every rank"
        elif self.machine_ranks <= 1 or self.bandwidth <= self.intra_bandwidth:
            where = "between machines"
        else:
            where = "inside a machine"
        return f"The ring runs at {rate} GB/s: its slowest link, {where}."

    def _schedule_for(self, cap: int, effects: Effects | None = None) -> Schedule:
        sizes, times = self._layer_arrays()
        return step_schedule(
            to_bytes(sizes),
            times,
            self.first_cap_bytes,
            cap,
            self.ranks,
            self.ring_bandwidth,
            self.latency,
            self.straggler,
            layout=self.layout,
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
            network = (self.ranks, self.ring_bandwidth, self.latency, self.straggler, self.layout, effects)
            steps = np.array([step_end(*fixed, cap_to_bytes(float(cap)), *network) for cap in caps])
            return Sweep(cap_mib=caps, step=steps)

        if caps_mib is not None:
            return compute()
        others = tuple(name for name in self.controls if name not in ("bucket_cap", "missing_event"))
        return self._memoized("sweep", others, compute)
