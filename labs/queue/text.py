"""The queue lab's words: the readout, the M/M/1 reference, the backlog plot described, and the axis peak.

Everything here is a pure function of the model (and of whether an exercise conceals the answer),
so the headless tests read it without building a figure.
"""

from __future__ import annotations

from labs.numbers import fixed, fixed_apart
from labs.queue.model import QueueModel
from labs.ui.palette import MUTED_GREY, PURPLE
from labs.ui.playback import escape, revealed
from labs.ui.plot_text import PlotText, path_words

UNITS = {"arrival_rate": "units/s", "service_rate": "units/s", "initial_backlog": "units", "arrivals_stop": "s"}

TITLE = "Fluid backlog q(t) = max(0, q0 + (λ − μ)·t)"
TITLE_WITH_STOP = "Fluid backlog: q0 + (λ − μ)·t until arrivals stop at T, then down at μ (never below 0)"

MM1_ASSUMPTIONS = (
    "Poisson arrivals at rate λ, exponential service times at rate μ, one server, "
    "steady state. This is a different model from the fluid curve above: it describes "
    "long-run averages of a random queue, not this deterministic backlog."
)


def readout_template(model: QueueModel, conceal: bool) -> str:
    """The readout, with ``{t}`` and ``{backlog}`` for playback to fill; while concealed, no rates.

    Parameters
    ----------
    model : QueueModel
        The session's model.
    conceal : bool
        Whether an exercise hides its answer (the net rate gives the backlog away).

    Returns
    -------
    str
        Escaped text with placeholders.
    """
    readout = "t = {t} s · backlog = {backlog} units"
    stop = model.arrivals_stop
    if stop is not None:
        readout += f" · arrivals stop at {model.shown_value('arrivals_stop')} s"
    if conceal:
        return escape(readout)
    readout += f" · net rate λ − μ = {fixed(model.net_rate, sign=True)} units/s"
    if stop is not None:
        after = fixed(-model.service_rate, sign=True).replace("-", "−")  # never "−0.00"
        readout += f" until then, {after} units/s after"
    return escape(readout)


def axis_peak(model: QueueModel, conceal: bool) -> float:
    """The highest backlog the axis must show.

    While an exercise hides its answer, the axis is scaled as if arrivals never stopped, so that
    its height does not hint at the backlog left when they stop.

    Parameters
    ----------
    model : QueueModel
        The session's model.
    conceal : bool
        Whether an exercise hides its answer.

    Returns
    -------
    float
        Work units.
    """
    if conceal and model.arrivals_stop is not None:
        return max(model.initial_backlog, model.initial_backlog + model.net_rate * model.horizon)
    return max(float(model.trajectory()["backlog"].max()), model.initial_backlog)


def mean_on_chart(model: QueueModel, peak: float) -> bool:
    """Whether the M/M/1 mean is drawn as a line: only while it does not dwarf the backlog.

    Near ρ = 1 the mean grows without bound (L = 7 × 10^15 at ρ = 1 − 10^-16); stretching the
    axis to it would flatten the backlog the lab is about, so it is then named, not drawn.

    Parameters
    ----------
    model : QueueModel
        The session's model.
    peak : float
        The backlog the axis shows (:func:`axis_peak`).

    Returns
    -------
    bool
        True when the line is drawn.
    """
    ref = model.mm1
    return ref is not None and ref.L <= max(4 * peak, 10)


def mm1_html(model: QueueModel) -> str:
    """The M/M/1 reference panel: ρ, L, Lq, W, Wq or "no steady state", and its assumptions.

    Parameters
    ----------
    model : QueueModel
        The session's model.

    Returns
    -------
    str
        A ``<section>`` named "M/M/1 reference", with inline styles (Panel replaces the stylesheets
        of the Bokeh models it renders).
    """
    ref = model.mm1
    if ref is None:
        body = (
            f"<p>ρ = λ/μ = {fixed(model.rho)} ≥ 1: <strong>no steady state</strong>. "
            "Work arrives at least as fast as it can be served, so the random queue grows "
            "without bound and has no long-run mean.</p>"
        )
    else:
        body = (
            f"<p>ρ = λ/μ = {fixed_apart(ref.rho, 1)}; mean number in system L = {fixed(ref.L)}; "
            f"waiting Lq = {fixed(ref.Lq)}; mean time in system W = {fixed(ref.W)} s; "
            f"waiting Wq = {fixed(ref.Wq)} s.</p>"
        )
    if model.arrivals_stop is not None:
        body += "<p>The M/M/1 reference assumes arrivals never stop: the stop time is not part of it.</p>"
    return (
        f'<section aria-label="M/M/1 reference" style="border:1px dashed {PURPLE};border-radius:6px;'
        'padding:4px 12px;font-size:0.95rem;line-height:1.4">'
        f'<h3 style="margin:4px 0;font-size:1.05rem">M/M/1 reference</h3>{body}'
        f'<p style="font-size:0.875rem;color:{MUTED_GREY};margin:4px 0">Assumptions: {MM1_ASSUMPTIONS}</p>'
        "</section>"
    )


def backlog_text(model: QueueModel, conceal: bool) -> PlotText:
    """The backlog plot as drawn now: the path up to t, the stop line and the M/M/1 mean.

    Parameters
    ----------
    model : QueueModel
        The session's model.
    conceal : bool
        Whether an exercise hides its answer.

    Returns
    -------
    PlotText
        The plot in words and as a table of the points drawn.
    """
    drawn = revealed(model.trajectory(), model.t)
    ts, backlog = list(drawn["t"]), list(drawn["backlog"])
    summary = path_words(ts, backlog, "units")
    stop = model.arrivals_stop
    if stop is not None and stop <= model.horizon:
        summary += f". A line marks arrivals stopping at t = {model.shown_value('arrivals_stop')} s"
    ref = model.mm1
    if ref is not None and mean_on_chart(model, axis_peak(model, conceal)):
        summary += f". A dashed line marks the M/M/1 mean L = {fixed(ref.L)}"
    elif ref is not None:
        summary += f". The M/M/1 mean L = {fixed(ref.L)} is above the chart"
    rows = [[fixed(t), fixed(q)] for t, q in zip(ts, backlog, strict=True)]
    return PlotText("Backlog plot", summary + ".", ("t (s)", "backlog (units)"), rows)
