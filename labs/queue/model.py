"""The fluid queue: a backlog fed at rate λ and served at rate μ, plus the M/M/1 reference.

Imports only param and numpy.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import param

from labs.timed import InvalidInput, TimedModel, format_number

NEVER = "never"
"""How the optional "Arrivals stop at" control reads when arrivals never stop."""

_NEVER_TYPED = frozenset({"", NEVER, "none", "no", "-", "\u2014"})


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
    arrivals_stop = param.Number(
        default=None,
        allow_None=True,
        bounds=(0.0, 1000.0),
        label="Arrivals stop at",
        doc="T: the time from which no work arrives (λ = 0) and the backlog drains at μ; None: never.",
    )

    def parse(self, name: str, raw: object) -> float | None:
        """Turn what a student typed into a valid value for control ``name``, or refuse it.

        As :meth:`labs.timed.TimedModel.parse`, except that "Arrivals stop at" also takes an empty
        field or the word ``never`` (None: arrivals never stop).

        Parameters
        ----------
        name : str
            The parameter name of a control.
        raw : object
            The typed text, a number, or None.

        Returns
        -------
        float or None
            The value, within the control's bounds; None only for "Arrivals stop at".

        Raises
        ------
        InvalidInput
            If the value is refused; the message names the control, the allowed values and the
            value that is kept.
        """
        if name != "arrivals_stop":
            return super().parse(name, raw)
        text = raw.strip() if isinstance(raw, str) else raw
        if text is None or (isinstance(text, str) and text.lower() in _NEVER_TYPED):
            return None
        label = self.param[name].label
        kept = f"kept {self.shown_value(name)}"
        if isinstance(text, str):
            text = text.replace("\u2212", "-")
            if text.count(",") == 1 and "." not in text:
                text = text.replace(",", ".")
        try:
            value = float(text)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise InvalidInput(
                f"{label}: {str(raw).strip()!r} is not a time; {self.describe_range(name)}; {kept}."
            ) from None
        if not np.isfinite(value):
            raise InvalidInput(f"{label} must be a finite time; {self.describe_range(name)}; {kept}.")
        if not self._within_bounds(name, value):
            raise InvalidInput(f"{label} cannot be {format_number(value)}; {self.describe_range(name)}; {kept}.")
        return value

    def describe_range(self, name: str) -> str:
        """Say in words which values control ``name`` accepts (``never`` too for the stop time)."""
        text = super().describe_range(name)
        if name == "arrivals_stop":
            text = text.replace("use a number", "type a time in seconds,", 1) + ", or leave the field empty for never"
        return text

    def shown_value(self, name: str) -> str:
        """A control's value as its field shows it: ``4``, ``2.5``, or ``never`` for no stop time.

        Parameters
        ----------
        name : str
            The parameter name of a control.

        Returns
        -------
        str
            The text.
        """
        value = getattr(self, name)
        return NEVER if value is None else format_number(value)

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
            ``"t"`` and ``"backlog"``: t = 0, the stop time and the drain time where they fall
            inside, and the horizon (the path bends only at those).
        """
        inside = {x for x in (self.arrivals_stop, self.drain_time) if x is not None and 0 < x < self.horizon}
        t = np.array([0.0, *sorted(inside), self.horizon])
        return {"t": t, "backlog": np.asarray(self.backlog_at(t), dtype=float)}
