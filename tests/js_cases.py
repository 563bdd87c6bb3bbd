"""The one table of cases for the Python functions that have a twin in the browser's JavaScript.

The page draws Play frames and formats figures in JavaScript (``labs/ui/assets/formats.js``,
``sampling.js``, ``roofline_hover.js``) by the rules of Python functions (``labs/numbers.py``,
``labs/ui/playback.py``, ``labs/roofline/model.py``). This module computes what the Python side
gives for a fixed set of inputs; ``tests/fixtures/js_twins.json`` holds the result, the Node tests
in ``tests/js/`` check the JavaScript against it, and ``tests/labs/test_js_twins.py`` checks that the
file is still what Python computes. After a deliberate change to a rule, write the table again::

    .venv/bin/python -m tests.js_cases

Inputs that JSON cannot hold (NaN, infinities, -0.0) are written as text that JavaScript's
``Number()`` reads back exactly (:func:`js_number`).
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from labs.numbers import fixed, significant
from labs.roofline.model import AT_RIDGE, COMPUTE_BOUND, MEMORY_BOUND, RooflineModel
from labs.ui.playback import clipped, fill_template, float_columns, plain_columns, revealed, sample

FIXTURE = Path(__file__).parent / "fixtures" / "js_twins.json"

SEED = 17
"""The random inputs are the same on every run: the table is written once and read by both sides."""

GANTT_COLUMNS = ("start", "end", "label", "row", "kind")
"""The timeline Gantt's columns in the table."""

SIDES = {MEMORY_BOUND: "memory-bound", COMPUTE_BOUND: "compute-bound", AT_RIDGE: "at the ridge"}
"""How the roofline hover names the model's regime."""


