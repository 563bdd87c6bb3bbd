"""Numbers for people: the one parser for every typed number and the formatters for every figure.

Imports only the standard library, like the models that use it.

**Reading a typed number** (:func:`parse_number`, used by every lab field and the exercise
prediction). Spaces around it and a typographic minus (−) are fine. The decimal separator is a
point or a comma (``2,5`` means 2.5); there are no thousands separators. So a text with both a
comma and a point, or with two commas, is refused, and so is ``1,000`` (a thousand, or one?),
whose comma could be either. ``0,125`` is not ambiguous (nobody writes 125 that way) and reads as
0.125. Exponents (``1e3``) are fine. NaN, infinities and numbers too large for a float are refused
as not finite. −0 reads as 0.

**Showing a figure** (readouts, panels, labels, feedback; mirrored by ``labs/ui/assets/player.js``):

- :func:`fixed` gives a fixed number of decimals (``6.00``), exactly as ``f"{x:.2f}"`` for ordinary
  values, but never a negative zero (``-0.001`` shows ``0.00``), and from 10^12 on a bounded
  scientific form, ``7.04 × 10^15``, instead of a row of digits;
- :func:`significant` keeps a few significant digits without an exponent (``295.2``, ``0.0625``)
  and uses the same scientific form from 10^12 on and below 10^-6;
- :func:`format_number` is how a field shows a value (``4``, ``2.5``), and with ``exact=True``
  shows enough digits to read back as the very same number;
- nothing shows ``nan`` or ``inf``: a figure that is not a number reads ``undefined`` and an
  infinite one ``unbounded`` (the labs' bounds keep both from happening; this is the last guard).

**Nice numbers** (axis ends, step sizes, playback scales): :func:`nice_at_least` and
:func:`nice_at_most` round to 1, 2 or 5 times a power of ten (or another row of mantissas), so a
figure a student reads does not jump to an odd value on every edit.
"""

from __future__ import annotations

import math
import re
import typing

BIG = 1e12
"""From this magnitude on, figures switch to ``m × 10^e``: no row of 13 or more digits is shown."""

SMALL = 1e-6
"""Below this magnitude (and above 0), :func:`significant` switches to ``m × 10^e`` too."""

UNDEFINED = "undefined"
"""What a figure that is not a number (NaN) shows."""

UNBOUNDED = "unbounded"
"""What an infinite figure shows (``unbounded (negative)`` for minus infinity)."""

NUMBER_HINT = "e.g. 2.5 or 2,5"
"""How every number field may be typed, said where a student looks: in the refusal messages."""

ONE_TWO_FIVE = (1.0, 2.0, 5.0)
"""The mantissas of the nice numbers: 1, 2 and 5 times a power of ten (…, 0.5, 1, 2, 5, 10, 20, …)."""

_PLAIN = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_NON_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
# A comma that could group thousands: 1 to 3 digits, not starting with 0, then exactly 3 digits.
_THOUSANDS = re.compile(r"[+-]?[1-9]\d{0,2},\d{3}")


class NotANumber(ValueError):
    """Typed text that is not one finite number; ``str()`` says why, in words for the student.

    Parameters
    ----------
    reason : str
        For example ``"'abc' is not a number (e.g. 2.5 or 2,5)"``.
    finite : bool
        False when the text is a number but not a finite one (NaN, an infinity, an overflow).
    """

    def __init__(self, reason: str, finite: bool = True):
        super().__init__(reason)
        self.finite = finite


def quote(text: object, limit: int = 24) -> str:
    """Quote what was typed for a message, shortened so a pasted essay does not fill the page.

    Parameters
    ----------
    text : object
        What was typed.
    limit : int
        The most characters kept; longer texts end in ``...``.

    Returns
    -------
    str
        ``repr`` of the stripped, possibly shortened text, e.g. ``'abc'``.
    """
    shown = str(text).strip()
    if len(shown) > limit:
        shown = shown[: limit - 3] + "..."
    return repr(shown)


