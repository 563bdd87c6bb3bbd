"""The instructor's histogram of predictions, worked out before anything is drawn: any data gives a chart or a reason.

Pure functions on the rounds read. Only the predictions that make sense for the exercise are drawn
(finite, within :func:`app.course.exercise_range.prediction_range`, a choice's position for a choice
exercise); any others are counted in the status line and named under the chart as not drawn. So
two votes of ``±1.7e308`` forced into the database leave the others' histogram as it was.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import numpy as np

from app.classroom.store import RoundVotes
from app.course.catalog import lab_kinds
from app.course.content import Exercise
from app.course.exercise_range import prediction_range
from labs.timed import format_number

MAX_BINS = 12
LARGEST = float(np.finfo(float).max)


@dataclass(frozen=True)
class Chart:
    """What the chart shows: the bins' edges, each round's count per bin, and what was left out (and why)."""

    edges: np.ndarray
    counts: list[np.ndarray]
    note: str = ""


def choice_edges(exercise: Exercise) -> np.ndarray:
    """A choice exercise's bins: one per choice, centred on its index (the value its votes hold)."""
    return np.arange(len(exercise.choices) + 1) - 0.5


def bin_edges(values: np.ndarray, extra: float | None = None, whole: bool = False) -> np.ndarray:
    """Histogram bins for predictions: numpy's 'auto' rule, at most MAX_BINS, one bin around a single value.

    Never fails: values that are not finite are ignored, and a range too wide for a float's
    difference (``±1.7e308``) is split evenly without overflowing.

    Parameters
    ----------
    values : numpy.ndarray
        Every prediction drawn (all rounds shown, so their bars line up).
    extra : float, optional
        A value the bins must also cover (the answer, once revealed).
    whole : bool
        Whether the predictions are whole numbers (:func:`round_edges`).
    """
    span = np.asarray(values, dtype=float)
    if extra is not None:
        span = np.append(span, float(extra))
    span = span[np.isfinite(span)]
    if span.size == 0:
        return np.array([-0.5, 0.5])
    low, high = float(span.min()), float(span.max())
    if not math.isfinite(high - low):  # the halves' difference fits in a float
        return np.linspace(low / 2, high / 2, MAX_BINS + 1) * 2
    if high - low <= 1e-12 * max(1.0, abs(low)):
        width = max(abs(low) * 0.1, 0.5)
        return np.clip(np.array([low - width, low + width]), -LARGEST, LARGEST)
    try:
        edges = np.histogram_bin_edges(span, bins="auto")
    except (ValueError, MemoryError):  # too many bins for the data's spread: even bins instead
        edges = np.linspace(low, high, MAX_BINS + 1)
    if len(edges) - 1 > MAX_BINS:
        edges = np.linspace(low, high, MAX_BINS + 1)
    edges = np.unique(edges)
    if len(edges) < 2:
        return np.array([low - 0.5, low + 0.5])
    with np.errstate(all="ignore"):
        try:
            rounded = round_edges(low, high, float(edges[1] - edges[0]), whole)
        except (OverflowError, ValueError):  # near a float's limits: the even bins stand
            return edges
    fits = 2 <= len(rounded) <= MAX_BINS + 1 and np.all(np.isfinite(rounded)) and np.all(np.diff(rounded) > 0)
    return rounded if fits else edges


NICE_STEPS = (1.0, 2.0, 2.5, 5.0, 10.0)
"""A bin's width is one of these times a power of ten: its edges read as round numbers ("2 to 4")."""


