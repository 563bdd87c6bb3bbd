"""The figures of one class run and the budgets they are checked against.

``bench/class_load.py`` describes what each figure measures; :class:`Figures` draws them from a
:class:`bench.lib.class_records.Run`, and :func:`checks` holds them to the scenario's budgets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bench.lib.class_records import ACTION_ORDER, Run, Scenario
from bench.lib.stats import percentile


@dataclass
class Figures:
    """The figures of one run (see ``bench/class_load.py`` for what each one measures).

    Attributes
    ----------
    open_ms : list of float
        Page open of every session that opened.
    not_opened : int
        Sessions that never finished opening.
    all_open_at : float or None
        Seconds from the start of the load until the last page was open; None if one never was.
    click_all, click_opening, click_open : list of float
        Click-to-readout of every budgeted action; of those sent before the last page was open;
        of those sent after.
    errors : int
        Sessions that stopped early.
    wrong : int
        Sessions that finished the Steps with a wrong readout or did not get "Correct".
    cpu : list of float
        CPU seconds of each app process over the load.
    longest_ms : list of float or None
        Longest event-loop task of each process over the load; None without the task timer.
    longest_gc_ms : list of float or None
        Longest garbage-collector pause of each process over the load; None without the timer.
    built : int or None
        Sessions the processes built over the load (``built - warm_ups``, after minus before).
    connected : int
        Sessions whose websocket got its ``ACK`` (each needs exactly one build).
    models : list of int
        Bokeh models in each opened session's document once it could be clicked.
    students : int
        Students in the class (sessions the load started).
    """

    open_ms: list[float]
    not_opened: int
    all_open_at: float | None
    click_all: list[float]
    click_opening: list[float]
    click_open: list[float]
    errors: int
    wrong: int
    cpu: list[float]
    longest_ms: list[float | None]
    longest_gc_ms: list[float | None]
    built: int | None
    connected: int
    models: list[int]
    students: int

    @classmethod
    def of(cls, run: Run) -> Figures:
        """Draw the figures from a run's records."""
        outcomes = run.outcomes
        opened = [o for o in outcomes if o.opened_at is not None]
        last_open = max((o.opened_at for o in opened), default=0.0)
        budgeted = [s for o in outcomes for s in o.samples if s.action in ACTION_ORDER]
        finished = [o for o in outcomes if o.readout_ok is not None]
        built = None
        if run.before and all("built" in s.health for s in [*run.before, *run.after]):
            built = sum(a.built_by_students - b.built_by_students for a, b in zip(run.after, run.before, strict=True))
        return cls(
            open_ms=[o.open_ms for o in opened if o.open_ms is not None],
            not_opened=len(outcomes) - len(opened),
            all_open_at=last_open if len(opened) == len(outcomes) else None,
            click_all=[s.ms for s in budgeted],
            click_opening=[s.ms for s in budgeted if s.sent <= last_open],
            click_open=[s.ms for s in budgeted if s.sent > last_open],
            errors=sum(1 for o in outcomes if o.error),
            wrong=sum(1 for o in finished if not o.readout_ok or not o.feedback_ok),
            cpu=[a.cpu - b.cpu for a, b in zip(run.after, run.before, strict=True)],
            longest_ms=[a.longest_task_ms for a in run.after],
            longest_gc_ms=[a.longest_gc_ms for a in run.after],
            built=built,
            connected=sum(1 for o in outcomes if o.connected),
            models=[o.models for o in opened if o.models is not None],
            students=len(outcomes),
        )

    @property
    def cpu_ms_per_student(self) -> float:
        """Server CPU over the load divided by the students in the class, in ms (NaN for an empty class)."""
        return 1000 * sum(self.cpu) / self.students if self.students else math.nan

    @property
    def built_once(self) -> bool | None:
        """Whether every connected session was built exactly once (None when not known)."""
        return None if self.built is None else self.built == self.connected


@dataclass
class Check:
    """One budget: what it allows and whether the run kept it."""

    limit: str
    ok: bool


def _at_most(value: float, limit: float) -> bool:
    """``value <= limit``; a figure with no samples (NaN) breaks no budget."""
    return math.isnan(value) or value <= limit


def checks(scenario: Scenario, figures: Figures) -> dict[str, Check]:
    """The budgets that apply to a scenario, each checked against the run's figures.

    Parameters
    ----------
    scenario : Scenario
        Which budgets apply.
    figures : Figures
        What was measured.

    Returns
    -------
    dict of str to Check
        Keyed by figure: ``open``, ``all_open``, ``click_opening``, ``click_open``, ``click``,
        ``errors``, ``wrong``, ``built``.
    """
    found: dict[str, Check] = {}
    if scenario.open_p95_s is not None:
        found["open"] = Check(
            f"p95 ≤ {scenario.open_p95_s:.3g} s", _at_most(percentile(figures.open_ms, 95) / 1000, scenario.open_p95_s)
        )
    if scenario.all_open_s is not None:
        all_open = figures.all_open_at
        found["all_open"] = Check(
            f"≤ {scenario.all_open_s:.3g} s", all_open is not None and all_open <= scenario.all_open_s
        )
    for key, limit in (
        ("click_opening", scenario.click_opening_p95_ms),
        ("click_open", scenario.click_open_p95_ms),
        ("click", scenario.click_p95_ms),
    ):
        if limit is not None:
            values = {"click_opening": figures.click_opening, "click_open": figures.click_open}.get(
                key, figures.click_all
            )
            found[key] = Check(f"p95 ≤ {limit:.0f} ms", _at_most(percentile(values, 95), limit))
    found["errors"] = Check("0", figures.errors == 0)
    found["wrong"] = Check("0", figures.wrong == 0)
    found["built"] = Check("yes", figures.built_once is not False)
    return found


# -- the detailed report of one run ----------------------------------------------------------------


def other_cpu(run: Run) -> float:
    """CPU seconds the rest of the machine used during the run (not the app processes, not this bench).

    Parameters
    ----------
    run : Run
        The run.

    Returns
    -------
    float
        The machine's busy seconds less the app processes' and the bench's own, at least 0.
    """
    return max(0.0, run.machine_cpu - sum(Figures.of(run).cpu) - run.client_cpu)
