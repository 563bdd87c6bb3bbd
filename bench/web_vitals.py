"""Core Web Vitals and Lighthouse scores of every page, as a phone on slow 4G sees them (issue 64).

Runs Lighthouse 12.2.3 (``bench/lib/lighthouse.py``; installed once into ``.cache/lighthouse`` by
``make lighthouse``) with Debian's Chromium and its default mobile profile (a Moto G Power on slow
4G with a CPU 4× slower, simulated from one unthrottled load), categories performance,
accessibility and best practices, on each page of ``python -m app`` served on loopback: the index
``/``, the first lesson ``/lesson?id=overlap``, each lab (``/queue``, ``/roofline``, ``/timeline``)
and ``/trace``. Every Lighthouse run starts a fresh Chromium profile (a first visit, cold cache).

Prints one table: per page the median of ``--runs`` of LCP, TBT, CLS and FCP and the three
scores, each beside its budget (LCP ≤ 2.5 s, TBT ≤ 200 ms, CLS ≤ 0.1, accessibility and best
practices 100) with PASS or FAIL, and how fast this machine was before and after the runs
(``bench/lib/machine.py``): Lighthouse slows the page's CPU 4× relative to this machine's, so a
slower hour reads as a slower phone.

With ``--before DIR`` (another checkout, such as ``git worktree add /tmp/before <commit>``) that
checkout's app is measured in the same rounds, page for page in turn with this one's, and which of
the two goes first alternates from run to run: the machine's speed drifts by more than most changes
move these figures. Both appear in the one table, row beside row.

A bench reports; it does not fail: it exits 0 whatever the budgets say, and 1 only when Lighthouse
could not be installed or could not measure a page.

Usage: ``.venv/bin/python -m bench.web_vitals [--runs 3] [--before DIR] [--pages index,lesson,queue,...]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import urllib.request
from pathlib import Path

from bench.lib import lighthouse
from bench.lib.lighthouse import BUDGETS, LighthouseFailed, Vitals
from bench.lib.machine import REFERENCE_MACHINE_S, integer_additions_s
from bench.lib.servers import AppServer

PAGES = {
    "index": "/",
    "lesson": "/lesson?id=overlap",
    "queue": "/queue",
    "roofline": "/roofline",
    "timeline": "/timeline",
    "trace": "/trace",
}
"""The pages measured, by the name ``--pages`` takes."""

THIS = "this checkout"
BEFORE = "before"

COLUMNS = (
    ("lcp_s", "LCP"),
    ("tbt_ms", "TBT"),
    ("cls", "CLS"),
    ("fcp_s", "FCP"),
    ("performance", "performance"),
    ("accessibility", "accessibility"),
    ("best_practices", "best practices"),
)
"""The table's figure columns: :class:`Vitals` field, heading."""


def figure(field: str, value: float) -> str:
    """One figure in its unit: seconds to two places, milliseconds whole, CLS to three places, scores whole."""
    if field.endswith("_s"):
        return f"{value:.2f} s"
    if field == "tbt_ms":
        return f"{value:,.0f} ms"
    if field == "cls":
        return f"{value:.3f}"
    return f"{value:.0f}"


def heading(field: str, name: str) -> str:
    """A column's heading, with its budget where it has one."""
    budget = BUDGETS.get(field)
    if budget is None:
        return name
    unit = " s" if field.endswith("_s") else " ms" if field == "tbt_ms" else ""
    return f"{name} ({'≥' if budget.at_least else '≤'} {budget.limit:g}{unit})"


def cell(field: str, vitals: Vitals) -> str:
    """A figure with PASS or FAIL after it where the figure has a budget."""
    text = figure(field, getattr(vitals, field))
    budget = BUDGETS.get(field)
    if budget is None:
        return text
    return f"{text} {'PASS' if budget.passes(vitals) else 'FAIL'}"


def table(medians: dict[tuple[str, str], Vitals], pages: list[str], apps: list[str]) -> list[str]:
    """The printed table's lines (Markdown), a row per page and app, the apps of a page together.

    Parameters
    ----------
    medians : dict
        Each (page name, app name)'s medians.
    pages, apps : list of str
        Their order in the table.
    """
    lines = [
        "| page | app | " + " | ".join(heading(field, name) for field, name in COLUMNS) + " |",
        "|---|---|" + "---|" * len(COLUMNS),
    ]
    for page in pages:
        for app in apps:
            vitals = medians[page, app]
            lines.append(
                f"| {page} `{PAGES[page]}` | {app} | " + " | ".join(cell(f, vitals) for f, _ in COLUMNS) + " |"
            )
    return lines


def failed_budgets(medians: dict[tuple[str, str], Vitals], app: str) -> int:
    """How many (page, budget) pairs ``app``'s medians miss."""
    return sum(not budget.passes(v) for (_, name), v in medians.items() if name == app for budget in BUDGETS.values())


def warm(servers: dict[str, AppServer], pages: list[str]) -> None:
    """Fetch each page once from each server, so that no measured load pays for a first build of its HTML."""
    for server in servers.values():
        for page in pages:
            with urllib.request.urlopen(f"{server.base_url}{PAGES[page]}", timeout=120) as response:
                response.read()