def parse_number(raw: object) -> float:
    """Read one typed number by the app's single rule (see the module docstring).

    Parameters
    ----------
    raw : object
        The typed text, or a number (int, float, a numpy scalar; not a bool).

    Returns
    -------
    float
        The value; finite, and 0.0 rather than -0.0.

    Raises
    ------
    NotANumber
        If the text is not one number, is ambiguous (``1,000``, ``1,000.5``, ``1.000,5``), or is
        not finite (``nan``, ``inf``, ``1e999``); ``finite`` is False in the last case.
    """
    if isinstance(raw, str):
        value = _read(raw)
    elif hasattr(raw, "__float__") and not isinstance(raw, (bool, complex)):
        value = float(raw)
    else:
        raise NotANumber(f"{quote(raw)} is not a number ({NUMBER_HINT})")
    if not math.isfinite(value):
        raise NotANumber(f"{quote(raw)} is not a finite number", finite=False)
    return value + 0.0  # -0.0 + 0.0 is 0.0


def _read(raw: str) -> float:
    text = raw.strip().replace("\u2212", "-")
    if _NON_FINITE.fullmatch(text):
        return float(text)
    commas = text.count(",")
    if commas == 1 and "." not in text:
        if _THOUSANDS.fullmatch(text):
            whole, decimals = text.split(",")
            raise NotANumber(
                f"{quote(raw)} could mean {whole}{decimals} or {format_number(float(whole + '.' + decimals))}: "
                "type one of those (a comma is a decimal point only where that is clear, "
                "and there are no thousands separators)"
            )
        text = text.replace(",", ".")
    elif commas:
        raise NotANumber(
            f"{quote(raw)} mixes separators: type one decimal point or comma and no thousands "
            f"separators ({NUMBER_HINT})"
        )
    if not _PLAIN.fullmatch(text):
        raise NotANumber(f"{quote(raw)} is not a number ({NUMBER_HINT})")
    try:
        return float(text)
    except ValueError:  # pragma: no cover - the pattern admits only what float() reads
        raise NotANumber(f"{quote(raw)} is not a number ({NUMBER_HINT})") from None


def _not_finite(value: float) -> str:
    if math.isnan(value):
        return UNDEFINED
    return UNBOUNDED if value > 0 else f"{UNBOUNDED} (negative)"


def scientific(value: float, digits: int = 3) -> str:
    """A figure as ``m × 10^e`` with ``digits`` significant digits, e.g. ``7.04 × 10^15``.

    Parameters
    ----------
    value : float
        The number.
    digits : int
        Significant digits of the mantissa (at least 1).

    Returns
    -------
    str
        ``"7.04 × 10^15"``, ``"-1.00 × 10^-7"``; ``undefined``/``unbounded`` if not finite.
    """
    value = float(value)
    if not math.isfinite(value):
        return _not_finite(value)
    if value == 0:
        return "0"
    mantissa, exponent = f"{value:.{max(digits, 1) - 1}e}".split("e")
    return f"{mantissa} × 10^{int(exponent)}"


def fixed(value: float, decimals: int = 2, sign: bool = False) -> str:
    """A figure with a fixed number of decimals, as ``f"{value:.2f}"`` gives for ordinary values.

    Parameters
    ----------
    value : float
        The number.
    decimals : int
        Digits after the point.
    sign : bool
        Always show the sign (``+1.00``); zero shows ``+0.00``, and a value too small for the
        decimals keeps its sign with :func:`significant` digits (``-0.001``, ``-1.42 × 10^-14``).

    Returns
    -------
    str
        ``"6.00"``; ``"0.00"`` for -0.0 and for a negative value that rounds to zero; from 10^12 on
        :func:`scientific` (``"7.04 × 10^15"``); ``undefined``/``unbounded`` if not finite.
    """
    value = float(value)
    if not math.isfinite(value):
        return _not_finite(value)
    if abs(value) >= BIG:
        text = scientific(value)
        return f"+{text}" if sign and value > 0 else text
    flag = "+" if sign else ""
    text = f"{value:{flag}.{decimals}f}"
    if not any(c in "123456789" for c in text):  # rounds to zero: no "-0.00"
        if sign and value != 0:  # a signed figure keeps its sign: -0.001, not +0.00
            return ("+" if value > 0 else "") + significant(value, 3)
        text = f"{0.0:{flag}.{decimals}f}"
    return text


