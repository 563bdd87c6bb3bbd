"""bench.web_vitals: a real Lighthouse 12.2.3 report is read into figures, medians and budget verdicts.

The fixture is a report Lighthouse wrote for the index of main at 9423f0a (the 2-core machine, under
load), trimmed by ``bench.lib.lighthouse.trimmed`` to the audits and categories the bench reads.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from bench.lib.lighthouse import (
    BUDGETS,
    LighthouseFailed,
    Vitals,
    benchmark_index,
    median_vitals,
    read_report,
    trimmed,
    warnings,
)
from bench.web_vitals import cell, failed_budgets, heading, table

REPORT = Path(__file__).parents[1] / "fixtures" / "lighthouse" / "index_main_9423f0a.json"


@pytest.fixture
def report() -> dict:
    return json.loads(REPORT.read_text(encoding="utf-8"))


def _with(report: dict, lcp_ms: float, tbt_ms: float, cls: float, performance: float) -> dict:
    changed = copy.deepcopy(report)
    changed["audits"]["largest-contentful-paint"]["numericValue"] = lcp_ms
    changed["audits"]["total-blocking-time"]["numericValue"] = tbt_ms
    changed["audits"]["cumulative-layout-shift"]["numericValue"] = cls
    changed["categories"]["performance"]["score"] = performance
    return changed


def test_the_report_is_read_in_seconds_milliseconds_and_scores_out_of_100(report):
    assert report["lighthouseVersion"] == "12.2.3"
    assert report["configSettings"]["formFactor"] == "mobile"
    vitals = read_report(report)
    assert vitals.lcp_s == pytest.approx(6.0574, abs=1e-4)  # Lighthouse showed "6.1 s"
    assert vitals.tbt_ms == 1374  # "1,370 ms"
    assert vitals.cls == 0
    assert vitals.fcp_s == pytest.approx(1.4079, abs=1e-4)  # "1.4 s"
    assert (vitals.performance, vitals.accessibility, vitals.best_practices) == (51, 100, 100)


def test_trimming_a_trimmed_report_changes_nothing_the_bench_reads(report):
    assert trimmed(report) == report


def test_the_median_is_taken_figure_by_figure(report):
    runs = [
        read_report(_with(report, 6000, 900, 0.0, 0.55)),
        read_report(_with(report, 4000, 1500, 0.2, 0.60)),
        read_report(_with(report, 5000, 300, 0.05, 0.40)),
    ]
    middle = median_vitals(runs)
    assert (middle.lcp_s, middle.tbt_ms, middle.cls) == (5.0, 900, 0.05)  # from three different runs
    assert middle.performance == pytest.approx(55)
    assert middle.accessibility == 100
    assert median_vitals(runs[:2]).lcp_s == 5.0  # an even count: the mean of the middle two
    with pytest.raises(ValueError):
        median_vitals([])


def test_the_budgets_pass_and_fail_on_the_right_side_of_their_lines(report):
    vitals = read_report(report)
    verdicts = {name: budget.passes(vitals) for name, budget in BUDGETS.items()}
    assert verdicts == {"lcp_s": False, "tbt_ms": False, "cls": True, "accessibility": True, "best_practices": True}
    on_the_lines = Vitals(lcp_s=2.5, tbt_ms=200, cls=0.1, fcp_s=9, performance=0, accessibility=100, best_practices=100)
    assert all(budget.passes(on_the_lines) for budget in BUDGETS.values())
    assert cell("lcp_s", vitals) == "6.06 s FAIL"
    assert cell("tbt_ms", vitals) == "1,374 ms FAIL"
    assert cell("cls", vitals) == "0.000 PASS"
    assert cell("fcp_s", vitals) == "1.41 s"  # no budget
    assert cell("accessibility", vitals) == "100 PASS"
    assert heading("lcp_s", "LCP") == "LCP (≤ 2.5 s)"
    assert heading("cls", "CLS") == "CLS (≤ 0.1)"
    assert heading("best_practices", "best practices") == "best practices (≥ 100)"


def test_before_and_after_are_rows_side_by_side_in_one_table(report):
    after = read_report(report)
    before = read_report(_with(report, 2000, 100, 0.0, 0.95))
    medians = {("index", "this checkout"): after, ("index", "before"): before}
    lines = table(medians, ["index"], ["this checkout", "before"])
    assert len(lines) == 4
    assert lines[2].startswith("| index `/` | this checkout | 6.06 s FAIL | 1,374 ms FAIL |")
    assert lines[3].startswith("| index `/` | before | 2.00 s PASS | 100 ms PASS |")
    assert failed_budgets(medians, "this checkout") == 2
    assert failed_budgets(medians, "before") == 0


def test_a_metric_lighthouse_could_not_compute_is_an_error_not_a_zero(report):
    report["audits"]["largest-contentful-paint"]["numericValue"] = None
    with pytest.raises(LighthouseFailed, match="largest-contentful-paint"):
        read_report(report)


def test_warnings_are_one_line_each(report):
    (text,) = warnings(report)
    assert text.startswith("The tested device appears to have a slower CPU than Lighthouse expects.")


def test_the_machine_lighthouse_measured_is_kept(report):
    assert benchmark_index(report) == 997  # just under the 1,000 Lighthouse expects: hence its warning
