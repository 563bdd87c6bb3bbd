"""The roofline: attainable performance min(P, I·B), and a fixed workload racing on that device.

Imports only param and numpy.

Units are decimal throughout: B in GB/s (10⁹ bytes/s), P and attainable in GFLOP/s (10⁹ FLOP/s),
the workload in GFLOP and the bytes it moves in GB, so every time below comes out in seconds.
"""

from __future__ import annotations

import numpy as np
import param

from labs.numbers import nice_at_least
from labs.timed import TimedModel

MEMORY_BOUND = "memory-bound"
COMPUTE_BOUND = "compute-bound"
AT_RIDGE = "at the ridge: memory-bound and compute-bound at once"

WORK_GFLOP = 8.0
"""The playback workload, in GFLOP: lesson 3's example (10 ms against 8 ms at I = 8, B = 100)."""

RIDGE_TOLERANCE = 1e-9
"""Relative gap between I·B and P below which the kernel counts as sitting on the ridge."""

PLAYBACK_RANGE = (4.0, 10.0)
"""Every run plays for more than 4 and at most 10 playback seconds at 1× speed."""

TIME_UNITS = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))

PACE_CAP = 1000.0
"""Before the pace ``work / elapsed`` falls to this many times P it is held there (it is infinite at 0):
three decades above the roof, above the top of any performance axis the lab draws."""

PACE_STEP = 0.1
"""Decades the pace falls between two of the trajectory's breakpoints: linear interpolation between
them is then within 1.4 % of ``work / elapsed`` (under a pixel on the lab's log axis)."""


def race_times(work: float, intensity: float, bandwidth: float, peak_compute: float) -> tuple[float, float]:
    """How long each side of the device needs for a workload, each as if it ran alone.

    Parameters
    ----------
    work : float
        FLOPs to do, in GFLOP.
    intensity : float
        I, FLOPs per byte moved.
    bandwidth : float
        B, in GB/s.
    peak_compute : float
        P, in GFLOP/s.

    Returns
    -------
    tuple of float
        ``(memory_time, compute_time)`` in seconds: bytes/B with bytes = work/I, and work/P.
    """
    return (work / intensity) / bandwidth, work / peak_compute


def playback_scale(finish: float) -> float:
    """Seconds of device time shown per second of playback, so that the run plays in 4 to 10 s.

    Parameters
    ----------
    finish : float
        When the workload finishes, in seconds of device time (positive).

    Returns
    -------
    float
        The smallest value 1, 2 or 5 × 10ᵏ with ``finish / scale ≤ 10``; then
        ``finish / scale > 4`` too, because neighbouring values differ by at most 2.5×.
    """
    return nice_at_least(finish / PLAYBACK_RANGE[1], slack=1e-12)


def _horizon(work: float, intensity: float, bandwidth: float, peak_compute: float) -> float:
    finish = max(race_times(work, intensity, bandwidth, peak_compute))
    return finish / playback_scale(finish)


