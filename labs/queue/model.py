"""The fluid queue: a backlog fed at rate λ and served at rate μ, the M/M/1 reference, a random queue.

Switched on, the random (M/M/1) queue is simulated event by event and drawn beside the fluid line (its run
and what it reads at any t are :mod:`labs.queue.schedule`).

Imports only param and numpy (and the pure modules beside it).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import param

from labs.queue.schedule import RandomPath, RandomQueue, simulate_mm1
from labs.timed import InvalidInput, TimedModel, format_number

__all__ = [
    "MAX_DRAWN_EVENTS",
    "MIN_SERVICE_RATE",
    "RANDOM_HORIZON",
    "MM1Reference",
    "QueueModel",
    "RandomPath",
    "simulate_mm1",
]

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


class QueueModel(RandomQueue, TimedModel):
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
        self.param.update(horizon=horizon, t=self.kept_time(horizon))

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
