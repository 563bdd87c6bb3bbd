"""The roofline lab's words: number formats, the readout, the explanation, captions, plot descriptions.

Everything here is a pure function of the model (and of whether an exercise conceals the answer),
so the headless tests read it without building a figure.
"""

from __future__ import annotations

import math

from labs.numbers import fixed, significant
from labs.roofline.model import AT_RIDGE, MEMORY_BOUND, RooflineModel
from labs.ui.palette import BLUE, KERNEL_GREEN, MUTED_GREY, ORANGE
from labs.ui.playback import escape
from labs.ui.plot_text import PlotText

UNITS = {"intensity": "FLOP/byte", "bandwidth": "GB/s", "peak_compute": "GFLOP/s"}

MEMORY_COLOUR = BLUE
COMPUTE_COLOUR = ORANGE

X_RANGE = (1 / 16, 4096.0)
"""The intensity axis: every value the control accepts, fixed so the chart never jumps."""

ROOFLINE_COLUMNS = ("point", "I (FLOP/byte)", "performance (GFLOP/s)")
"""The roofline table's columns."""

TERA_FROM = 10_000.0
"""From this many GFLOP/s on, the readout adds the figure in TFLOP/s in brackets."""


def performance(value: float) -> str:
    """A rate in GFLOP/s for the readout, with TFLOP/s in brackets when that reads better.

    Parameters
    ----------
    value : float
        GFLOP/s.

    Returns
    -------
    str
        ``"800 GFLOP/s"`` or ``"26800 GFLOP/s (26.8 TFLOP/s)"``.
    """
    text = f"{significant(value)} GFLOP/s"
    if value >= TERA_FROM:
        text += f" ({significant(value / 1000)} TFLOP/s)"
    return text


def axis_label(value: float) -> str:
    """Label a power-of-ten tick on the performance axis.

    Parameters
    ----------
    value : float
        A power of ten, in GFLOP/s.

    Returns
    -------
    str
        ``"0.01"`` … ``"1000"``, then ``"10 000"`` with thin spaces, and ``"10⁻³"`` below 0.01.
    """
    exponent = round(math.log10(value))
    if exponent < -2:
        return "10" + str(exponent).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    if exponent < 4:
        return significant(value)
    return f"{10**exponent:,}".replace(",", "\u2009")


def performance_range(peak_compute: float) -> tuple[float, float]:
    """The performance axis for a compute roof: six decades, the roof at least 10× below the top.

    Parameters
    ----------
    peak_compute : float
        P in GFLOP/s.

    Returns
    -------
    tuple of float
        ``(bottom, top)`` in GFLOP/s, powers of ten; it depends on P only, so moving I or B
        never moves it.
    """
    top = 10.0 ** math.ceil(math.log10(peak_compute * 10))
    return top / 1e6, top


def readout_template(m: RooflineModel, conceal: bool) -> str:
    """The readout: attainable, regime and ridge, then the race's live figures (filled in by Play)."""
    unit, seconds = m.time_unit
    ridge = escape(f"ridge = {'?' if conceal else significant(m.ridge)} FLOP/byte")
    if conceal:
        head = "<strong>attainable = ? GFLOP/s</strong> · regime shown once you have run the exercise"
    else:
        head = f"<strong>{escape('attainable = ' + performance(m.attainable))}</strong> · {escape(m.regime)}"
    # While concealed the finish time stays out: 8 GFLOP over it is the attainable rate.
    of_finish = "" if conceal else f" of {significant(m.finish_time / seconds)}"
    race = escape(
        f"device time = {{time:2}}{of_finish} {unit} · bytes moved {{bytes_pct:0}}% · FLOPs done {{flops_pct:0}}%"
    )
    return f"{head} · {ridge}<br>{race}"


def explain_html(m: RooflineModel, conceal: bool) -> str:
    """Why the kernel attains what it does: outside the live status, so it is not re-read on every change."""
    if conceal:
        return ""
    unit, seconds = m.time_unit
    side = {AT_RIDGE: "on", MEMORY_BOUND: "left of"}.get(m.regime, "right of")
    memory, compute = significant(m.memory_time / seconds), significant(m.compute_time / seconds)
    slower = "memory sets" if m.memory_time > m.compute_time else "compute sets"
    if m.at_ridge:
        slower = "both sides set"
    why = (
        f"I = {significant(m.intensity)} FLOP/byte is {side} the ridge. {significant(m.work)} GFLOP moving "
        f"{significant(m.traffic)} GB: memory needs {memory} {unit}, compute needs {compute} {unit}; "
        f"{slower} the finish, and {significant(m.work)} GFLOP in {significant(m.finish_time / seconds)} {unit} "
        f"is {performance(m.achieved_rate)}."
    )
    return f"<p style='margin:2px 0;font-size:0.95rem'>{escape(why)}</p>"