class RooflineModel(TimedModel):
    """A kernel of arithmetic intensity I on a device with memory bandwidth B and compute roof P.

    The roofline bound is ``attainable = min(P, I·B)``; the ridge point ``P/B`` separates
    memory-bound kernels (left of it, I·B < P) from compute-bound ones (right of it).

    **Playback.** Play and Step run a fixed workload of ``work`` = 8 GFLOP on this device, the
    lesson's example, the same amount whatever I, B and P are. It moves ``work/I`` GB. Memory alone
    would need ``memory_time = bytes/B``; the arithmetic alone would need
    ``compute_time = work/P``. Bytes stream at B from the start (memory may run ahead of the
    arithmetic); FLOPs are done at P, but never on bytes that have not arrived yet, so after device
    time d the kernel has done ``min(P·d, I·bytes(d))`` FLOPs. Hence both finish at
    ``finish_time = max(memory_time, compute_time)`` and the achieved rate ``work / finish_time``
    is exactly ``attainable``. Below the ridge the arithmetic waits for data (FLOPs done keep pace
    with bytes moved); above it the bytes are in early and the arithmetic sets the finish.

    **Model time.** Device times range from microseconds (an H100) to minutes (a tiny intensity
    on a slow memory), so ``t`` counts *playback seconds*: one playback second is ``time_scale``
    seconds of device time, where ``time_scale`` is 1, 2 or 5 × 10ᵏ s chosen so the whole run
    plays in more than 4 and at most 10 s at 1× speed (1 ms per playback second on the teaching
    device at I = 8, B = 100: a 1000× slow motion, finishing at t = 10). ``horizon`` is the finish
    time in these units, kept in step with the controls; ``device_time = t · time_scale``.

    **The pace.** ``work / elapsed`` (:meth:`pace_at`), in GFLOP/s: the rate that would have done the
    whole workload in the device time elapsed so far. It falls from far above the roof and, since
    a rate finishes the work by now exactly when it is at least this pace, each ceiling at the
    kernel's I (I·B for memory, P for compute) is passed when that side alone would be done, and the
    pace reaches ``attainable`` exactly at the finish. The lab draws it on the roofline.
    Editing a control keeps t (clamped to the new horizon), as in every lab; playback changes
    neither I nor B nor P.
    """

    controls = ("intensity", "bandwidth", "peak_compute")
    judged_on_play = True  # the race plays the clock; I, B, P and so every answer stay as they are

    intensity = param.Number(
        default=2.0,
        bounds=(1 / 16, 4096.0),
        label="Arithmetic intensity I",
        doc="I: floating-point operations the kernel performs per byte it moves, in FLOP/byte.",
    )
    bandwidth = param.Number(
        default=200.0,
        bounds=(1.0, 100_000.0),
        label="Memory bandwidth B",
        doc="B: device-memory bandwidth in decimal GB/s (10⁹ bytes/s); not network bandwidth.",
    )
    peak_compute = param.Number(
        default=1000.0,
        bounds=(1.0, 1e7),
        label="Compute roof P",
        doc="P: the device's peak compute rate in GFLOP/s (10⁹ FLOP/s); 1000 in the lessons.",
    )
    work = param.Number(
        default=WORK_GFLOP,
        bounds=(0.0, None),
        inclusive_bounds=(False, True),
        constant=True,
        doc="The fixed workload that Step and Play run, in GFLOP; not a control.",
    )
    horizon = param.Number(
        default=_horizon(WORK_GFLOP, 2.0, 200.0, 1000.0),
        bounds=(0.1, 10000.0),
        doc=(
            "Derived, kept in step with the controls: the finish time in playback seconds, "
            "finish_time / time_scale, always in (4, 10]."
        ),
    )

    @param.depends(*controls, watch=True, on_init=True)
    def _controls_changed(self) -> None:
        horizon = _horizon(self.work, self.intensity, self.bandwidth, self.peak_compute)
        self.param.update(horizon=horizon, t=self.kept_time(horizon))

    def reset(self) -> None:
        """Put every control back to its default and t back to 0 (the horizon follows)."""
        super().reset()
        self._controls_changed()

    @property
    def attainable(self) -> float:
        """The roofline bound min(P, I·B), in GFLOP/s."""
        return float(min(self.peak_compute, self.intensity * self.bandwidth))

    @property
    def ridge(self) -> float:
        """The ridge point P/B, in FLOP/byte: where the bandwidth slope meets the roof."""
        return float(self.peak_compute / self.bandwidth)

    @property
    def at_ridge(self) -> bool:
        """Whether I·B equals P (to a relative 10⁻⁹): the kernel sits on the ridge point."""
        return bool(np.isclose(self.intensity * self.bandwidth, self.peak_compute, rtol=RIDGE_TOLERANCE, atol=0.0))

    @property
    def regime(self) -> str:
        """``"memory-bound"`` left of the ridge, ``"compute-bound"`` right of it; on it, says so."""
        if self.at_ridge:
            return AT_RIDGE
        if self.intensity * self.bandwidth < self.peak_compute:
            return MEMORY_BOUND
        return COMPUTE_BOUND

    @property
    def traffic(self) -> float:
        """Bytes the workload moves to or from memory, work/I, in GB."""
        return self.work / self.intensity

    @property
    def memory_time(self) -> float:
        """Device seconds that moving the workload's bytes at B takes: bytes/B."""
        return race_times(self.work, self.intensity, self.bandwidth, self.peak_compute)[0]

    @property
    def compute_time(self) -> float:
        """Device seconds that doing the workload's FLOPs at P takes: work/P."""
        return race_times(self.work, self.intensity, self.bandwidth, self.peak_compute)[1]

    @property
    def finish_time(self) -> float:
        """Device seconds until the workload is done: max(memory_time, compute_time)."""
        return max(self.memory_time, self.compute_time)

    @property
    def achieved_rate(self) -> float:
        """The rate the workload achieves, work / finish_time in GFLOP/s: equal to attainable."""
        return self.work / self.finish_time

    @property
    def time_scale(self) -> float:
        """Device seconds shown per playback second (1, 2 or 5 × 10ᵏ)."""
        return playback_scale(self.finish_time)

    @property
    def time_unit(self) -> tuple[str, float]:
        """The unit device times are shown in, ``(symbol, seconds)``, e.g. ``("ms", 0.001)``.

        The largest of s, ms, µs and ns in which the longest run at this scale (10 playback
        seconds) is at least 1.
        """
        longest = PLAYBACK_RANGE[1] * self.time_scale
        for symbol, seconds in TIME_UNITS:
            if longest >= seconds * (1 - 1e-12):
                return symbol, seconds
        return TIME_UNITS[-1]

    @property
    def device_time(self) -> float:
        """Device seconds elapsed at the current t: t · time_scale."""
        return self.t * self.time_scale

    def progress_at(self, device_time: float | np.ndarray) -> dict[str, np.ndarray]:
        """Percent of the bytes moved and of the FLOPs done after some device time.

        Parameters
        ----------
        device_time : float or numpy.ndarray
            Device seconds since the kernel started, ≥ 0.

        Returns
        -------
        dict of str to numpy.ndarray
            ``"bytes_pct"``: bytes moved at B, ``100·min(1, d/memory_time)``; ``"flops_pct"``:
            FLOPs done at P but only on bytes that have arrived, ``100·min(P·d, I·bytes(d))/work``.
        """
        d = np.asarray(device_time, dtype=float)
        bytes_moved = np.minimum(self.traffic, self.bandwidth * d)
        flops_done = np.minimum(self.work, np.minimum(self.peak_compute * d, self.intensity * bytes_moved))
        return {  # exactly 100 once a side is done, whatever the rounding
            "bytes_pct": np.where(d >= self.memory_time, 100.0, 100.0 * bytes_moved / self.traffic),
            "flops_pct": np.where(d >= self.finish_time, 100.0, 100.0 * flops_done / self.work),
        }

    def pace_at(self, device_time: float | np.ndarray) -> np.ndarray:
        """The pace ``work / elapsed``: the rate that would have done the whole workload by then.

        Parameters
        ----------
        device_time : float or numpy.ndarray
            Device seconds since the kernel started, ≥ 0.

        Returns
        -------
        numpy.ndarray
            GFLOP/s: ``work / device_time``, held at ``PACE_CAP · P`` before it falls there (at 0 it
            is infinite), and exactly ``attainable`` at the finish.
        """
        d = np.asarray(device_time, dtype=float)
        cap = PACE_CAP * self.peak_compute
        with np.errstate(divide="ignore"):
            pace = np.minimum(cap, self.work / d)
        return np.where(d >= self.finish_time, self.attainable, pace)

    def trajectory(self) -> dict[str, np.ndarray]:
        """Breakpoints of the race from t = 0 to the finish, for Play to interpolate between.

        Returns
        -------
        dict of str to numpy.ndarray
            ``"t"`` in playback seconds: 0, both sides' times and, in between, one breakpoint each
            time the pace falls by :data:`PACE_STEP` decades; ``"time"``, the device time in
            ``time_unit``; ``"bytes_pct"`` and ``"flops_pct"`` (see :meth:`progress_at`), exact
            under linear interpolation; and ``"pace"`` (see :meth:`pace_at`), within 1.4 %.
        """
        finish = self.finish_time
        start = self.work / (PACE_CAP * self.peak_compute)  # where the pace leaves its cap
        falls = start * 10.0 ** (PACE_STEP * np.arange(int(np.log10(finish / start) / PACE_STEP) + 1))
        d = np.unique(np.concatenate(([0.0, self.memory_time, self.compute_time], falls)))
        d = np.append(d[d < finish * (1 - 1e-9)], finish)
        d = d[np.concatenate(([True], np.diff(d) > 1e-9 * finish))]  # no two breakpoints at one time
        return {
            "t": d / self.time_scale,
            "time": d / self.time_unit[1],
            **self.progress_at(d),
            "pace": self.pace_at(d),
        }
