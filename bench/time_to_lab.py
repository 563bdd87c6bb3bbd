"""Time to a working lab: from navigation until the lab's readout shows and Step answers, in Chromium.

Opens the first lesson (``/lesson?id=overlap``) from ``python -m app`` on loopback, each time in a
fresh browser profile (cold browser cache, as a student's first visit), and times three moments:

- **readout**: the lab's readout (its ``role="status"``) shows a figure;
- **working**: a click on the lab's Step button, made as soon as the readout shows, has come back
  from the server as a new readout (what "a lab that works" means to a student);
- for the reference, ``panel serve bench/bare_lesson.py`` (the same Markdown in the same template,
  no lab), **shown**: its first heading is visible.

Each is measured on loopback as it is, and throttled as a mid-range phone on a slow 4G network,
through the Chrome DevTools Protocol: 4 Mbit/s down, 1.5 Mbit/s up, 150 ms round trip
(``Network.emulateNetworkConditions``) and the page's CPU 4× slower (``Emulation.setCPUThrottlingRate``),
once in a narrow desktop window (412 px, as in earlier figures) and once in a mobile browser
context (``is_mobile``, ``has_touch``, 375 × 812: the page laid out at the phone's own width, which
a desktop window never shows).
The server runs unthrottled on this machine. Prints one table, median and worst of ``--runs``,
and how fast this machine was before and after the visits (``bench/lib/machine.py``): the page's
CPU is throttled relative to this machine's, so a machine running slower that hour emulates a
slower phone, and the figures of two runs compare only at similar speeds.

With ``--before DIR`` (another checkout, such as ``git worktree add /tmp/before <commit>``) that
checkout's app is opened in the same rounds too, visit for visit in turn with this one's: the
machine's speed drifts between runs by more than most changes move these figures. With
``--compare-skip FIXES`` a second app process of this checkout runs with those ``app.upstream`` fixes
skipped (``OVERLAP_UPSTREAM_SKIP``) and is opened in the same rounds the same way.

Usage: ``.venv/bin/python -m bench.time_to_lab [--runs 5] [--lesson overlap] [--before DIR] [--compare-skip FIXES]``
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

from app.upstream import SKIP_ENV
from bench.lib.machine import REFERENCE_MACHINE_S, integer_additions_s
from bench.lib.servers import AppServer, PanelServer
from tests.chromium import launch

PHONE_4G = {"offline": False, "latency": 150, "downloadThroughput": 4_000_000 / 8, "uploadThroughput": 1_500_000 / 8}
"""Slow 4G as Chrome DevTools Protocol figures: bytes per second, round trip in ms."""

CPU_SLOWDOWN = 4
"""The page's CPU, this many times slower (a mid-range phone against this machine's core)."""

GOAL_S = 5.0
"""Issue goal for a working lab, throttled."""

TIMEOUT_MS = 120_000


@dataclass
class Conditions:
    """How the browser is held back: none (loopback) or a phone on slow 4G."""

    name: str
    network: dict | None
    cpu: float
    mobile: bool = False


NARROW_WINDOW = {"viewport": {"width": 412, "height": 900}}
"""A desktop browser window as narrow as a phone."""

MOBILE = {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
"""A phone's browser: its layout viewport, touch, and a 2× screen."""

LOOPBACK = Conditions("loopback", None, 1)
THROTTLED = Conditions("phone on slow 4G (4 Mbit/s, 150 ms, CPU 4×)", PHONE_4G, CPU_SLOWDOWN)
THROTTLED_MOBILE = Conditions("the same in a mobile context (375 px, touch)", PHONE_4G, CPU_SLOWDOWN, mobile=True)


def fresh_page(browser: Browser, conditions: Conditions) -> tuple[BrowserContext, Page]:
    """A page in a new profile (cold cache) with the throttling applied before navigation."""
    context = browser.new_context(**(MOBILE if conditions.mobile else NARROW_WINDOW))
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    if conditions.network is not None:
        cdp.send("Network.emulateNetworkConditions", conditions.network)
    if conditions.cpu != 1:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": conditions.cpu})
    return context, page


