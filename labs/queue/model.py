"""The fluid queue: a backlog fed at rate λ and served at rate μ, plus the M/M/1 reference.

Imports only param and numpy.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import param

from labs.timed import TimedModel

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


class QueueModel(TimedModel):
    """Fluid backlog ``q(t) = max(0, q0 + (λ − μ)·t)`` in normalized work units.

    Editing λ or μ keeps t and recomputes the whole path from q0 (the initial-value formula),
    never from the backlog shown before the edit.

    **Arrivals stop at T** (optional; default never). From time T on no work arrives (λ = 0), so
    whatever is left drains at μ: ``q(t) = max(0, q(T) − μ·(t − T))`` for t > T. This is the
    exposed tail in queue form: backward ends at T, gradients stop arriving, and the network
    needs ``q(T)/μ`` more seconds to clear what is left.
    """

    controls = ("arrival_rate", "service_rate", "initial_backlog", "arrivals_stop")

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

    def trajectory(self) -> dict[str, np.ndarray]:
        """Breakpoints of the backlog path from 0 to the horizon (exact under linear interpolation).

        Returns
        -------
        dict of str to numpy.ndarray
            ``"t"`` and ``"backlog"``: t = 0, the stop time and the drain time where they fall
            inside, and the horizon (the path bends only at those).
        """
        inside = {x for x in (self.arrivals_stop, self.drain_time) if x is not None and 0 < x < self.horizon}
        t = np.array([0.0, *sorted(inside), self.horizon])
        return {"t": t, "backlog": np.asarray(self.backlog_at(t), dtype=float)}
