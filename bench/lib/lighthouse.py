"""Lighthouse for the benches: installed once into ``.cache/``, run on a URL, its JSON report read.

Lighthouse is the exact version the issue's figures were taken with (:data:`VERSION`), installed by
the Makefile's rule (``make lighthouse``: ``npm install --save-exact --prefix .cache/lighthouse``),
never globally. It drives Debian's Chromium (:data:`CHROME_PATH`) headless with its default mobile
profile: a Moto G Power's screen, slow 4G and a CPU 4× slower, all simulated from one unthrottled
load ("simulate" throttling), so a report's timings are Lighthouse's estimate for that phone.

A report is read into :class:`Vitals` (:func:`read_report`), and several into their medians
(:func:`median_vitals`); :data:`BUDGETS` are the issue's lines for each (issue 64).
"""

from __future__ import annotations

import json
import statistics
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path

from devtools.serving import REPOSITORY

VERSION = "12.2.3"
"""The Lighthouse version the figures are taken with (the Makefile's ``LIGHTHOUSE_VERSION``)."""

INSTALL = REPOSITORY / ".cache" / "lighthouse"
"""Where ``make lighthouse`` installs it (``npm --prefix``)."""

EXECUTABLE = INSTALL / "node_modules" / ".bin" / "lighthouse"
"""Its command line (the Makefile's ``LIGHTHOUSE``)."""

CHROME_PATH = "/usr/bin/chromium"
"""Debian's Chromium."""

CHROME_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
"""Chromium's flags: headless, no sandbox (root in a container), and none of its own traffic during a load."""

CATEGORIES = ("performance", "accessibility", "best-practices")
"""The report's categories; the others (SEO) are not run."""

RUN_TIMEOUT_S = 300
"""Seconds one Lighthouse run may take (about 30 s on the 2-core machine under load)."""

AUDITS = {
    "lcp_s": "largest-contentful-paint",
    "tbt_ms": "total-blocking-time",
    "cls": "cumulative-layout-shift",
    "fcp_s": "first-contentful-paint",
}
"""The :class:`Vitals` field each metric audit's ``numericValue`` goes to."""

SCORES = {"performance": "performance", "accessibility": "accessibility", "best_practices": "best-practices"}
"""The :class:`Vitals` field each category's score (×100) goes to."""


class LighthouseFailed(RuntimeError):
    """Lighthouse could not be installed, could not run, or its report says the page could not be measured."""


@dataclass(frozen=True)
class Vitals:
    """One page's figures from one Lighthouse report, or the medians of several.

    Attributes
    ----------
    lcp_s : float
        Largest contentful paint, seconds.
    tbt_ms : float
        Total blocking time, milliseconds.
    cls : float
        Cumulative layout shift (unitless).
    fcp_s : float
        First contentful paint, seconds.
    performance, accessibility, best_practices : float
        The category scores, 0 to 100.
    """

    lcp_s: float
    tbt_ms: float
    cls: float
    fcp_s: float
    performance: float
    accessibility: float
    best_practices: float


@dataclass(frozen=True)
class Budget:
    """A line a figure must stay on the right side of.

    Attributes
    ----------
    field : str
        The :class:`Vitals` field it bounds.
    limit : float
        The bound, in that field's unit.
    at_least : bool
        True for a score that must reach ``limit``; False for a time or shift that must not exceed it.
    """

    field: str
    limit: float
    at_least: bool = False

    def passes(self, vitals: Vitals) -> bool:
        """Whether ``vitals`` keeps this budget."""
        value = getattr(vitals, self.field)
        return value >= self.limit if self.at_least else value <= self.limit


BUDGETS = {
    "lcp_s": Budget("lcp_s", 2.5),
    "tbt_ms": Budget("tbt_ms", 200),
    "cls": Budget("cls", 0.1),
    "accessibility": Budget("accessibility", 100, at_least=True),
    "best_practices": Budget("best_practices", 100, at_least=True),
}
"""Issue 64's budgets on every page, by field: Core Web Vitals "good", and perfect accessibility and best practices."""


def installed_version() -> str | None:
    """The version of Lighthouse in ``.cache/lighthouse``, or None where it is not installed."""
    package = INSTALL / "node_modules" / "lighthouse" / "package.json"
    if not EXECUTABLE.exists() or not package.exists():
        return None
    return json.loads(package.read_text(encoding="utf-8"))["version"]


def ensure_installed() -> Path:
    """Install Lighthouse :data:`VERSION` into ``.cache/lighthouse`` unless it is there, with ``make lighthouse``.

    Returns
    -------
    pathlib.Path
        Its executable.

    Raises
    ------
    LighthouseFailed
        When ``make lighthouse`` failed, or another version is installed there.
    """
    if installed_version() is None:
        done = subprocess.run(["make", "--no-print-directory", "lighthouse"], cwd=REPOSITORY, check=False)
        if done.returncode != 0:
            raise LighthouseFailed(f"make lighthouse exited with {done.returncode}")
    version = installed_version()
    if version != VERSION:
        raise LighthouseFailed(f"{INSTALL} holds Lighthouse {version}, not {VERSION}: delete it and run again")
    return EXECUTABLE


