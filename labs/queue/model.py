"""The fluid queue: a backlog fed at rate λ and served at rate μ, the M/M/1 reference, a random queue.

Switched on, the random (M/M/1) queue is simulated event by event and drawn beside the fluid line.

Imports only param and numpy.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import param

from labs.timed import InvalidInput, TimedModel, format_number

MIN_SERVICE_RATE = 0.001
"""The smallest μ the lab takes: below it the M/M/1 figures (1/μ, λ/μ) run past any useful size,
and at 5e-324 (the smallest float) 1/μ is not even a float."""


class MM1Reference(NamedTuple):
    """Steady-state means of the M/M/1 queue (Poisson arrivals, exponential service, one server).

    Attributes
    ----------
    rho : float
        Utilisation λ/μ, below 1.
    L : float
        Mean number in the system, ρ/(1−ρ).
    Lq : float
        Mean number waiting, ρ²/(1−ρ).
    W : float
        Mean time in the system in seconds, 1/(μ−λ).
    Wq : float
        Mean time waiting in seconds, ρ/(μ−λ).
    """

    rho: float
    L: float
    Lq: float
    W: float
    Wq: float


RANDOM_HORIZON = 500.0
"""The horizon while the random queue is on, in model seconds: long enough for its time-average to
settle near L at moderate ρ (at ρ = 0.5 and μ = 2 its standard error is about 0.15 job)."""

MAX_DRAWN_EVENTS = 2000
"""The most events of the random path sent to the page exactly (about 90 kB of JSON at the defaults'
930 events). Above (λ above about 2/s over 500 s) the page is sent the number in the system sampled
at this many even times instead, held as steps, about 150 kB: the picture stays honest at that
scale, the readout's ``random`` is then the count at the last sample, and the page is not sent
several hundred kilobytes on every edit. The quantities (``random_jobs`` ...) always read the exact
path."""

_SWITCH_WORDS = {"true": True, "on": True, "yes": True, "false": False, "off": False, "no": False}


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


class QueueModel(TimedModel):
    """Fluid backlog ``q(t) = max(0, q0 + (λ − μ)·t)`` in normalized work units.

    Editing λ or μ keeps t and recomputes the whole path from q0 (the initial-value formula),
    never from the backlog shown before the edit.

    **Arrivals stop at T** (optional; default never). From time T on no work arrives (λ = 0), so
    whatever is left drains at μ: ``q(t) = max(0, q(T) − μ·(t − T))`` for t > T. This is the
    exposed tail in queue form: backward ends at T, gradients stop arriving, and the network
    needs ``q(T)/μ`` more seconds to clear what is left.

    **Random queue (M/M/1)** (optional; default off, and then nothing above changes). Switched on,
    the lab also runs the queue the M/M/1 panel describes, exactly, job by job
    (:func:`simulate_mm1`): Poisson arrivals at λ (none after T), exponential service at μ, one
    server, starting with round(q0) jobs, drawn from the seed. The run is computed once per change
    of the controls and read at any t: jobs in the system (``random_jobs``), their time-average
    since 0 (``random_average``) and the most seen so far (``random_peak``). While it is on the
    horizon is :data:`RANDOM_HORIZON`, long enough for the average to settle.
    """

    controls = ("arrival_rate", "service_rate", "initial_backlog", "arrivals_stop", "random_queue", "seed")
    typed_controls = ("arrival_rate", "service_rate", "initial_backlog", "arrivals_stop")
    """The fluid queue's controls, each typed into a field of its own."""
    switch_controls = ("random_queue",)
    """The controls that are on or off (checkboxes); an exercise sets them with true or false."""

    arrival_rate = param.Number(
        default=1.0,
        bounds=(0.0, 100.0),
        label="Arrival rate λ",
        doc="λ: work arriving per second, in normalized work units per second.",
    )
    service_rate = param.Number(
        default=2.0,
        bounds=(MIN_SERVICE_RATE, 100.0),
        label="Service rate μ",
        doc=(
            "μ: work the server completes per second while busy, in work units per second; at least "
            "0.001 (one unit in 1000 s), so that 1/μ and λ/μ stay figures a person can read."
        ),
    )
    initial_backlog = param.Number(
        default=4.0,
        bounds=(0.0, 1000.0),
        label="Initial backlog q0",
        doc="q0: work units waiting at t = 0.",
    )
    arrivals_stop = param.Number(
        default=None,
        allow_None=True,
        bounds=(0.0, 1000.0),
        label="Arrivals stop at",
        doc="T: the time from which no work arrives (λ = 0) and the backlog drains at μ; None: never.",
    )
    random_queue = param.Boolean(
        default=False,
        label="Random queue (M/M/1)",
        doc=(
            "On: also simulate the M/M/1 queue (Poisson arrivals at λ, exponential service at μ, one "
            "server, round(q0) jobs at t = 0) and draw its jobs in the system and their running average; "
            f"the horizon is then {RANDOM_HORIZON:g} s. Off: the fluid queue alone, as before."
        ),
    )
    seed = param.Integer(
        default=2026,
        bounds=(0, 999_999),
        label="Seed",
        doc=(
            "The random queue's seed: a whole number; the same seed gives the same path (the default "
            "is fixed, so a lesson's run is the same for every student)."
        ),
    )

    def __init__(self, **params):
        self._random: tuple[tuple, RandomPath] | None = None
        super().__init__(**params)
        if self.random_queue:
            self._random_switched()

    @param.depends("random_queue", watch=True)
    def _random_switched(self) -> None:
        """Switched on, the horizon is at least :data:`RANDOM_HORIZON`; off, back to its default."""
        horizon = max(self.horizon, RANDOM_HORIZON) if self.random_queue else self.param["horizon"].default
        self.param.update(horizon=horizon, t=min(self.t, horizon))

    def parse(self, name: str, raw: object) -> float | int | bool | None:
        """As :meth:`labs.timed.TimedModel.parse`; the switch takes true/false (on/off), the seed a whole number.

        Parameters
        ----------
        name : str
            The parameter name of a control.
        raw : object
            The typed text, a number or a switch's state.

        Returns
        -------
        float, int, bool or None
            The value to set.

        Raises
        ------
        InvalidInput
            If the value is refused; the message says why and what is kept.
        """
        if name in self.switch_controls:
            if isinstance(raw, bool):
                return raw
            word = str(raw).strip().lower()
            if word in _SWITCH_WORDS:
                return _SWITCH_WORDS[word]
            state = "on" if getattr(self, name) else "off"
            raise InvalidInput(f"{self.param[name].label}: {str(raw).strip()!r} is neither on nor off; kept {state}.")
        value = super().parse(name, raw)
        if name == "seed":
            if not float(value).is_integer():
                raise InvalidInput(
                    f"Seed must be a whole number, not {format_number(value)}; {self.describe_range(name)}; "
                    f"kept {self.shown_value(name)}."
                )
            return int(value)
        return value

    @property
    def net_rate(self) -> float:
        """λ − μ: how fast the backlog changes while it is positive, in units per second."""
        return self.arrival_rate - self.service_rate

    @property
    def rho(self) -> float:
        """Utilisation ρ = λ/μ."""
        return self.arrival_rate / self.service_rate

    @property
    def drain_time(self) -> float | None:
        """When the backlog first reaches zero, or None if it never drains.

        ``q0/(μ − λ)`` when that comes first; otherwise, once arrivals stop at T,
        ``T + q(T)/μ`` (the tail after the stop). Without a stop time a backlog that does not
        shrink never drains.
        """
        stop = self.arrivals_stop
        if self.net_rate < 0:
            while_arriving = self.initial_backlog / -self.net_rate
        elif self.initial_backlog == 0 and self.net_rate == 0:
            while_arriving = 0.0
        else:
            while_arriving = None
        if while_arriving is not None and (stop is None or while_arriving <= stop):
            return while_arriving
        if stop is None:
            return None
        return stop + self.backlog_at(stop) / self.service_rate

    def backlog_at(self, t: float | np.ndarray) -> float | np.ndarray:
        """Backlog at time ``t`` under the current controls, from the initial-value formula.

        Parameters
        ----------
        t : float or numpy.ndarray
            Model time(s) in seconds, t ≥ 0.

        Returns
        -------
        float or numpy.ndarray
            ``max(0, q0 + (λ − μ)·t)``; once arrivals stop at T, ``max(0, q(T) − μ·(t − T))``.
        """
        t = np.asarray(t, dtype=float)
        stop = self.arrivals_stop
        if stop is None:
            q = np.maximum(0.0, self.initial_backlog + self.net_rate * t)
        else:
            arriving = np.maximum(0.0, self.initial_backlog + self.net_rate * np.minimum(t, stop))
            q = np.where(t > stop, np.maximum(0.0, arriving - self.service_rate * (t - stop)), arriving)
        return float(q) if np.ndim(q) == 0 else q

    @property
    def backlog(self) -> float:
        """Backlog now, at the current t."""
        return self.backlog_at(self.t)

    @property
    def mm1(self) -> MM1Reference | None:
        """The M/M/1 steady-state means for these rates, or None when ρ ≥ 1 (no steady state).

        Computed from the gap μ − λ, which is exact in floating point when λ is close to μ, not from
        1 − ρ, which is not: at λ = 99.99999999999999, μ = 100, ρ/(1 − ρ) gives 9.0 × 10^15 but
        λ/(μ − λ) gives the true 7.04 × 10^15.
        """
        lam, mu = self.arrival_rate, self.service_rate
        if lam >= mu:
            return None
        gap = mu - lam
        rho = lam / mu
        return MM1Reference(rho=rho, L=lam / gap, Lq=rho * lam / gap, W=1 / gap, Wq=rho / gap)

    def fluid_trajectory(self) -> dict[str, np.ndarray]:
        """Breakpoints of the fluid backlog path from 0 to the horizon (exact under linear interpolation).

        Returns
        -------
        dict of str to numpy.ndarray
            ``"t"`` and ``"backlog"``: t = 0, the stop time and the drain time where they fall
            inside, and the horizon (the path bends only at those).
        """
        inside = {x for x in (self.arrivals_stop, self.drain_time) if x is not None and 0 < x < self.horizon}
        t = np.array([0.0, *sorted(inside), self.horizon])
        return {"t": t, "backlog": np.asarray(self.backlog_at(t), dtype=float)}

    def trajectory(self) -> dict[str, np.ndarray]:
        """What Play draws: the fluid path, and with the random queue on its path and average too.

        Returns
        -------
        dict of str to numpy.ndarray
            Off: :meth:`fluid_trajectory`. On: ``"t"``, ``"backlog"`` (the fluid line at every time
            listed, exact: it is linear between its own breakpoints, which are among them),
            ``"random"`` (the jobs in the system as a step: two points at each event, before and
            after, so linear interpolation holds the count between events) and ``"average"`` (the
            time-average since 0, exact at every point listed, drawn straight between them). Above
            :data:`MAX_DRAWN_EVENTS` events, the count sampled at that many even times instead.
        """
        fluid = self.fluid_trajectory()
        if not self.random_queue:
            return fluid
        path = self.random_path
        if path.times.size <= MAX_DRAWN_EVENTS:
            times, before, after = path.times, np.concatenate([[path.start], path.jobs[:-1]]), path.jobs
            steps_t = np.repeat(times, 2)
            steps_n = np.column_stack([before, after]).ravel() if times.size else np.empty(0)
        else:
            grid = np.linspace(0.0, self.horizon, MAX_DRAWN_EVENTS + 1)[1:-1]
            held = self.random_jobs_at(grid)
            steps_t = np.repeat(grid, 2)
            steps_n = np.column_stack([np.concatenate([[path.start], held[:-1]]), held]).ravel()
        t = np.concatenate([[0.0], steps_t, fluid["t"][1:]])
        n = np.concatenate([[path.start], steps_n, self.random_jobs_at(fluid["t"][1:])])
        order = np.argsort(t, kind="stable")
        t, n = t[order], n[order].astype(float)
        return {
            "t": t,
            "backlog": np.asarray(self.backlog_at(t), dtype=float),
            "random": n,
            "average": np.asarray(self.random_average_at(t), dtype=float),
        }

    # ----- the random queue -------------------------------------------------------------------------

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
