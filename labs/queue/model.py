"""The fluid queue: a backlog fed at rate λ and served at rate μ, plus the M/M/1 reference.

Imports only param and numpy.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import param

from labs.timed import TimedModel


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
    """

    controls = ("arrival_rate", "service_rate", "initial_backlog")

    arrival_rate = param.Number(
        default=1.0,
        bounds=(0.0, 100.0),
        label="Arrival rate λ",
        doc="λ: work arriving per second, in normalized work units per second.",
    )
    service_rate = param.Number(
        default=2.0,
        bounds=(0.0, 100.0),
        inclusive_bounds=(False, True),
        label="Service rate μ",
        doc="μ: work the server completes per second while busy, in work units per second.",
    )
    initial_backlog = param.Number(
        default=4.0,
        bounds=(0.0, 1000.0),
        label="Initial backlog q0",
        doc="q0: work units waiting at t = 0.",
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
        """When the backlog first reaches zero, q0/(μ − λ), or None if it never drains."""
        if self.net_rate < 0:
            return self.initial_backlog / -self.net_rate
        if self.initial_backlog == 0 and self.net_rate == 0:
            return 0.0
        return None

    def backlog_at(self, t: float | np.ndarray) -> float | np.ndarray:
        """Backlog at time ``t`` under the current controls, from the initial-value formula.

        Parameters
        ----------
        t : float or numpy.ndarray
            Model time(s) in seconds, t ≥ 0.

        Returns
        -------
        float or numpy.ndarray
            ``max(0, q0 + (λ − μ)·t)``.
        """
        q = np.maximum(0.0, self.initial_backlog + self.net_rate * np.asarray(t, dtype=float))
        return float(q) if np.ndim(q) == 0 else q

    @property
    def backlog(self) -> float:
        """Backlog now, at the current t."""
        return self.backlog_at(self.t)

    @property
    def mm1(self) -> MM1Reference | None:
        """The M/M/1 steady-state means for these rates, or None when ρ ≥ 1 (no steady state)."""
        rho = self.rho
        if rho >= 1:
            return None
        gap = self.service_rate - self.arrival_rate
        return MM1Reference(rho=rho, L=rho / (1 - rho), Lq=rho**2 / (1 - rho), W=1 / gap, Wq=rho / gap)

    def trajectory(self) -> dict[str, np.ndarray]:
        """Breakpoints of the backlog path from 0 to the horizon (exact under linear interpolation).

        Returns
        -------
        dict of str to numpy.ndarray
            ``"t"`` and ``"backlog"``: t = 0, the drain time if it falls inside, and the horizon.
        """
        times = [0.0]
        drain = self.drain_time
        if drain is not None and 0 < drain < self.horizon:
            times.append(drain)
        times.append(self.horizon)
        t = np.array(times)
        return {"t": t, "backlog": np.asarray(self.backlog_at(t), dtype=float)}