def fixed_apart(value: float, limit: float, decimals: int = 2) -> str:
    """Like :func:`fixed`, with more decimals where needed so a value near ``limit`` does not read as it.

    For ρ = 0.9999999999999999 a two-decimal ``1.00`` would contradict "ρ < 1"; this shows
    ``0.9999999999999999``.

    Parameters
    ----------
    value : float
        The number.
    limit : float
        The threshold it must not seem to equal, e.g. 1.
    decimals : int
        The usual number of decimals.

    Returns
    -------
    str
        The figure with ``decimals`` decimals, or up to 17 when those show ``limit``.
    """
    more = decimals
    text = fixed(value, more)
    while math.isfinite(value) and abs(value) < BIG and value != limit and float(text) == limit and more < 17:
        more += 1
        text = fixed(value, more)
    return text


def significant(value: float, digits: int = 4) -> str:
    """A figure with at most ``digits`` significant digits, without an exponent in the usual range.

    Parameters
    ----------
    value : float
        The number.
    digits : int
        Significant digits to keep.

    Returns
    -------
    str
        ``"800"``, ``"295.2"``, ``"0.0625"``, ``"989000"``; from 10^12 on and below 10^-6,
        ``"1.235 × 10^15"``; ``"0"`` for ±0; ``undefined``/``unbounded`` if not finite.
    """
    value = float(value)
    if not math.isfinite(value):
        return _not_finite(value)
    if value == 0:
        return "0"
    if abs(value) >= BIG or abs(value) < SMALL:
        return scientific(value, digits)
    places = digits - 1 - math.floor(math.log10(abs(value)))
    rounded = round(value, places)
    text = f"{rounded:.{max(places, 0)}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "0") else text


def format_number(value: float, exact: bool = False) -> str:
    """Show a number as a field shows it: no trailing zeros, at most 6 significant digits.

    Parameters
    ----------
    value : float
        The number to show.
    exact : bool
        Show as many digits as it takes to read back as exactly this number, in the shorter of the
        two forms (a field's value: 99.99999999999999 must not show as 100, or typing 100 would
        look like no change; the smallest float shows as 5e-324, not 4.94066e-324).

    Returns
    -------
    str
        ``4`` for 4.0, ``0.5`` for 0.5, ``1e+15`` from 10^15 on, ``0`` for -0.0; every result reads
        back with :func:`parse_number`; ``undefined``/``unbounded`` if not finite.
    """
    value = float(value)
    if not math.isfinite(value):
        return _not_finite(value)
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    text = f"{value:.6g}"
    if exact:
        shortest = repr(value).removesuffix(".0")  # 5e-324, not 4.94066e-324
        if float(text) != value or len(shortest) < len(text):
            text = shortest
    return text


def nice_at_least(value: float, mantissas: tuple[float, ...] = ONE_TWO_FIVE, slack: float = 0.0) -> float:
    """The smallest nice number ``m × 10^k`` that is at least ``value``.

    Parameters
    ----------
    value : float
        A positive finite number.
    mantissas : tuple of float
        The allowed ``m``, ascending, each in [1, 10): 1, 2 and 5 by default.
    slack : float
        Relative tolerance: a nice number ``n`` with ``n · (1 + slack) ≥ value`` counts as at
        least ``value``, so that a value a rounding error above a nice number keeps that number.

    Returns
    -------
    float
        ``m * 10.0**k``.

    Raises
    ------
    ValueError
        When ``value`` is not a positive finite number.
    """
    return next(nice for nice in _nice_numbers(value, mantissas, 1) if nice * (1 + slack) >= value)


def nice_at_most(value: float, mantissas: tuple[float, ...] = ONE_TWO_FIVE, slack: float = 0.0) -> float:
    """The largest nice number ``m × 10^k`` that is at most ``value``.

    Parameters and errors are those of :func:`nice_at_least`, except that here ``n`` with
    ``n ≤ value · (1 + slack)`` counts as at most ``value``.

    Returns
    -------
    float
        ``m * 10.0**k``.
    """
    return next(nice for nice in _nice_numbers(value, mantissas, -1) if nice <= value * (1 + slack))


def _nice_numbers(value: float, mantissas: tuple[float, ...], step: int) -> typing.Iterator[float]:
    """Nice numbers from a decade past ``value``'s own, ascending (``step`` 1) or descending (-1)."""
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"a nice number needs a positive finite value, not {value!r}")
    exponent = math.floor(math.log10(value)) - step
    ordered = mantissas if step > 0 else mantissas[::-1]
    while True:
        for mantissa in ordered:
            yield mantissa * 10.0**exponent
        exponent += step
