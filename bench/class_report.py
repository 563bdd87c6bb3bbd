"""What one class load measured, the figures drawn from it, and how they are printed.

``bench/class_load.py`` runs the students and describes each figure in its docstring; this module
holds the records of a run (:class:`Sample`, :class:`Outcome`, :class:`Run`), the figures and
budget checks derived from them (:class:`Figures`, :func:`checks`), the detailed report of one
run (:func:`report`) and the side-by-side table of several targets (:func:`compare`).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace

from app_health import Snapshot
from bokeh_client import LESSON_PATH
from machine import MachineSpeed

ACTION_ORDER = ("reset", "lambda", "mu", "lock", "step 1", "step 2", "pause")
BUSY_SHARE = 0.25  # other processes above this share of one core: the figures are not the app's alone
STAGES = (
    ("page", "page GET"),
    ("ack", "websocket+ACK"),
    ("doc", "PULL-DOC"),
    ("ready", "first PATCH-DOC OK"),
    ("usable", "deferred parts"),
)


@dataclass
class Sample:
    """One timed action.

    Attributes
    ----------
    session : int
        Which session sent it.
    action : str
        One of :data:`ACTION_ORDER` (or ``"predict (OK)"``, a timed edit with no visible answer, kept
        apart from the click figures; the current exercise card sends none).
    sent : float
        When it was sent, in seconds since the load started.
    ms : float
        Latency to the awaited response, in milliseconds.
    changed : bool
        Whether the awaited change (readout text; Play enabled for the lock) came, rather than
        only some other PATCH-DOC.
    """

    session: int
    action: str
    sent: float
    ms: float
    changed: bool


@dataclass
class Outcome:
    """What one session did.

    Attributes
    ----------
    index : int
        The session number.
    open_ms : float or None
        Page open: from the page's GET until the page could be clicked (its first PATCH-DOC
        answered and every model the exercise uses arrived), in ms; None if it did not get there.
    opened_at : float or None
        When the session finished opening, seconds since the load started.
    stages : dict of str to float
        How long each step of opening took, in ms (keys of :data:`STAGES`).
    connected : bool
        Whether its websocket got the ``ACK`` (the server created, and built, its session).
    samples : list of Sample
        Its timed actions.
    error : str
        Why it stopped early; empty if it finished.
    readout_ok : bool or None
        Whether the readout after the two Steps showed t = 2.00 s and backlog = 6.00.
    feedback_ok : bool or None
        Whether the feedback said "Correct".
    """

    index: int
    open_ms: float | None = None
    opened_at: float | None = None
    stages: dict[str, float] = field(default_factory=dict)
    connected: bool = False
    samples: list[Sample] = field(default_factory=list)
    error: str = ""
    readout_ok: bool | None = None
    feedback_ok: bool | None = None


@dataclass(frozen=True)
class Scenario:
    """How many students arrive over how long, and the budgets (design.md) that apply.

    Attributes
    ----------
    name : str
        ``lecture``, ``burst`` or ``custom``.
    sessions : int
        Students.
    ramp : float
        Their arrivals are spread evenly over this many seconds.
    text : str
        One line saying so.
    open_p95_s, all_open_s, click_opening_p95_ms, click_open_p95_ms, click_p95_ms : float or None
        The budgets on the page open p95, the time by which every page is open, and the click p95
        while pages open, once all are open, and over all actions; None where none applies.
    """

    name: str
    sessions: int
    ramp: float
    text: str
    open_p95_s: float | None = None
    all_open_s: float | None = None
    click_opening_p95_ms: float | None = None
    click_open_p95_ms: float | None = None
    click_p95_ms: float | None = None

    def scaled(self, factor: float) -> Scenario:
        """The same load with every time budget ``factor`` times longer (a slower machine's budgets).

        Parameters
        ----------
        factor : float
            ``MachineSpeed.slowdown`` (bench/machine.py): 1 on the reference machine or a faster one.

        Returns
        -------
        Scenario
            The budgets a run on this machine is held to.
        """
        times = ("open_p95_s", "all_open_s", "click_opening_p95_ms", "click_open_p95_ms", "click_p95_ms")
        budgets = {name: getattr(self, name) for name in times}
        return replace(self, **{name: value * factor for name, value in budgets.items() if value is not None})


@dataclass
class Run:
    """One scenario against one target.

    Attributes
    ----------
    target : str
        ``cluster`` or ``server`` (``--url``), or ``single`` (the process the bench started).
    base_url : str
        Where the students went.
    scenario : Scenario
        What they did.
    seed : int
        The seed of their start jitter and think times.
    outcomes : list of Outcome
        One per student.
    wall : float
        Seconds the load took.
    client_cpu : float
        CPU seconds this bench process used meanwhile.
    machine_cpu : float
        CPU seconds every process on the machine used meanwhile.
    labels : list of str
        The app processes (``:<port>``).
    before, after : list of Snapshot
        Each process's ``/healthz`` and CPU time at the start (timer reset) and end.
    problems : list of str or None
        Error lines the server logged meanwhile; None if the bench cannot read its log.
    notes : list of str
        Anything else the report should say (sessions still live before the start, ...).
    speed : MachineSpeed, optional
        This machine against the reference one (bench/machine.py), timed before the load.
    """

    target: str
    base_url: str
    scenario: Scenario
    seed: int
    outcomes: list[Outcome]
    wall: float
    client_cpu: float
    machine_cpu: float
    labels: list[str]
    before: list[Snapshot]
    after: list[Snapshot]
    problems: list[str] | None
    notes: list[str] = field(default_factory=list)
    speed: MachineSpeed | None = None


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile by the nearest-rank method (NaN for no values).

    Parameters
    ----------
    values : list of float
        The sample.
    q : float
        Between 0 and 100.

    Returns
    -------
    float
        The smallest value with at least q % of the sample at or below it.
    """
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil(n q / 100)
    return ordered[int(rank) - 1]


def summary(values: list[float]) -> str:
    """``n``, p50, p95 and max of latencies in ms, as one aligned row."""
    return (
        f"{len(values):>6}{percentile(values, 50):>9.1f}{percentile(values, 95):>9.1f}"
        f"{(max(values) if values else float('nan')):>9.1f}"
    )


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
        )

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


