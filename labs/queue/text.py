"""The queue lab's words: the readout, the M/M/1 reference, the backlog plot described, and the axis's end.

Everything here is a pure function of the model (and of whether an exercise conceals the answer),
so the headless tests read it without building a figure.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np

from labs.numbers import fixed, fixed_apart, nice_at_least
from labs.queue.model import QueueModel
from labs.ui import stylesheet
from labs.ui.playback import escape, revealed
from labs.ui.plot_text import PlotText, path_words

ASSETS = Path(__file__).parent / "assets"
# The M/M/1 box's inline styles (each file holds declarations only): its box, heading and assumptions.
MM1_BOX, MM1_HEADING, MM1_NOTE = (
    stylesheet(ASSETS / f"mm1_{part}.css", compact=True) for part in ("box", "heading", "note")
)

UNITS = {
    "arrival_rate": "units/s",
    "service_rate": "units/s",
    "initial_backlog": "units",
    "arrivals_stop": "s",
    "seed": "",
}

TITLE = "Fluid backlog q(t) = max(0, q0 + (λ − μ)·t)"
# Bokeh does not wrap a title: a long one is cut at the plot's edge (on a 390 px phone, after about
# 43 characters, as long as TITLE), so the long ones come in lines no longer than it.
TITLE_WITH_STOP = "Fluid backlog q0 + (λ − μ)·t until\narrivals stop at T, then down at μ\n(never below 0)"
TITLE_RANDOM = "Fluid backlog q(t) (blue);\na random M/M/1 queue: jobs (grey steps)\nand their running average (purple)"

RANDOM_HIDES_MM1 = frozenset({"random_average"})
"""The quantities an exercise asks about that the M/M/1 figures answer: while one is hidden, so are they."""

MM1_ASSUMPTIONS = (
    "Poisson arrivals at rate λ, exponential service times at rate μ, one server, "
    "steady state. This is a different model from the fluid curve above: it describes "
    "long-run averages of a random queue, not this deterministic backlog."
)


def readout_template(model: QueueModel, conceal: bool, hidden: str = "") -> str:
    """The readout, with ``{t}`` and ``{backlog}`` for playback to fill; while concealed, no rates.

    With the random queue on, also ``random = N jobs`` and ``average = x jobs`` (``{random:0}`` and
    ``{average}``), the average left out while an exercise asks for it.

    Parameters
    ----------
    model : QueueModel
        The session's model.
    conceal : bool
        Whether an exercise hides its answer (the net rate gives the backlog away).
    hidden : str
        While concealed, the quantity the exercise asks for.

    Returns
    -------
    str
        Escaped text with placeholders.
    """
    readout = "t = {t} s · backlog = {backlog} units"
    if model.random_queue:
        readout += " · random = {random:0} jobs"
        if not conceal or hidden != "random_average":
            readout += " · average = {average} jobs"
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


AXIS_MANTISSAS = (1.0, 2.0, 2.5, 5.0)
"""The backlog axis ends at one of these times a power of ten."""

AXIS_MARGIN = 1.1
"""The backlog axis ends at least this far past the level it allows for (:func:`axis_peak`)."""

RARE_PEAK = 0.05
"""About how often a random run (ρ < 1) passes the level :func:`random_reach` allows for."""


def nice_ceiling(value: float) -> float:
    """Round up to 1, 2, 2.5 or 5 times a power of ten, for an axis that does not jump on every edit.

    Parameters
    ----------
    value : float
        A number; 0 or less gives 1.

    Returns
    -------
    float
        The smallest of 1, 2, 2.5, 5 or 10 times a power of ten that is ≥ value.
    """
    if value <= 0:
        return 1.0
    return nice_at_least(value, AXIS_MANTISSAS)


def readout_room(model: QueueModel) -> str:
    """The longest readout the lab shows for these controls, every figure masked, as plain text.

    The unconcealed readout at the horizon, each placeholder a wide figure, every digit a 0, every sign +:
    the words depend only on which controls are on (the random queue, a stop), so it tells nothing
    an exercise conceals, and the readout keeps its height when the run ends and the rates show.

    Parameters
    ----------
    model : QueueModel
        The session's model.

    Returns
    -------
    str
        Plain text.
    """
    words = html.unescape(readout_template(model, conceal=False))
    words = re.sub(r"\{\w+(?::\d+)?\}", "000.00", words)
    return re.sub(r"\d", "0", re.sub(r"[-+−](?=\d)", "+", words))  # the net rate's sign is an answer too


def fluid_reach(model: QueueModel) -> float:
    """The fluid backlog's highest point over the horizon as if arrivals never stopped, in work units.

    Arrivals that stop only bring the line down sooner, so this is at least its real peak, and it
    says nothing about the backlog left when they stop (an exercise may ask for it).

    Parameters
    ----------
    model : QueueModel
        The session's model.

    Returns
    -------
    float
        max(q0, q0 + (λ − μ)·horizon).
    """
    return max(model.initial_backlog, model.initial_backlog + model.net_rate * model.horizon)


def axis_peak(model: QueueModel) -> float:
    """The highest backlog the axis allows for, from the controls and the horizon alone.

    The fluid line as if arrivals never stopped (:func:`fluid_reach`); with the random queue on, also
    the level its run seldom passes, from the rates (:func:`random_reach`, never the seeded run);
    with it off, the M/M/1 mean when it does not dwarf the backlog (it is hidden only while an
    exercise asks for the random queue's average). Neither ``t``, nor whether an exercise conceals
    its answer, nor the seed enters: the axis is the same from Reset to the end of a run, before and
    after an exercise reveals its answer, and the axis hints at no answer.

    Parameters
    ----------
    model : QueueModel
        The session's model.

    Returns
    -------
    float
        Work units (or jobs).
    """
    fluid = fluid_reach(model)
    if model.random_queue:
        return max(fluid, random_reach(model))
    ref = model.mm1
    if ref is not None and ref.L <= max(4 * fluid, 10):
        return max(fluid, ref.L)
    return fluid


def axis_top(model: QueueModel) -> float:
    """Where the backlog axis ends: :data:`AXIS_MARGIN` past :func:`axis_peak`, rounded up by :func:`nice_ceiling`."""
    peak = axis_peak(model)
    return nice_ceiling(peak * AXIS_MARGIN if peak > 0 else 1)


def random_reach(model: QueueModel) -> float:
    """A level the random path seldom passes in its run, from the rates alone (not from the seed).

    For ρ < 1, round(q0) plus the level n at which λ·horizon·(1 − ρ)²·ρ^(n−1), about how many busy
    periods of the run climb to n jobs, falls to :data:`RARE_PEAK` (at least 1 job), and never more
    than 3.5 standard deviations of the random walk, 3.5·√((λ + μ)·horizon), which is the tighter
    near ρ = 1; otherwise the fluid line's end plus three standard deviations, 3·√((λ + μ)·horizon).

    Parameters
    ----------
    model : QueueModel
        The session's model.

    Returns
    -------
    float
        Jobs.
    """
    lam, mu, horizon = model.arrival_rate, model.service_rate, model.horizon
    start = round(model.initial_backlog)
    walk = float(np.sqrt((lam + mu) * horizon))
    if lam < mu:  # (with nothing arriving, the path only drains from its start)
        rho = lam / mu
        busy = lam * horizon * (1 - rho) ** 2 / RARE_PEAK
        level = 1 + float(np.log(busy) / np.log(1 / rho)) if busy > 1 and rho > 0 else 1.0
        return start + max(1.0, min(level, 3.5 * walk))
    return start + (lam - mu) * horizon + 3 * walk


def mean_on_chart(model: QueueModel, top: float) -> bool:
    """Whether the M/M/1 mean is drawn as a line: only where it fits under the axis's end.

    Near ρ = 1 the mean grows without bound (L = 7 × 10^15 at ρ = 1 − 10^-16); the axis is not
    stretched to it (:func:`axis_peak`), which would flatten the backlog the lab is about, so it
    is then named, not drawn.

    Parameters
    ----------
    model : QueueModel
        The session's model.
    top : float
        Where the axis ends (:func:`axis_top`).

    Returns
    -------
    bool
        True when the line is drawn.
    """
    ref = model.mm1
    return ref is not None and ref.L <= top


def mm1_html(model: QueueModel, hide: bool = False) -> str:
    """The M/M/1 reference panel: ρ, L, Lq, W, Wq or "no steady state", and its assumptions.

    With the random queue on, also what its running average should approach (or that it has nothing
    to approach).

    Parameters
    ----------
    model : QueueModel
        The session's model.
    hide : bool
        An exercise asks for what L answers (the random queue's average): ρ shows, the means do not.

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
    elif hide:
        body = (
            f"<p>ρ = λ/μ = {fixed_apart(ref.rho, 1)}; the means L, Lq, W and Wq are hidden until you "
            "have run the exercise.</p>"
        )
    else:
        body = (
            f"<p>ρ = λ/μ = {fixed_apart(ref.rho, 1)}; mean number in system L = {fixed(ref.L)}; "
            f"waiting Lq = {fixed(ref.Lq)}; mean time in system W = {fixed(ref.W)} s; "
            f"waiting Wq = {fixed(ref.Wq)} s.</p>"
        )
    if model.random_queue:
        if ref is None:
            body += (
                "<p>Random queue: no steady state, so its running average approaches nothing; its path "
                "grows without bound, like the fluid line but noisily.</p>"
            )
        elif not hide:
            body += (
                f"<p>Random queue: over a long run its running average should approach L = {fixed(ref.L)} "
                f"jobs (seed {model.seed}; {fixed(model.horizon, 0)} s is one run, so expect it near L, "
                "not on it).</p>"
            )
    if model.arrivals_stop is not None:
        body += "<p>The M/M/1 reference assumes arrivals never stop: the stop time is not part of it.</p>"
    return (
        f'<section aria-label="M/M/1 reference" style="{MM1_BOX}">'
        f'<h3 style="{MM1_HEADING}">M/M/1 reference</h3>{body}'
        f'<p style="{MM1_NOTE}">Assumptions: {MM1_ASSUMPTIONS}</p>'
        "</section>"
    )


def random_words(model: QueueModel, hide_average: bool) -> str:
    """The random queue's path as drawn up to t, in words (its points are too many for a table).

    Parameters
    ----------
    model : QueueModel
        The session's model, with the random queue on.
    hide_average : bool
        Leave the running average out (an exercise asks for it).

    Returns
    -------
    str
        One sentence without a final full stop.
    """
    t = model.t
    path = model.random_path
    seen = path.jobs[path.times <= t]
    low = int(min(path.start, seen.min())) if seen.size else path.start
    words = (
        f"A grey step line shows a random M/M/1 queue (seed {model.seed}): {path.start} jobs at t = 0.00 s, "
        f"{int(seen.size)} arrivals and departures up to t = {fixed(t)} s, between {low} and "
        f"{fixed(model.random_peak_at(t), 0)} jobs, now {fixed(model.random_jobs_at(t), 0)} jobs"
    )
    if not hide_average:
        words += f". A purple line shows its running time-average, now {fixed(model.random_average_at(t))} jobs"
    return words


def backlog_text(model: QueueModel, conceal: bool, hidden: str = "") -> PlotText:
    """The backlog plot as drawn now: the path up to t, the stop line, the M/M/1 mean, the random queue.

    Parameters
    ----------
    model : QueueModel
        The session's model.
    conceal : bool
        Whether an exercise hides its answer.
    hidden : str
        While concealed, the quantity the exercise asks for.

    Returns
    -------
    PlotText
        The plot in words and as a table of the fluid path's points drawn.
    """
    hide = conceal and hidden in RANDOM_HIDES_MM1
    drawn = revealed(model.fluid_trajectory(), model.t)
    ts, backlog = list(drawn["t"]), list(drawn["backlog"])
    summary = path_words(ts, backlog, "units")
    stop = model.arrivals_stop
    if stop is not None and stop <= model.horizon:
        summary += f". A line marks arrivals stopping at t = {model.shown_value('arrivals_stop')} s"
    ref = model.mm1
    if ref is not None and hide:
        pass  # the M/M/1 mean answers the exercise: not drawn, not described
    elif ref is not None and mean_on_chart(model, axis_top(model)):
        summary += f". A dashed line marks the M/M/1 mean L = {fixed(ref.L)}"
    elif ref is not None:
        summary += f". The M/M/1 mean L = {fixed(ref.L)} is above the chart"
    if model.random_queue:
        summary = "Fluid backlog: " + summary + ". " + random_words(model, hide)
    rows = [[fixed(t), fixed(q)] for t, q in zip(ts, backlog, strict=True)]
    return PlotText("Backlog plot", summary + ".", ("t (s)", "backlog (units)"), rows)
