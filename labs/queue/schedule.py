"""The random (M/M/1) queue's schedule of events: arrivals and departures, simulated exactly, and read at any time.

:func:`simulate_mm1` runs the queue job by job from a seed (:class:`RandomPath`); :class:`RandomQueue`,
a mixin of :class:`labs.queue.model.QueueModel`, keeps the run for the controls as they are and reads
the number in the system, its time-average and its peak at any t.

Imports only numpy.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["PEAK_AGAINST_MEAN", "RandomPath", "RandomQueue", "simulate_mm1"]

PEAK_AGAINST_MEAN = ("under 1.3 × L", "1.3 to 5 × L", "over 5 × L", "no M/M/1 mean (ρ ≥ 1)")
"""What the choice quantity ``peak_against_mean`` can read: the random queue's peak so far against
the M/M/1 mean L, in three bands (their edges belong to the middle one), or no mean at all."""


class RandomPath(NamedTuple):
    """One run of the M/M/1 queue: the number in the system as a right-continuous step function.

    Attributes
    ----------
    start : int
        Jobs in the system at t = 0.
    times : numpy.ndarray
        Event times in seconds, increasing, each in (0, horizon].
    jobs : numpy.ndarray
        Jobs in the system just after each event (integers, as int64).
    area : numpy.ndarray
        ∫₀^t N(s) ds at each event time (job·seconds).
    """

    start: int
    times: np.ndarray
    jobs: np.ndarray
    area: np.ndarray


def _arrival_times(rng: np.random.Generator, rate: float, until: float) -> np.ndarray:
    """Arrival times of a Poisson process at ``rate`` on (0, until): exponential gaps, summed."""
    if rate <= 0 or until <= 0:
        return np.empty(0)
    expected = rate * until
    chunks, last = [], 0.0
    while last < until:
        gaps = rng.exponential(1.0 / rate, size=int(expected + 5 * np.sqrt(expected) + 16))
        with np.errstate(over="ignore"):  # a rate of 1e-300: the first gap is already past any horizon
            times = last + np.cumsum(gaps)
        chunks.append(times)
        last = float(times[-1])
    times = np.concatenate(chunks)
    return times[times < until]


def simulate_mm1(
    arrival_rate: float, service_rate: float, start: int, stop: float | None, horizon: float, seed: int
) -> RandomPath:
    """An exact event simulation of the M/M/1 queue from ``start`` jobs, up to ``horizon``.

    Poisson arrivals at λ (none from ``stop`` on), exponential service at μ, one server, first come
    first served; the draws come from ``numpy.random.Generator(PCG64(seed))``, arrivals first, then
    one service time per job, so a seed gives the same path every time. Departures follow
    Lindley's recursion D_k = max(A_k, D_{k−1}) + S_k, written without a Python loop:
    D = C + running max of (A − C_prev), with C the cumulative service times.

    Parameters
    ----------
    arrival_rate, service_rate : float
        λ and μ per second; μ = 0 serves nothing (jobs only arrive).
    start : int
        Jobs waiting at t = 0.
    stop : float or None
        From this time on nothing arrives; None: never.
    horizon : float
        The end of the run, in seconds.
    seed : int
        The generator's seed.

    Returns
    -------
    RandomPath
        The number in the system at every event up to the horizon.
    """
    rng = np.random.Generator(np.random.PCG64(seed))
    until = horizon if stop is None else min(stop, horizon)
    arrivals = _arrival_times(rng, arrival_rate, until)
    ready = np.concatenate([np.zeros(start), arrivals])
    if service_rate > 0 and ready.size:
        service = rng.exponential(1.0 / service_rate, size=ready.size)
        done = np.cumsum(service)
        before = done - service
        departures = done + np.maximum.accumulate(ready - before)
        departures = departures[departures <= horizon]
    else:
        departures = np.empty(0)
    times = np.concatenate([arrivals, departures])
    change = np.concatenate([np.ones(arrivals.size, dtype=np.int64), -np.ones(departures.size, dtype=np.int64)])
    order = np.argsort(times, kind="stable")
    times, jobs = times[order], start + np.cumsum(change[order])
    held = np.concatenate([[start], jobs[:-1]]) if times.size else np.empty(0, dtype=np.int64)
    area = np.cumsum(held * np.diff(np.concatenate([[0.0], times])))
    return RandomPath(start=int(start), times=times, jobs=jobs, area=area)


class RandomQueue:
    """The random queue's run and what it reads at any t; a mixin of :class:`labs.queue.model.QueueModel`.

    It reads the model's controls (``arrival_rate``, ``service_rate``, ``initial_backlog``,
    ``arrivals_stop``, ``horizon``, ``seed``), its time ``t``, and keeps the run in ``_random``.
    """

    @property
    def random_path(self) -> RandomPath:
        """The random queue's run for the controls as they are (computed once per change, then kept)."""
        stop = self.arrivals_stop
        key = (self.arrival_rate, self.service_rate, self.initial_backlog, stop, self.horizon, self.seed)
        if self._random is None or self._random[0] != key:
            start = int(round(self.initial_backlog))
            path = simulate_mm1(self.arrival_rate, self.service_rate, start, stop, self.horizon, self.seed)
            self._random = (key, path)
        return self._random[1]

    def _index(self, t: float | np.ndarray) -> np.ndarray:
        """How many events have happened by time ``t`` (an event at t counts: the path is right-continuous)."""
        return np.searchsorted(self.random_path.times, np.asarray(t, dtype=float), side="right")

    @staticmethod
    def _as_of(values: np.ndarray, k: np.ndarray, before: float) -> np.ndarray:
        """Each event's ``values`` as they stand after the ``k`` first events; ``before`` while k is 0."""
        return np.where(k > 0, values[np.maximum(k - 1, 0)] if values.size else before, before)

    def random_jobs_at(self, t: float | np.ndarray) -> float | np.ndarray:
        """Jobs in the random queue at time ``t`` (whole numbers).

        Parameters
        ----------
        t : float or numpy.ndarray
            Model time(s) in seconds.

        Returns
        -------
        float or numpy.ndarray
            The count after every event up to t.
        """
        path = self.random_path
        k = self._index(t)
        jobs = self._as_of(path.jobs, k, path.start)
        return float(jobs) if np.ndim(jobs) == 0 else jobs.astype(float)

    @property
    def random_jobs(self) -> float:
        """Jobs in the random queue now, at the current t."""
        return self.random_jobs_at(self.t)

    def random_average_at(self, t: float | np.ndarray) -> float | np.ndarray:
        """The random queue's time-average number in the system over [0, t]: (1/t)·∫₀^t N(s) ds.

        Parameters
        ----------
        t : float or numpy.ndarray
            Model time(s) in seconds; at 0 the average is the count at 0.

        Returns
        -------
        float or numpy.ndarray
            Jobs.
        """
        path = self.random_path
        t = np.asarray(t, dtype=float)
        k = self._index(t)
        last, area = self._as_of(path.times, k, 0.0), self._as_of(path.area, k, 0.0)
        jobs = np.asarray(self.random_jobs_at(t), dtype=float)
        total = area + jobs * (t - last)
        with np.errstate(invalid="ignore", divide="ignore"):
            average = np.where(t > 0, total / np.where(t > 0, t, 1.0), float(path.start))
        return float(average) if np.ndim(average) == 0 else average

    @property
    def random_average(self) -> float:
        """The random queue's time-average number in the system since 0, at the current t."""
        return self.random_average_at(self.t)

    def random_peak_at(self, t: float | np.ndarray) -> float | np.ndarray:
        """The most jobs the random queue has held at any time in [0, t].

        Parameters
        ----------
        t : float or numpy.ndarray
            Model time(s) in seconds.

        Returns
        -------
        float or numpy.ndarray
            Jobs (whole numbers).
        """
        path = self.random_path
        running = np.maximum.accumulate(np.concatenate([[path.start], path.jobs]))
        peak = running[self._index(t)]
        return float(peak) if np.ndim(peak) == 0 else peak.astype(float)

    @property
    def random_peak(self) -> float:
        """The most jobs the random queue has held so far, up to the current t."""
        return self.random_peak_at(self.t)

    @property
    def peak_against_mean(self) -> str:
        """The random queue's peak so far over the M/M/1 mean L, as one of :data:`PEAK_AGAINST_MEAN`.

        A read-only choice reading for exercises: one run's peak is too spread across seeds to ask
        for as a number (at ρ = 0.9 over 500 s its 5–95% range is 13 to 39 jobs), while its band
        against L holds for most seeds (``bench/random_queue_spread.py``).
        """
        reference = self.mm1
        if reference is None:
            return PEAK_AGAINST_MEAN[3]
        ratio = self.random_peak / reference.L
        if ratio < 1.3:
            return PEAK_AGAINST_MEAN[0]
        return PEAK_AGAINST_MEAN[1] if ratio <= 5.0 else PEAK_AGAINST_MEAN[2]
