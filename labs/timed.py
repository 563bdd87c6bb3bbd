"""Shared base for lab models that advance in time: controls, validation, Step and Reset.

Imports only param and numpy, like every model module.
"""

from __future__ import annotations

import numpy as np
import param

from labs.numbers import NotANumber, format_number, parse_number

__all__ = ["NEVER", "OFF_WORDS", "InvalidInput", "TimedModel", "format_number"]

NEVER = "never"
"""How an optional control that is off reads in its field."""

SAME_TIME_RTOL = 1e-9
"""Two times this close (relative) are one time computed along two paths: an edit that leaves the
end where it was, up to rounding, leaves a run that had ended at its end (a picosecond in 18 ms)."""

OFF_WORDS = frozenset({"", NEVER, "none", "no", "-", "\u2014"})
"""What a student may type to switch an optional control off."""


class InvalidInput(ValueError):
    """A control value was refused; the message says why, in words meant for the student."""


class TimedModel(param.Parameterized):
    """A model with student-editable controls, an elapsed time t, Step and Reset.

    Subclasses declare their controls as bounded ``param.Number`` parameters listed in
    ``controls`` and implement :meth:`trajectory`.
    """

    controls: tuple[str, ...] = ()
    judged_on_play = False
    """Whether Play changes nothing here but the clock (the roofline's race): every quantity an
    exercise asks about is the same before and after, so an exercise's run step is done as soon as
    Play is pressed, and the verdict shows at once."""

    t = param.Number(
        default=0.0,
        bounds=(0.0, None),
        doc="Elapsed model time in seconds; never past the horizon.",
    )
    step_size = param.Number(
        default=1.0,
        bounds=(0.01, 1000.0),
        doc="How far one press of Step advances t, in model seconds.",
    )
    horizon = param.Number(
        default=10.0,
        bounds=(0.1, 10000.0),
        doc="The last model time that Step and Play reach, in seconds.",
    )
    pause_at = param.Number(
        default=None,
        allow_None=True,
        bounds=(0.0, None),
        doc="A time before the horizon where Step and Play stop (set by a guided exercise).",
    )

    def parse(self, name: str, raw: object) -> float:
        """Turn what a student typed into a valid value for control ``name``, or refuse it.

        Parameters
        ----------
        name : str
            The parameter name of a control.
        raw : object
            The typed text or a number, read by :func:`labs.numbers.parse_number` (the app's one
            rule: a decimal point or comma, no thousands separators).

        Returns
        -------
        float or None
            The value, within the control's bounds; None switches an optional control (one whose
            parameter allows None) off, typed as an empty field or "never".

        Raises
        ------
        InvalidInput
            If the value is not a finite number within the bounds; the message names the control,
            the allowed range and the value that is kept.
        """
        if name not in self.param or not isinstance(self.param[name], param.Number):
            raise InvalidInput(f"There is no control called {name!r}.")
        parameter = self.param[name]
        label = parameter.label
        kept = f"kept {self.shown_value(name)}"
        text = raw.strip() if isinstance(raw, str) else raw
        if parameter.allow_None and (text is None or (isinstance(text, str) and text.lower() in OFF_WORDS)):
            return None
        try:
            value = parse_number(text)
        except NotANumber as refusal:
            if not refusal.finite:
                raise InvalidInput(f"{label} must be a finite number; {self.describe_range(name)}; {kept}.") from None
            raise InvalidInput(f"{label}: {refusal}; {self.describe_range(name)}; {kept}.") from None
        if not self._within_bounds(name, value):
            raise InvalidInput(
                f"{label} cannot be {format_number(value, exact=True)}; {self.describe_range(name)}; {kept}."
            )
        return value

    def describe_range(self, name: str) -> str:
        """Say in words which values control ``name`` accepts.

        Parameters
        ----------
        name : str
            The parameter name of a control.

        Returns
        -------
        str
            For example ``"use a number above 0 and at most 100"``.
        """
        parameter = self.param[name]
        low, high = parameter.bounds
        low_inclusive, high_inclusive = parameter.inclusive_bounds
        parts = []
        if low is not None:
            parts.append(f"{'at least' if low_inclusive else 'above'} {format_number(low)}")
        if high is not None:
            parts.append(f"{'at most' if high_inclusive else 'below'} {format_number(high)}")
        text = "use a number " + " and ".join(parts)
        if parameter.allow_None:
            text += ", or leave the field empty for never"
        return text

    def shown_value(self, name: str) -> str:
        """A control's value as its field shows it: ``4``, ``2.5``, text as it is, ``never`` when off.

        Parameters
        ----------
        name : str
            The parameter name of a control.

        Returns
        -------
        str
            The field's text.
        """
        value = getattr(self, name)
        if value is None:
            return NEVER
        if isinstance(value, str):
            return value
        return format_number(value, exact=True)  # reads back as this very value

    def _within_bounds(self, name: str, value: float) -> bool:
        low, high = self.param[name].bounds
        low_inclusive, high_inclusive = self.param[name].inclusive_bounds
        if low is not None and (value < low or (value == low and not low_inclusive)):
            return False
        return not (high is not None and (value > high or (value == high and not high_inclusive)))

    def apply(self, name: str, raw: object) -> float:
        """Set control ``name`` from typed text or a number, keeping t; refuse bad input.

        Parameters
        ----------
        name : str
            The parameter name of a control listed in ``controls``.
        raw : object
            The typed text or a number.

        Returns
        -------
        float
            The value now in force.

        Raises
        ------
        InvalidInput
            If the value is refused; nothing changes then.
        """
        if name not in self.controls:
            raise InvalidInput(f"There is no control called {name!r}.")
        value = self.parse(name, raw)
        setattr(self, name, value)
        return value

    def reading(self, quantity: str, at: float | None = None) -> float:
        """A quantity a guided exercise may ask about, as the model shows it now or at time ``at``.

        The rule every lab follows: quantity ``q`` is the model's attribute ``q`` (a property or a
        parameter); read at a time, it is the method ``q_at(t)`` (see :meth:`readable_at`). The lab's
        registration lists the quantities with their units.

        Parameters
        ----------
        quantity : str
            For example ``"net_rate"`` or ``"backlog"``.
        at : float, optional
            A model time in seconds; None reads the quantity as it is now.

        Returns
        -------
        float
            For example ``model.net_rate`` or ``model.backlog_at(4)``.
        """
        if at is not None:
            return float(getattr(self, f"{quantity}_at")(at))
        return float(getattr(self, quantity))

    def choice(self, quantity: str) -> str:
        """A quantity a choice exercise asks about: the model's attribute ``quantity``, as text.

        Parameters
        ----------
        quantity : str
            One of the lab registration's ``choices``, e.g. ``"regime"``.

        Returns
        -------
        str
            One of the texts the registration lists for it, e.g. ``"memory-bound"``.
        """
        return str(getattr(self, quantity))

    @classmethod
    def readable_at(cls, quantity: str) -> bool:
        """Whether ``quantity`` can be read at a given time (the model has a ``{quantity}_at`` method).

        Parameters
        ----------
        quantity : str
            A quantity the lab's registration lists.

        Returns
        -------
        bool
            True when :meth:`reading` accepts ``at`` for it.
        """
        return callable(getattr(cls, f"{quantity}_at", None))

    def take_time(self, t: object) -> float:
        """Take a time reported by the browser's playback as the truth, clamped to [0, horizon].

        Parameters
        ----------
        t : object
            The reported time in seconds.

        Returns
        -------
        float
            The elapsed time now in force.
        """
        try:
            value = float(t)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return self.t
        if np.isnan(value):
            return self.t
        self.t = float(np.clip(value, 0.0, self.horizon))
        return self.t

    def kept_time(self, horizon: float) -> float:
        """The t an edit keeps against a new ``horizon``: t itself, cut to the horizon.

        A t that differs from the new horizon only by rounding is the horizon: the end computed
        along another path (a missing bucket's all-reduce dropped from 5 buckets) can come out a
        few units of the last place later, and a run that had ended would then read as not quite
        ended, without its outcome (seed 9090's phone fuzz, the timeline's 36th page).

        Parameters
        ----------
        horizon : float
            The horizon the edit brings.

        Returns
        -------
        float
            The elapsed time to keep.
        """
        if np.isclose(self.t, horizon, rtol=SAME_TIME_RTOL, atol=0.0):
            return float(horizon)
        return min(self.t, horizon)

    @property
    def stop_time(self) -> float:
        """Where Step and Play stop next: ``pause_at`` while t is before it, else the horizon."""
        if self.pause_at is not None and self.t < self.pause_at < self.horizon:
            return self.pause_at
        return self.horizon

    def run_end(self, reached: float) -> float:
        """Where a run the page played to its end at ``reached`` ends in this model.

        The page stops at its copy of ``pause_at`` or of the horizon (player.js ``limit``). An edit
        made while it plays can move the horizon after the page last heard of it; the run then ends
        where this model ends it, not a few microseconds short of the end with no outcome shown.

        Parameters
        ----------
        reached : float
            The time at which the page's run ended.

        Returns
        -------
        float
            ``pause_at`` where the run had not passed it (it stops there, as on the page), else the
            horizon.
        """
        if self.pause_at is not None and reached <= self.pause_at < self.horizon:
            return self.pause_at
        return self.horizon

    def step(self) -> float:
        """Advance t by the step size, stopping at ``stop_time``.

        Returns
        -------
        float
            The new elapsed time.
        """
        self.t = min(self.stop_time, self.t + self.step_size)
        return self.t

    def reset(self) -> None:
        """Put every control back to its default and t back to 0."""
        defaults = {name: self.param[name].default for name in (*self.controls, "step_size", "horizon")}
        self.param.update(t=0.0, **defaults)

    @property
    def play_rate(self) -> float:
        """Model time that Play advances per second at 1× speed: one model second per second here.

        A lab whose time runs in other units (the timeline's milliseconds) sets its own pace.
        """
        return 1.0

    @property
    def at_end(self) -> bool:
        """Whether t has reached the horizon."""
        return self.t >= self.horizon

    def trajectory(self) -> dict[str, np.ndarray]:
        """Breakpoints of the piecewise-linear path from t = 0 to the horizon.

        Returns
        -------
        dict of str to numpy.ndarray
            ``"t"`` and one array per quantity; linear interpolation between breakpoints is exact.
        """
        raise NotImplementedError