def round_edges(low: float, high: float, width: float, whole: bool = False) -> np.ndarray:
    """Bins of a round width covering ``low`` to ``high``, at least ``width`` wide, at most :data:`MAX_BINS`.

    Parameters
    ----------
    low, high : float
        The smallest and largest value to cover (finite, ``low < high``).
    width : float
        The width a rule chose (numpy's 'auto'); rounded up to 1, 2, 2.5 or 5 times a power of ten.
    whole : bool
        Whether the values are whole numbers (a count of layers, buckets): bins are then whole
        numbers wide and centred on them (edges at n − 0.5), so each value sits in the middle of its bar.

    Returns
    -------
    numpy.ndarray
        The edges, each a multiple of the width (offset by half a unit for whole numbers).
    """
    width = max(width, (high - low) / MAX_BINS)
    if whole:
        width = 1.0 if high - low < MAX_BINS else max(width, 1.0)  # a bar per value while they fit
    power = 10.0 ** math.floor(math.log10(width))
    step = next((k * power for k in NICE_STEPS if k * power >= width * (1 - 1e-9)), 10 * power)
    if whole:
        step = max(1.0, float(round(step)))
    offset = 0.5 if whole and step == 1.0 else 0.0
    start = math.floor((low + offset) / step) * step - offset
    count = max(1, math.ceil((high + offset) / step - (start + offset) / step + 1e-9))
    if whole and step == 1.0:
        count = max(1, int(round(high - low)) + 1)
    edges = start + step * np.arange(count + 1)
    if edges[-1] <= high:  # the last value on the last edge belongs in a bin of its own
        edges = np.append(edges, edges[-1] + step)
    return edges


def chart_of(exercise: Exercise, shown: list[RoundVotes], revealed: bool) -> Chart | str:
    """The chart of the rounds shown, or why none can be drawn.

    Parameters
    ----------
    exercise : Exercise
        The exercise the rounds belong to.
    shown : list of RoundVotes
        The rounds drawn side by side.
    revealed : bool
        Whether the last round is revealed (then the bins also cover the answer).

    Returns
    -------
    Chart or str
        The bins and counts, with a note on any prediction not drawn; or a sentence saying why
        nothing is drawn (nobody locked yet, or no prediction can be drawn).
    """
    rounds = [np.asarray(r.predictions, dtype=float) for r in shown]
    total = sum(len(r) for r in rounds)
    choices = exercise.choices
    if choices:
        edges = choice_edges(exercise)
        kept = [r[np.isin(r, np.arange(len(choices)))] for r in rounds]
        what = "not one of the choices"
    else:
        if total == 0:
            return "No predictions locked yet."
        low, high = prediction_range(exercise)
        kept = [r[np.isfinite(r) & (r >= low) & (r <= high)] for r in rounds]
        unit = f" {exercise.unit}" if exercise.unit else ""
        what = f"outside {format_number(low)} to {format_number(high)}{unit}, the range that makes sense here"
        drawn = np.concatenate(kept)
        if drawn.size == 0:
            return f"None of the {total} predictions can be drawn: each is {what}."
        whole = exercise.quantity in lab_kinds()[exercise.lab].counts
        edges = bin_edges(drawn, exercise.answer if revealed else None, whole=whole)
    counts = [np.histogram(r, bins=edges)[0] for r in kept]
    left_out = total - sum(len(r) for r in kept)
    note = "" if not left_out else f"{left_out} of the {total} predictions are not drawn: {what}."
    return Chart(edges, counts, note)


def chart_table(chart: Chart, shown: list[RoundVotes], unit: str, choices: tuple[str, ...] = ()) -> str:
    """A :class:`Chart` as a table, a row per bin (per choice with ``choices``), a column per round, and its note."""
    heads = "".join(f'<th scope="col">round {r.round.number}</th>' for r in shown)
    rows = []
    edges = chart.edges
    for k in range(len(edges) - 1):
        cells = "".join(f"<td>{int(c[k])}</td>" for c in chart.counts)
        if choices:
            name = html.escape(choices[k])
        elif edges[k + 1] - edges[k] == 1 and edges[k] % 1 == 0.5:  # a whole-number bin: its one value
            name = f"{format_number(float(edges[k]) + 0.5)} {html.escape(unit)}"
        else:
            low, high = format_number(float(edges[k])), format_number(float(edges[k + 1]))
            name = f"{low} to {high} {html.escape(unit)}"
        rows.append(f'<tr><th scope="row">{name}</th>{cells}</tr>')
    caption = "Predictions per choice" if choices else "Predictions per range"
    note = f'<p class="class-note">{html.escape(chart.note)}</p>' if chart.note else ""
    return (
        f'{note}<table class="class-counts"><caption>{caption}</caption>'
        f'<thead><tr><th scope="col">prediction</th>{heads}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )
