"""What the bucket timeline reads from its step's schedule: the buckets, the times and what follows.

:class:`StepReadings`, a mixin of :class:`labs.timeline.model.TimelineModel`, turns the
:class:`~labs.timeline.schedule.Schedule` of the controls as they are into the numbers the lab shows
(each bucket's times, the step time, exposed communication, the straggler's share, whether the
result is valid) and the tables the figures draw; :class:`Bucket` and :class:`Sweep` are the shapes
of two of them.

Imports only numpy and the pure modules beside it. Units as in :mod:`labs.timeline.model`: sizes in
bytes or MiB, every time in milliseconds.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

import labs.timeline.drawn as drawn
from labs.timeline.layers import MIB
from labs.timeline.schedule import ring_allreduce_ms

__all__ = ["SAME_STEP_MS", "SWEEP_CAPS_MIB", "Bucket", "StepReadings", "Sweep"]

SAME_STEP_MS = 0.005
"""Two step times closer than this (ms) are "as long" as each other: half the 0.01 ms the lab prints."""

SWEEP_CAPS_MIB: tuple[float, ...] = tuple(0.25 * 2 ** (k / 4) for k in range(49))
"""The default bucket caps of :meth:`labs.timeline.model.TimelineModel.step_time_sweep`: 0.25 to
1024 MiB, 4 per octave."""


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


class StepReadings:
    """The numbers and tables read from the step's schedule; a mixin of :class:`labs.timeline.model.TimelineModel`.

    It reads the model's ``schedule`` (one per set of controls), its controls ``ranks``,
    ``ring_bandwidth``, ``latency``, ``straggler`` and ``skipped_layer``, and its ``horizon``.
    """

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
        """How many all-reduces complete (all of them unless the step hangs; in a group, none then)."""
        return self.schedule.completed

    @property
    def bucket_complete(self) -> np.ndarray:
        """When each all-reduce counts as complete, in ms: its end, or in one NCCL group the group's end."""
        return self.schedule.bucket_complete.copy()

    def completed_at(self, t: float) -> int:
        """How many all-reduces count as complete by time ``t`` (ms).

        In one NCCL group none does before the group ends, when the last one ends, and then all do.
        """
        return int(np.count_nonzero(self.schedule.bucket_complete <= t))

    @property
    def pending_max(self) -> int:
        """The most all-reduces issued and not yet complete at any one moment of the step.

        Each holds its Work handle, its future and its flat bucket buffer from its issue until it
        completes (issue ≤ t < complete; in one NCCL group, complete is the group's end), so smaller
        buckets mean more of them held at once.
        """
        s = self.schedule
        issue, complete = s.bucket_issue, s.bucket_complete
        issued = issue[np.isfinite(issue)]
        if not issued.size:
            return 0
        return int(max(np.count_nonzero((issue <= t) & (t < complete)) for t in issued))

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
        latency = float(np.sum(ring_allreduce_ms(sizes, self.ranks, self.ring_bandwidth, self.latency)))
        payload = float(np.sum(ring_allreduce_ms(sizes, self.ranks, self.ring_bandwidth, 0.0)))
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
    def host_return(self) -> float:
        """When ``loss.backward()`` returns on the host, in ms: once it has issued the last all-reduce.

        DDP's hooks issue each bucket's all-reduce from the host, and the call that ends backward only
        makes the current stream wait for them (NCCL's ``work.wait()`` and the reducer's futures do not
        block the host). A host timer stopped right after ``backward()``, with no synchronize, reads
        this. The lab's host issues a bucket once it is ready (plus the launch gap g); a real host often
        runs further ahead of the device and returns sooner still.
        """
        issued = self.schedule.bucket_issue
        issued = issued[np.isfinite(issued)]
        return float(issued.max()) if issued.size else 0.0

    @property
    def host_unseen(self) -> float:
        """What a host timer around ``backward()`` without a synchronize misses, in ms: step end − :attr:`host_return`.

        One synchronize at the step boundary (``torch.cuda.synchronize()`` before the timer stops)
        waits for the last all-reduce, so it reads the step end; ``inf`` when the step hangs.
        """
        return self.step_time - self.host_return

    def in_flight_layers_at(self, t: float) -> int:
        """How many layers' gradients an all-reduce is summing at time ``t`` (ms).

        The layers of every bucket whose all-reduce has started by ``t`` and not yet ended. With
        ``gradient_as_bucket_view=True`` a layer's ``.grad`` is a view into its bucket, so an
        in-place change to one of these at ``t`` changes the sum in flight.
        """
        s = self.schedule
        return int(sum(len(layers) for k, layers in enumerate(s.buckets) if s.bucket_start[k] <= t < s.bucket_end[k]))

    @property
    def in_flight_layers(self) -> int:
        """:meth:`in_flight_layers_at` the current time ``t``."""
        return self.in_flight_layers_at(self.t)

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