def time_app(browser: Browser, base_url: str, lesson: str, conditions: Conditions) -> tuple[float, float]:
    """Seconds from navigation to the readout, and to the readout after the first Step."""
    context, page = fresh_page(browser, conditions)
    try:
        lab = page.get_by_role("region", name="Queue lab")
        status = lab.get_by_role("status").first
        start = time.perf_counter()
        page.goto(f"{base_url}/lesson?id={lesson}", wait_until="commit", timeout=TIMEOUT_MS)
        status.filter(has_text="=").wait_for(timeout=TIMEOUT_MS)
        shown = time.perf_counter() - start
        before = status.inner_text()
        lab.get_by_role("button", name="Step").click(timeout=TIMEOUT_MS)
        expect(status).not_to_have_text(before, timeout=TIMEOUT_MS)  # looked up again each time
        return shown, time.perf_counter() - start
    finally:
        context.close()


def time_bare(browser: Browser, bare: PanelServer, lesson: str, conditions: Conditions) -> float:
    """Seconds from navigation to the bare page's first heading."""
    context, page = fresh_page(browser, conditions)
    try:
        start = time.perf_counter()
        page.goto(f"{bare.base_url}{bare.page}?id={lesson}", wait_until="commit", timeout=TIMEOUT_MS)
        page.get_by_role("heading").first.wait_for(timeout=TIMEOUT_MS)
        return time.perf_counter() - start
    finally:
        context.close()


def summary(values: list[float]) -> str:
    """``median / worst`` in seconds."""
    return f"{statistics.median(values):.2f} / {max(values):.2f} s"


def main() -> None:
    """Open a lesson in Chromium, plain and throttled, and print the time to a working lab."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="visits per row (default 5)")
    parser.add_argument("--lesson", default="overlap", help="the lesson opened (default overlap)")
    parser.add_argument("--before", type=Path, help="another checkout whose app is opened in the same rounds")
    parser.add_argument(
        "--compare-skip",
        metavar="FIXES",
        help="also open this app with these app.upstream fixes skipped (OVERLAP_UPSTREAM_SKIP), in the same rounds",
    )
    args = parser.parse_args()
    apps = {"app": AppServer(ready_path="/healthz")}
    if args.before:
        apps["before"] = AppServer(ready_path="/healthz", cwd=args.before.resolve())
    if args.compare_skip:
        apps[f"no {args.compare_skip}"] = AppServer(ready_path="/healthz", env={SKIP_ENV: args.compare_skip})
    bare = PanelServer("bare_lesson.py")
    rows = []
    speed = [integer_additions_s()]
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            for app in apps.values():  # one visit to warm each server's caches
                time_app(browser, app.base_url, args.lesson, LOOPBACK)
            time_bare(browser, bare, args.lesson, LOOPBACK)
            for conditions in (LOOPBACK, THROTTLED, THROTTLED_MOBILE):
                runs: dict[str, list[tuple[float, float]]] = {name: [] for name in apps}
                bare_runs = []
                for _ in range(args.runs):
                    for name, app in apps.items():
                        runs[name].append(time_app(browser, app.base_url, args.lesson, conditions))
                    bare_runs.append(time_bare(browser, bare, args.lesson, conditions))
                for name, app_runs in runs.items():
                    rows.append((conditions.name, name, [r[0] for r in app_runs], [r[1] for r in app_runs], bare_runs))
            browser.close()
        speed.append(integer_additions_s())
    finally:
        for app in apps.values():
            app.stop()
        bare.stop()
    print(f"Time to a working lab, /lesson?id={args.lesson}, {args.runs} fresh profiles each, median / worst")
    print(
        f"machine: 10M integer additions in {speed[0]:.2f} s before the visits and {speed[-1]:.2f} s after"
        f" ({REFERENCE_MACHINE_S:.2f} s on the reference machine; the throttled page runs 4× slower than this one)"
    )
    if args.before:
        print(f"before: the app of {args.before}")
    print("| conditions | app | readout shown | Step answered | bare page: heading shown |")
    print("|---|---|---|---|---|")
    for conditions_name, name, shown, working, bare_shown in rows:
        print(f"| {conditions_name} | {name} | {summary(shown)} | {summary(working)} | {summary(bare_shown)} |")
    for conditions in (THROTTLED, THROTTLED_MOBILE):
        throttled_working = next(row[3] for row in rows if row[0] == conditions.name and row[1] == "app")
        verdict = "within" if max(throttled_working) <= GOAL_S else "beyond"
        print(f"Throttled ({conditions.name}), the worst working lab is {verdict} the {GOAL_S:.0f} s goal.")


if __name__ == "__main__":
    main()