def _by_action(samples: list[Sample]) -> None:
    """Print the latency table by action."""
    print(f"{'by action':<26}{'n':>6}{'p50':>9}{'p95':>9}{'max':>9}  timed to")
    for action in (*ACTION_ORDER, "predict (OK)"):
        mine = [s for s in samples if s.action == action]
        if action not in ACTION_ORDER and not mine:
            continue
        hits = sum(s.changed for s in mine)
        if action == "predict (OK)":
            to = "the OK reply"
        else:
            wanted = "Play enabled" if action == "lock" else "readout change"
            to = f"{wanted} {hits}/{len(mine)}, first PATCH-DOC {len(mine) - hits}/{len(mine)}"
        print(f"  {action:<24}{summary([s.ms for s in mine])}  {to}")


def _by_window(outcomes: list[Outcome], budgeted: list[Sample]) -> None:
    """Print the latency table by 10 s window of sending, with the pages opened in each."""
    print(f"{'by 10 s window of sending':<26}{'n':>6}{'p50':>9}{'p95':>9}{'max':>9}{'pages opened':>14}")
    for start in range(0, int(max((s.sent for s in budgeted), default=0)) + 1, 10):
        window = [s.ms for s in budgeted if start <= s.sent < start + 10]
        pages = sum(1 for o in outcomes if o.opened_at is not None and start <= o.opened_at < start + 10)
        print(f"  {f'{start}-{start + 10} s':<24}{summary(window)}{pages:>14}")


def _opening(run: Run, figures: Figures) -> None:
    """Print the page-open figures, where the time went, and the build count."""
    opened = figures.open_ms
    by = f"{figures.all_open_at:.1f} s" if figures.all_open_at is not None else f"never ({figures.not_opened} not open)"
    print(
        f"page open, page GET to clickable (s): p50 {percentile(opened, 50) / 1000:.2f}  "
        f"p95 {percentile(opened, 95) / 1000:.2f}  max {(max(opened) if opened else math.nan) / 1000:.2f}; "
        f"every page open by {by} after the load started"
    )
    parts = []
    for key, name in STAGES:
        values = [o.stages[key] for o in run.outcomes if key in o.stages]
        parts.append(f"{name} {percentile(values, 50):.0f}/{percentile(values, 95):.0f}")
    print("  of which, p50/p95 ms: " + ", ".join(parts))
    if figures.built is None:
        print(f"sessions built: not known (no /healthz with 'built'); {figures.connected} sessions connected")
    else:
        once = "yes" if figures.built_once else "no"
        print(
            f"sessions built (built - warm_ups, summed over processes): {figures.built} for "
            f"{figures.connected} sessions opened: built exactly once: {once}"
        )


def other_cpu(run: Run) -> float:
    """CPU seconds the rest of the machine used during the run (not the app processes, not this bench)."""
    return max(0.0, run.machine_cpu - sum(Figures.of(run).cpu) - run.client_cpu)


def _server(run: Run, figures: Figures) -> None:
    """Print the server CPU, the client's and the rest of the machine's, and the longest tasks."""
    server_cpu = sum(figures.cpu)
    other = other_cpu(run)
    wall = run.wall
    each = ""
    if len(figures.cpu) > 1:
        each = (
            " (" + ", ".join(f"{label} {cpu:.2f} s" for label, cpu in zip(run.labels, figures.cpu, strict=True)) + ")"
        )
    print(
        f"server CPU: {server_cpu:.2f} s over {wall:.1f} s of load ({100 * server_cpu / wall:.0f}% of one core){each}; "
        f"client CPU: {run.client_cpu:.2f} s ({100 * run.client_cpu / wall:.0f}%); other processes on the machine: "
        f"{other:.2f} s ({100 * other / wall:.0f}%); {os.cpu_count()} cores"
    )
    if run.speed is not None:
        print(run.speed.text() + "; " + run.speed.per_student(server_cpu, run.scenario.sessions))
    if other > BUSY_SHARE * wall:
        print(
            f"warning: other processes kept {100 * other / wall:.0f}% of a core busy during the load: "
            "the latencies are not the app's alone; run again on a quiet machine"
        )
    for label, after in zip(run.labels, run.after, strict=True):
        if after.longest_task_ms is None:
            print(f"longest event-loop task {label}: not measured (start the app with OVERLAP_TASK_TIMER=1)")
        else:
            name = str(after.health.get("longest_task", ""))[:160]
            print(
                f"longest event-loop task {label}: {after.longest_task_ms:.1f} ms of "
                f"{after.health.get('tasks', '?')} tasks: {name}"
            )
            collector = after.health.get("gc", {})
            print(
                f"longest garbage-collector pause {label}: {after.longest_gc_ms or 0:.1f} ms "
                f"({after.health.get('gc_total_ms', '?')} ms in all); frozen objects "
                f"{collector.get('frozen_objects', '?')}, thaws {collector.get('thaws', '?')}"
            )


def _budget(run: Run, figures: Figures, budget_ms: float) -> None:
    """Print the budget verdict: the one-line figure of old for a custom load, the design's for a preset."""
    scenario = run.scenario
    if scenario.name == "custom":
        p95 = percentile(figures.click_all, 95)
        kept = figures.click_all and p95 <= budget_ms and not figures.errors and not figures.wrong
        print(
            f"budget: p95 click-to-readout ≤ {budget_ms:.0f} ms: {'PASS' if kept else 'FAIL'} (p95 = {p95:.1f} ms, "
            f"{figures.errors} errors, {figures.wrong} wrong readouts)"
        )
        return
    found = checks(scenario, figures)
    verdict = "PASS" if all(c.ok for c in found.values()) else "FAIL"
    broken = [f"{key} ({c.limit})" for key, c in found.items() if not c.ok]
    print(f"budget (design.md, {scenario.text}): {verdict}" + (f"; over: {', '.join(broken)}" if broken else ""))


def report(run: Run, budget_ms: float) -> None:
    """Print the detailed report of one run (see ``bench/class_load.py`` for each figure).

    Parameters
    ----------
    run : Run
        The run.
    budget_ms : float
        The click p95 budget printed for a custom (``--sessions``/``--ramp``) load.
    """
    outcomes = run.outcomes
    figures = Figures.of(run)
    samples = [s for o in outcomes for s in o.samples]
    budgeted = [s for s in samples if s.action in ACTION_ORDER]
    errors = [o for o in outcomes if o.error]
    print(f"== {run.target} {run.base_url}, {run.scenario.name}: {run.scenario.text} ==")
    for note in run.notes:
        print(f"note: {note}")
    print(
        f"class load: {run.scenario.sessions} sessions of {LESSON_PATH}, starts spread over {run.scenario.ramp:g} s, "
        f"think time 0.5-3 s, seed {run.seed}"
    )
    print(f"sessions: {len(outcomes)}, finished the exercise: {len(outcomes) - len(errors)}, errors: {len(errors)}")
    others = len(samples) - len(budgeted)
    apart = f" (+{others} prediction edits, OK reply only, not in the budget figure)" if others else ""
    print(f"actions timed: {len(budgeted)} clicks/edits{apart}")
    latencies = figures.click_all
    print(
        f"click-to-readout latency, all actions (ms): p50 {percentile(latencies, 50):.1f}  "
        f"p95 {percentile(latencies, 95):.1f}  max {(max(latencies) if latencies else float('nan')):.1f}"
    )
    _by_action(samples)
    print(f"  {'sent while pages opening':<24}{summary(figures.click_opening)}")
    print(f"  {'sent after all opened':<24}{summary(figures.click_open)}")
    print(f"  {'page open (clickable)':<24}{summary(figures.open_ms)}")
    _by_window(outcomes, budgeted)
    slowest = sorted(budgeted, key=lambda s: s.ms, reverse=True)[:5]
    print(
        "slowest: " + "; ".join(f"{s.ms:.0f} ms {s.action} (session {s.session}, at {s.sent:.1f} s)" for s in slowest)
    )
    finished = [o for o in outcomes if o.readout_ok is not None]
    bad_readout = sum(1 for o in finished if not o.readout_ok)
    bad_feedback = sum(1 for o in finished if not o.feedback_ok)
    print(
        f"correctness after two Steps: readout t = 2.00 s and backlog = 6.00 in "
        f"{len(finished) - bad_readout}/{len(finished)} sessions ({bad_readout} failures); "
        f"feedback 'Correct' in {len(finished) - bad_feedback}/{len(finished)}"
    )
    _opening(run, figures)
    _server(run, figures)
    for outcome in errors[:10]:
        print(f"  error, session {outcome.index}: {outcome.error}")
    if len(errors) > 10:
        print(f"  ... and {len(errors) - 10} more errors")
    if run.problems is None:
        print("server log: not read (the bench did not start this server)")
    else:
        print(f"server log: {len(run.problems)} traceback/error/warning lines")
        for line in run.problems[:10]:
            print(f"  {line[:300]}")
    _budget(run, figures, budget_ms)


# -- several targets side by side ------------------------------------------------------------------


def _ms_pair(values: list[float]) -> str:
    """``p50 / p95`` of latencies in ms, with the count."""
    if not values:
        return "no samples"
    return f"{percentile(values, 50):.0f} / {percentile(values, 95):.0f} (n {len(values)})"


def _cells(run: Run, figures: Figures) -> dict[str, str]:
    """Each row's text for one run, keyed as :func:`checks` keys its budgets."""
    opened = figures.open_ms
    longest = [f"{ms:.0f}" if ms is not None else "n/a" for ms in figures.longest_ms]
    cpu = sum(figures.cpu)
    return {
        "open": (
            f"{percentile(opened, 50) / 1000:.2f} / {percentile(opened, 95) / 1000:.2f} / "
            f"{(max(opened) if opened else math.nan) / 1000:.2f}"
        ),
        "all_open": f"{figures.all_open_at:.1f}"
        if figures.all_open_at is not None
        else f"never ({figures.not_opened})",
        "click_opening": _ms_pair(figures.click_opening),
        "click_open": _ms_pair(figures.click_open),
        "click": _ms_pair(figures.click_all),
        "errors": str(figures.errors),
        "wrong": str(figures.wrong),
        "cpu": f"{cpu:.1f}" + (f" ({' + '.join(f'{c:.1f}' for c in figures.cpu)})" if len(figures.cpu) > 1 else ""),
        "longest": " / ".join(longest) if longest else "n/a",
        "longest_gc": " / ".join(f"{ms:.0f}" if ms is not None else "n/a" for ms in figures.longest_gc_ms) or "n/a",
        "other": f"{other_cpu(run):.1f} ({100 * other_cpu(run) / run.wall:.0f}% of a core)",
        "built_n": f"{figures.built if figures.built is not None else '?'} / {figures.connected}",
        "built": {True: "yes", False: "no", None: "not known"}[figures.built_once],
    }


ROWS = (
    ("open", "page open p50 / p95 / max (s)"),
    ("all_open", "every page open by (s)"),
    ("click_opening", "click p50 / p95 while opening (ms)"),
    ("click_open", "click p50 / p95 once all open (ms)"),
    ("click", "click p50 / p95, all actions (ms)"),
    ("errors", "errors"),
    ("wrong", "wrong readouts"),
    ("cpu", "server CPU s, sum (per process)"),
    ("longest", "longest task ms, per process"),
    ("longest_gc", "longest GC pause ms, per process"),
    ("other", "other processes' CPU s (quiet: ~0)"),
    ("built_n", "sessions built / opened"),
    ("built", "built exactly once"),
    ("verdict", "budgets"),
)


def compare(runs: list[Run]) -> None:
    """Print the runs of one scenario side by side, one column per target, budgets on the right.

    A figure under a budget is marked ``ok`` or ``OVER``; the last row says whether the column
    kept every budget. The budgets are design.md's for the cluster (two processes); the single
    process column is held to the same numbers for comparison.

    Parameters
    ----------
    runs : list of Run
        Runs of the same scenario against different targets.
    """
    scenario = runs[0].scenario
    columns: list[dict[str, str]] = []
    limits: dict[str, str] = {}
    for run in runs:
        figures = Figures.of(run)
        cells = _cells(run, figures)
        found = checks(scenario, figures)
        for key, check in found.items():
            cells[key] += " ok" if check.ok else " OVER"
            limits[key] = check.limit
        broken = sum(1 for c in found.values() if not c.ok)
        cells["verdict"] = "PASS" if not broken else f"FAIL ({broken} over)"
        columns.append(cells)
    heads = [f"{run.target} {run.base_url.split('//')[-1]} ({len(run.labels)} proc)" for run in runs]
    widths = [
        max(len(head), *(len(cells[key]) for key, _ in ROWS)) + 2 for head, cells in zip(heads, columns, strict=True)
    ]
    print(f"\n{scenario.name}: {scenario.text} (seed {runs[0].seed})")
    print(f"  {'':<36}" + "".join(f"{head:<{w}}" for head, w in zip(heads, widths, strict=True)) + "budget")
    for key, name in ROWS:
        row = "".join(f"{cells[key]:<{w}}" for cells, w in zip(columns, widths, strict=True))
        print(f"  {name:<36}{row}{limits.get(key, '')}")
