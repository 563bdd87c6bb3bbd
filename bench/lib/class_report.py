"""The printed report of a class run, and several targets' runs of one scenario side by side.

``bench/class_load.py`` describes each figure; :func:`report` prints one run in detail as it ends,
:func:`compare` the targets' runs of one scenario in one table with the budgets beside them, and
:func:`class_database` what the instructor's side (:mod:`bench.lib.class_watch`) saw.
"""

from __future__ import annotations

import os
from typing import Any

from bench.lib.class_figures import Figures, checks, other_cpu
from bench.lib.class_records import ACTION_ORDER, STAGES, Outcome, Run, Sample
from bench.lib.stats import percentile, worst
from bench.lib.student import LESSON_PATH

BUSY_SHARE = 0.25
"""Other processes above this share of one core: the figures are not the app's alone."""


def summary(values: list[float]) -> str:
    """``n``, p50, p95 and max of latencies in ms, as one aligned row."""
    return f"{len(values):>6}{percentile(values, 50):>9.1f}{percentile(values, 95):>9.1f}{worst(values):>9.1f}"


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
        f"p95 {percentile(opened, 95) / 1000:.2f}  max {worst(opened) / 1000:.2f}; "
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
    source = "issue 20" if scenario.name == "seminar" else "design.md"
    print(f"budget ({source}, {scenario.text}): {verdict}" + (f"; over: {', '.join(broken)}" if broken else ""))


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
        f"p95 {percentile(latencies, 95):.1f}  max {worst(latencies):.1f}"
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
            f"{percentile(opened, 50) / 1000:.2f} / {percentile(opened, 95) / 1000:.2f} / {worst(opened) / 1000:.2f}"
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
        "cpu_student": f"{figures.cpu_ms_per_student:.0f}",
        "models": _models(figures.models),
        "longest": " / ".join(longest) if longest else "n/a",
        "longest_gc": " / ".join(f"{ms:.0f}" if ms is not None else "n/a" for ms in figures.longest_gc_ms) or "n/a",
        "other": f"{other_cpu(run):.1f} ({100 * other_cpu(run) / run.wall:.0f}% of a core)",
        "built_n": f"{figures.built if figures.built is not None else '?'} / {figures.connected}",
        "built": {True: "yes", False: "no", None: "not known"}[figures.built_once],
    }


def _models(models: list[int]) -> str:
    """The range of the sessions' model counts: ``"412"`` when all agree, ``"410-412"`` else."""
    if not models:
        return "n/a"
    low, high = min(models), max(models)
    return f"{low}" if low == high else f"{low}-{high}"


ROWS = (
    ("open", "page open p50 / p95 / max (s)"),
    ("all_open", "every page open by (s)"),
    ("click_opening", "click p50 / p95 while opening (ms)"),
    ("click_open", "click p50 / p95 once all open (ms)"),
    ("click", "click p50 / p95, all actions (ms)"),
    ("errors", "errors"),
    ("wrong", "wrong readouts"),
    ("cpu", "server CPU s, sum (per process)"),
    ("cpu_student", "server CPU ms per student"),
    ("models", "Bokeh models per page (min-max)"),
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


def class_database(lag: dict[str, Any]) -> None:
    """Print how many votes the class database counted and how far behind the locks it was.

    Parameters
    ----------
    lag : dict
        :meth:`bench.lib.class_watch.ClassWatch.lag`.
    """
    if lag.get("problem") and "delays" not in lag:
        print(f"class database: not read ({lag['problem']})")
        return
    delays = lag["delays"]
    print(
        f"class database: {lag['votes']} votes for {lag['locks']} locks answered; counted "
        f"{percentile(delays, 95):.2f} s (p95), {worst(delays):.2f} s (max) after the lock; the instructor's "
        "view adds at most its 1 s refresh" + (f" ({lag['problem']})" if lag["problem"] else "")
    )


RATIO_FIGURES = (
    ("server CPU ms per student", lambda f: f.cpu_ms_per_student),
    ("click p95, all actions (ms)", lambda f: percentile(f.click_all, 95)),
    ("page open p95 (s)", lambda f: percentile(f.open_ms, 95) / 1000),
    ("Bokeh models per page (median)", lambda f: percentile([float(m) for m in f.models], 50)),
)
"""The figures :func:`ratios` sets side by side, and how each is drawn from a run's :class:`Figures`."""


def ratios(pairs: list[tuple[Run, Run]], label: str) -> None:
    """Print, for each round, each figure with and without the skipped fixes and their ratio (off / on).

    Parameters
    ----------
    pairs : list of (Run, Run)
        One per round: the run with every fix installed, then the run with ``label``'s fixes skipped,
        the same scenario.
    label : str
        What the second run of each pair skipped, for the heading.
    """
    print(f"\nskipped {label} / all fixes on, round by round (ratio > 1: slower or more without them)")
    for name, figure in RATIO_FIGURES:
        cells = []
        for on, off in pairs:
            with_fix, without = figure(Figures.of(on)), figure(Figures.of(off))
            ratio = without / with_fix if with_fix else float("nan")
            cells.append(f"{with_fix:.4g} → {without:.4g} ({ratio:.2f}×)")
        print(f"  {name:<32}" + "   ".join(cells))