def measure(
    servers: dict[str, AppServer], pages: list[str], runs: int, folder: Path
) -> tuple[dict[tuple[str, str], list[Vitals]], set[str], list[float]]:
    """Run Lighthouse ``runs`` times on each page of each server, the servers in turn page by page.

    The server that goes first alternates from run to run. A failed Lighthouse run is tried once more.

    Returns
    -------
    tuple
        Each (page name, app name)'s figures, run by run; the distinct warnings Lighthouse gave;
        Lighthouse's measure of the machine's CPU at each run (its ``benchmarkIndex``).

    Raises
    ------
    LighthouseFailed
        When a page could not be measured twice in a row.
    """
    results: dict[tuple[str, str], list[Vitals]] = {(page, app): [] for page in pages for app in servers}
    seen: set[str] = set()
    indexes: list[float] = []
    names = list(servers)
    for number in range(runs):
        order = names if number % 2 == 0 else names[::-1]
        for page in pages:
            for app in order:
                url = f"{servers[app].base_url}{PAGES[page]}"
                report_path = folder / f"{page}-{app.replace(' ', '_')}-{number}.json"
                try:
                    report = lighthouse.run(url, report_path)
                except LighthouseFailed as error:
                    print(f"  Lighthouse failed; trying once more: {error}", file=sys.stderr)
                    report = lighthouse.run(url, report_path)
                vitals = lighthouse.read_report(report)
                seen.update(lighthouse.warnings(report))
                index = lighthouse.benchmark_index(report)
                if index is not None:
                    indexes.append(index)
                results[page, app].append(vitals)
                print(
                    f"run {number + 1}/{runs} {page} ({app}): LCP {vitals.lcp_s:.2f} s, TBT {vitals.tbt_ms:.0f} ms,"
                    f" CLS {vitals.cls:.3f}, performance {vitals.performance:.0f}",
                    file=sys.stderr,
                    flush=True,
                )
    return results, seen, indexes


def main() -> int:
    """Measure the pages with Lighthouse and print the medians against the budgets; the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="Lighthouse runs per page and app (default 3)")
    parser.add_argument("--before", type=Path, help="another checkout whose app is measured in the same rounds")
    parser.add_argument(
        "--pages", default=",".join(PAGES), help=f"comma-separated, of {', '.join(PAGES)} (default all)"
    )
    args = parser.parse_args()
    pages = [name.strip() for name in args.pages.split(",") if name.strip()]
    unknown = [name for name in pages if name not in PAGES]
    if unknown or not pages or args.runs < 1:
        parser.error(f"--pages takes {', '.join(PAGES)}; --runs at least 1 (got {unknown or args.runs})")
    try:
        lighthouse.ensure_installed()
    except LighthouseFailed as error:
        print(f"Lighthouse could not be installed: {error}", file=sys.stderr)
        return 1
    speed = [integer_additions_s()]
    servers: dict[str, AppServer] = {}
    problems: dict[str, list[str]] = {}
    try:
        servers[THIS] = AppServer(ready_path="/healthz")
        if args.before:
            servers[BEFORE] = AppServer(ready_path="/healthz", cwd=args.before.resolve())
        warm(servers, pages)
        with tempfile.TemporaryDirectory(prefix="overlap-web-vitals-") as folder:
            results, seen, indexes = measure(servers, pages, args.runs, Path(folder))
        speed.append(integer_additions_s())
        problems = {name: server.problems() for name, server in servers.items()}
    except LighthouseFailed as error:
        print(f"Lighthouse could not measure a page: {error}", file=sys.stderr)
        return 1
    finally:
        for server in servers.values():
            server.stop()
    medians = {key: lighthouse.median_vitals(runs) for key, runs in results.items()}
    print(
        f"Lighthouse {lighthouse.VERSION}, mobile (simulated slow 4G, CPU 4×), Chromium at {lighthouse.CHROME_PATH};"
        f" median of {args.runs} run{'s' if args.runs != 1 else ''} per page"
    )
    print(
        f"machine: 10M integer additions in {speed[0]:.2f} s before the runs and {speed[-1]:.2f} s after"
        f" ({REFERENCE_MACHINE_S:.2f} s on the reference machine; Lighthouse's page runs 4× slower than this one)"
    )
    if indexes:
        print(
            f"Lighthouse's benchmarkIndex of this machine: median {statistics.median(indexes):.0f},"
            f" {min(indexes):.0f} to {max(indexes):.0f} over the runs (it expects 1,000 or more)"
        )
    if args.before:
        print(f"before: the app of {args.before}, measured page for page in turn with this checkout's")
    print("\n".join(table(medians, pages, list(servers))))
    for name in servers:
        count = failed_budgets(medians, name)
        print(f"{name}: {count} of {len(pages) * len(BUDGETS)} page budgets missed")
    for text in sorted(seen):
        print(f"Lighthouse warned: {text}")
    for name, lines in problems.items():
        for line in dict.fromkeys(lines):
            times = lines.count(line)
            print(f"{name}'s server printed{f' {times} times' if times > 1 else ''}: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