def js_number(value: float) -> str:
    """A float as text that JavaScript's ``Number()`` reads back exactly.

    Parameters
    ----------
    value : float
        Any float, NaN and infinities included.

    Returns
    -------
    str
        ``"NaN"``, ``"Infinity"``, ``"-Infinity"`` or Python's shortest round-trip ``repr``.
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


def exact_tie(value: float, places: int) -> bool:
    """Whether ``value`` lies exactly halfway at ``places`` decimals (Python rounds to even, JS up).

    Parameters
    ----------
    value : float
        The number.
    places : int
        Decimals to round to (negative: tens, hundreds, ...).

    Returns
    -------
    bool
        True when the two languages may round it differently.
    """
    if not math.isfinite(value):
        return False
    scaled = Fraction(value) * Fraction(10) ** places * 2
    return scaled.denominator == 1 and scaled.numerator % 2 == 1


def _edge_values() -> list[float]:
    values = [0.0, -0.0, -0.001, 0.004999, 6.0, -2.5, 1234.5678, 999999999999.99, 1e12, -3.3e15, 1e302]
    values += [9007199254740991.0, 5e-324, math.nan, math.inf, -math.inf, 0.125, 2.675, 1e21, 123456.785]
    values += [float(f"{k}.{k}") * sign for k in range(0, 200, 7) for sign in (1, -1)]
    values += [800.0, 295.2238, 0.0625, 989_000.0, 1e-5, 1e-6, 9.9999e-7, 999_999_999_999.0, -1e-300]
    return values


def _random_values(count: int) -> list[float]:
    """Floats of every kind: random bit patterns (NaN, subnormals, huge) and ordinary magnitudes."""
    rng = np.random.default_rng(SEED)
    bits = rng.integers(0, 2**64, size=count // 2, dtype=np.uint64).view(np.float64)
    fractions = rng.uniform(-1, 1, size=count - count // 2)
    exponents = rng.integers(-9, 14, size=count - count // 2)
    # Scaled exactly, then rounded once (Fraction to float): numpy's vectorised power and product can
    # differ in the last bit between CPUs, and the table went stale on a new machine.
    ordinary = [
        float(Fraction(fraction) * Fraction(10) ** exponent)
        for fraction, exponent in zip(fractions.tolist(), exponents.tolist(), strict=True)
    ]
    return [float(v) for v in bits] + ordinary


def _significant_tie(value: float, digits: int = 4) -> bool:
    if not math.isfinite(value) or value == 0:
        return False
    places = digits - 1 - math.floor(math.log10(abs(value)))
    return exact_tie(value, places) or exact_tie(value, places - 1)


def figure_cases() -> list[dict[str, Any]]:
    """``labs.numbers.fixed`` as ``formats.js`` ``figure()`` must give it, at 0, 1 and 2 decimals."""
    return [
        {"value": js_number(v), "digits": d, "text": fixed(v, d), "tie": exact_tie(v, d)}
        for v in _edge_values() + _random_values(100)
        for d in (0, 1, 2)
    ]


def fill_cases() -> list[dict[str, Any]]:
    """``fill_template`` as ``formats.js`` ``fill()`` must give it."""
    templates = [
        ("t = {t} s · backlog = {backlog:1} units · {missing}", {"t": -0.001, "backlog": -1e300}),
        ("t = {t} s · backlog = {backlog} units", {"t": 2.5, "backlog": 6.0}),
        ("{a:0}/{a:3}/{a}/{b:4} and {c:x} {a:}", {"a": 1 / 3, "b": math.nan}),
        ("attainable = {perf:0} GFLOP/s &lt;b&gt;{t:1}", {"perf": 1e13, "t": math.inf}),
        ("no placeholders", {"t": 1.0}),
    ]
    return [
        {
            "template": template,
            "values": {key: js_number(value) for key, value in values.items()},
            "text": fill_template(template, values),
        }
        for template, values in templates
    ]


def significant_cases() -> list[dict[str, Any]]:
    """``labs.numbers.significant`` (4 digits) as ``formats.js`` ``significant()`` must give it."""
    return [
        {"value": js_number(v), "text": significant(v), "tie": _significant_tie(v)}
        for v in _edge_values() + _random_values(300)
    ]


def hover_cases() -> list[dict[str, Any]]:
    """The roofline hover's text from the model's attainable and regime, at devices and intensities."""
    rng = np.random.default_rng(SEED)
    intensities = [1 / 16, 0.25, 1.0, 2.0, 5.0, 8.0, 10.0, 64.0, 4096.0, *map(float, 2.0 ** rng.uniform(-4, 12, 12))]
    devices = [(1000.0, 200.0), (1000.0, 100.0), (19_500.0, 1_555.0), (989_000.0, 3_350.0), (1.0, 1e4), (1e7, 1.0)]
    cases = []
    for peak, bandwidth in devices:
        for intensity in intensities:
            model = RooflineModel(intensity=intensity, bandwidth=bandwidth, peak_compute=peak)
            product = intensity * bandwidth
            if model.at_ridge and product != peak:
                continue  # within the model's 10^-9 of the ridge the hover, which compares exactly, names a side
            if _significant_tie(intensity) or _significant_tie(model.attainable):
                continue
            attainable, side = significant(model.attainable), SIDES[model.regime]
            text = f"I = {significant(intensity)} FLOP/byte: attainable = {attainable} GFLOP/s ({side})"
            cases.append({"I": intensity, "P": peak, "B": bandwidth, "text": text})
    return cases


def _trajectories() -> list[dict[str, list[float]]]:
    from labs.queue.model import QueueModel

    made = [
        {"t": [0.0, 2.0, 10.0], "backlog": [4.0, 0.0, 0.0]},
        {"t": [0.0, 1.0, 3.0, 6.0], "a": [1.0, -2.0, 5.5, 5.5], "b": [0.0, 0.1, 0.2, 0.3]},
        {"t": [0.0], "backlog": [7.0]},
    ]
    real = [QueueModel().trajectory(), QueueModel(arrival_rate=1.5, service_rate=0.5).trajectory()]
    roofline = RooflineModel(intensity=8.0, bandwidth=100.0).trajectory()
    real.append({key: column[:6] for key, column in roofline.items()})  # its pace: held, then falling
    return made + [float_columns(trajectory) for trajectory in real]


def _times(ts: list[float]) -> list[float]:
    """Before the start, on and between every breakpoint, and past the end."""
    times = [-1.0, *ts, ts[-1] + 2.5]
    times += [(a + b) / 2 for a, b in zip(ts, ts[1:], strict=False)]
    times += [a + (b - a) / 3 for a, b in zip(ts, ts[1:], strict=False)]
    return sorted(set(times))


def sampling_cases() -> list[dict[str, Any]]:
    """``sample`` and ``revealed`` for each trajectory at times before, on, between and after its breakpoints."""
    cases = []
    for trajectory in _trajectories():
        arrays = {key: np.asarray(column, dtype=float) for key, column in trajectory.items()}
        times = _times(trajectory["t"])
        cases.append(
            {
                "trajectory": trajectory,
                "at": times,
                "sample": [sample(arrays, t) for t in times],
                "revealed": [revealed(arrays, t) for t in times],
            }
        )
    return cases


def clipped_cases() -> list[dict[str, Any]]:
    """``clipped`` for hand-made bars and the bucket timeline's Gantt, before, during and after each bar.

    Of the Gantt's columns only those ``clipped`` reads and two it passes through are kept: its
    colours belong to the palette, not to this table.
    """
    from labs.timeline.figures import bar_columns
    from labs.timeline.model import TimelineModel

    made = {"start": [0.0, 1.0, 1.0, 4.0], "end": [2.0, 3.0, 1.0, 9.0], "row": [0, 1, 1, 2]}
    made["label"] = ["a", "b", "", "d"]
    gantt = {key: column for key, column in plain_columns(bar_columns(TimelineModel())).items() if key in GANTT_COLUMNS}
    cases = []
    for bars in (made, gantt):
        times = _times(sorted({float(x) for x in bars["start"]} | {float(x) for x in bars["end"]}))
        cases.append({"intervals": bars, "at": times, "clipped": [plain_columns(clipped(bars, t)) for t in times]})
    return cases


def cases() -> dict[str, list[dict[str, Any]]]:
    """Every case, by the JavaScript function that must reproduce it.

    Returns
    -------
    dict
        ``figure``, ``fill``, ``significant``, ``hover``, ``sampling`` and ``clipped`` cases.
    """
    return {
        "figure": figure_cases(),
        "fill": fill_cases(),
        "significant": significant_cases(),
        "hover": hover_cases(),
        "sampling": sampling_cases(),
        "clipped": clipped_cases(),
    }


def as_json(table: dict[str, list[dict[str, Any]]]) -> str:
    """The table as JSON text, one case a line (a changed rule shows as changed lines in a diff).

    Parameters
    ----------
    table : dict
        What :func:`cases` returns.

    Returns
    -------
    str
        Strict JSON (no NaN): JavaScript's ``JSON.parse`` reads it.
    """
    groups = []
    for name, rows in table.items():
        lines = ",\n".join("  " + json.dumps(row, ensure_ascii=False, allow_nan=False) for row in rows)
        groups.append(f"{json.dumps(name)}: [\n{lines}\n]")
    return "{\n" + ",\n".join(groups) + "\n}\n"


def main() -> None:
    """Write the table to ``tests/fixtures/js_twins.json``."""
    FIXTURE.write_text(as_json(cases()), encoding="utf-8")
    print(f"wrote {FIXTURE}")


if __name__ == "__main__":
    main()