def command(url: str, report: Path) -> list[str]:
    """The Lighthouse command line that measures ``url`` and writes its JSON report to ``report``."""
    return [
        str(EXECUTABLE),
        url,
        f"--chrome-path={CHROME_PATH}",
        f"--chrome-flags={' '.join(CHROME_FLAGS)}",
        f"--only-categories={','.join(CATEGORIES)}",
        "--output=json",
        f"--output-path={report}",
        "--quiet",
    ]


def run(url: str, report: Path) -> dict:
    """Run Lighthouse on ``url`` (its default mobile profile) and return its parsed JSON report.

    Parameters
    ----------
    url : str
        The page, e.g. ``http://127.0.0.1:5006/queue``.
    report : pathlib.Path
        Where the JSON report is written (a temporary directory's file).

    Returns
    -------
    dict
        The report as Lighthouse wrote it.

    Raises
    ------
    LighthouseFailed
        When Lighthouse exited with an error, wrote no report, or reports a ``runtimeError``
        (the page could not be measured, e.g. no contentful paint).
    """
    try:
        done = subprocess.run(command(url, report), capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise LighthouseFailed(f"Lighthouse on {url} took more than {RUN_TIMEOUT_S} s") from None
    if done.returncode != 0 or not report.exists():
        raise LighthouseFailed(f"Lighthouse on {url} exited with {done.returncode}:\n{done.stderr[-2000:]}")
    parsed = json.loads(report.read_text(encoding="utf-8"))
    error = parsed.get("runtimeError")
    if error:
        raise LighthouseFailed(f"Lighthouse on {url}: {error.get('code')}: {error.get('message')}")
    return parsed


def read_report(report: dict) -> Vitals:
    """The figures of one Lighthouse JSON report.

    Parameters
    ----------
    report : dict
        A parsed Lighthouse report (``--output=json``), at least its ``audits`` of :data:`AUDITS`
        and its ``categories`` of :data:`SCORES`.

    Returns
    -------
    Vitals
        LCP and FCP in seconds, TBT in milliseconds, CLS as is, the scores ×100.

    Raises
    ------
    LighthouseFailed
        When a metric or a score is missing or null (Lighthouse could not compute it).
    """
    audits = report["audits"]
    values: dict[str, float] = {}
    for name, audit_id in AUDITS.items():
        audit = audits.get(audit_id, {})
        value = audit.get("numericValue")
        if value is None:
            raise LighthouseFailed(f"the report has no value for {audit_id}: {audit.get('errorMessage', 'missing')}")
        unit = audit.get("numericUnit")
        if name.endswith("_s"):
            if unit != "millisecond":
                raise LighthouseFailed(f"{audit_id} is in {unit}, not milliseconds")
            value /= 1000
        values[name] = float(value)
    for name, category_id in SCORES.items():
        score = report["categories"].get(category_id, {}).get("score")
        if score is None:
            raise LighthouseFailed(f"the report has no {category_id} score")
        values[name] = 100 * float(score)
    return Vitals(**values)


def warnings(report: dict) -> list[str]:
    """The report's ``runWarnings`` (such as a CPU slower than Lighthouse expects), each on one line."""
    return [" ".join(str(text).split()) for text in report.get("runWarnings", [])]


def benchmark_index(report: dict) -> float | None:
    """Lighthouse's own measure of this machine's CPU when it ran (``environment.benchmarkIndex``).

    Lighthouse expects about 1,000 or more of a desktop machine before it slows the page 4× as a
    phone; below that it warns that the performance score suffers.
    """
    return report.get("environment", {}).get("benchmarkIndex")


def median_vitals(runs: Sequence[Vitals]) -> Vitals:
    """Each figure's median over ``runs`` (figure by figure: the medians may come from different runs).

    Raises
    ------
    ValueError
        When ``runs`` is empty.
    """
    if not runs:
        raise ValueError("no runs to take the median of")
    return Vitals(**{f.name: statistics.median(getattr(run, f.name) for run in runs) for f in fields(Vitals)})


def trimmed(report: dict) -> dict:
    """A report cut down to what :func:`read_report` and :func:`warnings` read (for a small test fixture)."""
    return {
        "lighthouseVersion": report.get("lighthouseVersion"),
        "requestedUrl": report.get("requestedUrl"),
        "fetchTime": report.get("fetchTime"),
        "runWarnings": report.get("runWarnings", []),
        "environment": {"benchmarkIndex": benchmark_index(report)},
        "configSettings": {
            key: report["configSettings"][key] for key in ("formFactor", "throttlingMethod", "throttling")
        },
        "audits": {
            audit_id: {
                key: report["audits"][audit_id].get(key)
                for key in ("id", "score", "numericValue", "numericUnit", "displayValue")
            }
            for audit_id in AUDITS.values()
        },
        "categories": {
            category_id: {key: report["categories"][category_id].get(key) for key in ("id", "title", "score")}
            for category_id in SCORES.values()
        },
    }
