"""The bucket timeline's Layers field: ``size:time`` text, and gradient sizes and caps in bytes.

Imports only numpy (and the app's one number rule in :mod:`labs.numbers`).
"""

from __future__ import annotations

import numpy as np

from labs.numbers import NotANumber, format_number, parse_number
from labs.timed import InvalidInput

MIB = 2**20
"""Bytes in one MiB."""

MAX_LAYERS = 512
"""The most layers the Layers field takes."""

SIZE_RANGE_MIB = (0.0, 65536.0)
"""A layer's gradient size: above 0 and at most 64 GiB."""

TIME_RANGE_MS = (0.0, 10000.0)
"""A layer's backward time: at least 0 and at most 10 s."""


def _describe(low: float, high: float, low_inclusive: bool) -> str:
    lower = "at least" if low_inclusive else "above"
    return f"use a number {lower} {format_number(low)} and at most {format_number(high)}"


def _quote(piece: str) -> str:
    piece = piece.strip()
    return repr(piece if len(piece) <= 24 else piece[:21] + "...")


def parse_layers(raw: object, kept: str = "") -> tuple[np.ndarray, np.ndarray]:
    """Read the Layers field: ``size:time`` pairs in forward order, gradient MiB : backward ms.

    Pairs are separated by commas, semicolons or new lines (so decimals take a point: ``2.5``);
    spaces do not matter and an empty place between two separators is skipped. Sizes are kept to the
    whole byte (at least 1, see :func:`to_bytes`) and times to the nanosecond (10^-6 ms), as a real
    tensor and a real clock would have them.

    Parameters
    ----------
    raw : object
        What was typed, e.g. ``"64:0.5, 8:2, 8:2"``.
    kept : str, optional
        Appended to every refusal, e.g. ``"kept the previous layers"``.

    Returns
    -------
    tuple of numpy.ndarray
        ``(sizes_mib, backward_ms)``, one entry per layer in forward order.

    Raises
    ------
    InvalidInput
        With a message for the student: no layer, more than 512, a pair without its colon or with
        two, an empty, non-numeric, NaN or infinite number, a size not above 0 or a time below 0,
        or either one past its maximum.
    """
    tail = f"; {kept}." if kept else "."
    example = "write each layer as size:time (gradient MiB : backward ms), for example 8:2"
    if not isinstance(raw, str):
        raise InvalidInput(f"Layers: type the layers as text, {example}{tail}")
    pieces = [p for p in raw.replace(";", ",").replace("\n", ",").split(",") if p.strip()]
    if not pieces:
        raise InvalidInput(f"Layers: there is no layer; {example}{tail}")
    if len(pieces) > MAX_LAYERS:
        raise InvalidInput(f"Layers: {len(pieces)} layers are more than this lab takes; use at most {MAX_LAYERS}{tail}")
    sizes, times = [], []
    for number, piece in enumerate(pieces, start=1):
        where = f"layer {number} ({_quote(piece)})"
        if ":" not in piece:
            raise InvalidInput(f"Layers: {where} has no colon; {example} (decimals take a point: 2.5){tail}")
        if piece.count(":") > 1:
            raise InvalidInput(f"Layers: {where} has more than one colon; {example}{tail}")
        size_text, time_text = (part.strip().replace("\u2212", "-") for part in piece.split(":"))
        values = []
        for text, what, unit, (low, high), low_inclusive, side in (
            (size_text, "gradient size", "MiB", SIZE_RANGE_MIB, False, "before"),
            (time_text, "backward time", "ms", TIME_RANGE_MS, True, "after"),
        ):
            if not text:
                raise InvalidInput(f"Layers: {where} has no {what} {side} its colon; {example}{tail}")
            rule = _describe(low, high, low_inclusive)
            try:
                value = parse_number(text)  # the app's one number rule (here no comma: it separates layers)
            except NotANumber as refusal:
                if not refusal.finite:
                    raise InvalidInput(
                        f"Layers: the {what} of layer {number} must be a finite number; {rule}{tail}"
                    ) from None
                raise InvalidInput(f"Layers: in {where}, {_quote(text)} is not a number{tail}") from None
            if value > high or value < low or (value == low and not low_inclusive):
                raise InvalidInput(
                    f"Layers: the {what} of layer {number} cannot be {format_number(value)} {unit}; {rule}{tail}"
                )
            values.append(value)
        sizes.append(values[0])
        times.append(values[1])
    return to_bytes(np.array(sizes)) / MIB, np.round(np.array(times), 6)


def format_layers(sizes_mib: list[float] | np.ndarray, backward_ms: list[float] | np.ndarray) -> str:
    """Write layers back as the Layers field shows them, e.g. ``"64:0.5, 8:2"``.

    Parameters
    ----------
    sizes_mib : sequence of float
        Gradient sizes in MiB, forward order.
    backward_ms : sequence of float
        Backward times in ms, forward order.

    Returns
    -------
    str
        ``size:time`` pairs joined by ``", "``, numbers as the inputs show them.
    """
    return ", ".join(
        f"{format_number(float(s))}:{format_number(float(t))}" for s, t in zip(sizes_mib, backward_ms, strict=True)
    )


def to_bytes(size_mib: float | np.ndarray) -> np.ndarray:
    """Gradient sizes in whole bytes, as a tensor has: MiB × 2^20 rounded, at least 1 byte.

    Parameters
    ----------
    size_mib : float or numpy.ndarray
        Sizes in MiB, above 0.

    Returns
    -------
    numpy.ndarray
        int64 byte counts.
    """
    return np.maximum(1, np.rint(np.asarray(size_mib, dtype=float) * MIB)).astype(np.int64)


def cap_to_bytes(cap_mib: float) -> int:
    """A bucket cap in bytes the way DDP converts ``bucket_cap_mb``: ``int(cap × 2^20)``, truncated.

    Parameters
    ----------
    cap_mib : float
        The cap in MiB.

    Returns
    -------
    int
        The cap in bytes.
    """
    return int(cap_mib * MIB)