def scope_html() -> str:
    """What the lab models and what it leaves out."""
    return (
        f"<p style='font-size:0.9rem;color:{MUTED_GREY}'>B is the bandwidth between the device and its "
        "own memory, not network bandwidth. Play runs a fixed 8 GFLOP of work and changes "
        "neither I nor B. The lab shows one resource ceiling on one device: it has no "
        "collectives, no second kernel competing for memory, no ranks and no network.</p>"
    )


def pace_caption() -> str:
    """The key to what Play draws on the roofline: the pace line and the faster side's point."""
    return (
        f"<p style='font-size:0.875rem;color:{MUTED_GREY};margin:0'>"
        "<span aria-hidden='true' style='display:inline-block;width:22px;"
        f"border-top:2px dashed {KERNEL_GREEN};vertical-align:middle;margin:0 4px 0 0'></span>"
        "Play: the dashed line is 8 GFLOP ÷ the device time so far, the rate that would have done "
        "the whole workload by now. A ceiling above it is done: at your I the line passes the faster "
        "side first (the ringed point, with its time alone) and reaches your kernel at the finish, "
        "so the slower side sets the finish and 8 GFLOP ÷ that time is attainable.</p>"
    )


def roofline_text(m: RooflineModel, conceal: bool) -> PlotText:
    """The roofline plot in words and a table, as drawn; while concealed, the two ceilings alone.

    Parameters
    ----------
    m : RooflineModel
        The model, as it is now.
    conceal : bool
        Whether a guided exercise hides its answer: then neither the ridge, nor the regime, nor the
        attainable rate, nor the roof's bend (which sits at the ridge) is described.

    Returns
    -------
    PlotText
        The summary and the table's rows: the roof at both edges, the ridge and the kernel, or
        (concealed) each ceiling at both edges.
    """
    if conceal:
        return _ceilings_text(m)
    x0, x1 = X_RANGE
    intensity = significant(m.intensity)
    summary = (
        f"log–log axes, I from {significant(x0)} to {significant(x1)} FLOP/byte. The roof rises with slope "
        f"B = {significant(m.bandwidth)} GB/s to the ridge at I = {significant(m.ridge)} FLOP/byte, then "
        f"stays flat at P = {significant(m.peak_compute)} GFLOP/s. Your kernel: I = {intensity} FLOP/byte, "
        f"{performance(m.attainable)}, {m.regime}."
    )
    rows = [
        ["roof at the left edge", significant(x0), significant(min(m.peak_compute, x0 * m.bandwidth))],
        ["ridge", significant(m.ridge), significant(m.peak_compute)],
        ["roof at the right edge", significant(x1), significant(min(m.peak_compute, x1 * m.bandwidth))],
        ["your kernel", intensity, significant(m.attainable)],
    ]
    unit, seconds = m.time_unit
    if not m.at_ridge:  # the faster side's ceiling at the kernel's I, ringed on the plot
        memory_faster = m.memory_time < m.compute_time
        side = "memory" if memory_faster else "compute"
        ceiling = m.intensity * m.bandwidth if memory_faster else m.peak_compute
        alone = min(m.memory_time, m.compute_time) / seconds
        summary += (
            f" Ringed above it: the {side} ceiling at your I, {performance(ceiling)}; {side} alone would be "
            f"done in {significant(alone)} {unit}."
        )
        rows.append([f"{side} ceiling at your I (alone: {significant(alone)} {unit})", intensity, significant(ceiling)])
    if m.t > 0:
        pace = float(m.pace_at(m.device_time))
        done = "it has reached your kernel: done" if m.t >= m.horizon else "your kernel is not done yet"
        summary += (
            f" Play, at {fixed(m.device_time / seconds)} of {significant(m.finish_time / seconds)} {unit}: the pace "
            f"line, {significant(m.work)} GFLOP ÷ time so far, is at {performance(pace)}; {done}."
        )
        rows.append(["pace line (work ÷ time so far)", "every I", significant(pace)])
    return PlotText("Roofline plot", summary, ROOFLINE_COLUMNS, rows)


def _ceilings_text(m: RooflineModel) -> PlotText:
    """The concealed roofline: two straight lines across the plot, and nothing about where they cross."""
    x0, x1 = X_RANGE
    B, P = m.bandwidth, m.peak_compute
    summary = (
        f"log–log axes, I from {significant(x0)} to {significant(x1)} FLOP/byte. Two ceilings, each a straight "
        f"line across the plot: the memory slope I·B with B = {significant(B)} GB/s, and the flat compute roof "
        f"P = {significant(P)} GFLOP/s. Which one limits your kernel, at I = {significant(m.intensity)} "
        "FLOP/byte, is shown once you have run the exercise."
    )
    rows = [
        ["memory slope at the left edge", significant(x0), significant(x0 * B)],
        ["memory slope at the right edge", significant(x1), significant(x1 * B)],
        ["compute roof at the left edge", significant(x0), significant(P)],
        ["compute roof at the right edge", significant(x1), significant(P)],
    ]
    return PlotText("Roofline plot", summary, ROOFLINE_COLUMNS, rows)
