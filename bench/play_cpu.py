"""Server CPU per second of Play: browser-side playback (the app) against a server-driven baseline.

Starts two servers on loopback (the app with ``python -m app``, the baseline with ``panel serve
bench/server_driven_queue.py``), opens one Chromium session on each, plays for a fixed window and
reads each server process's CPU time from /proc before and after. Prints both figures, the ratio,
and the Bokeh messages each page exchanged during the window.

Usage: ``.venv/bin/python -m bench.play_cpu [--seconds 8]``
"""

from __future__ import annotations

import argparse
import json

from playwright.sync_api import Browser, Page, sync_playwright

from bench.lib.procfs import cpu_seconds
from bench.lib.servers import AppServer, PanelServer
from tests.chromium import launch


def count_messages(page: Page) -> list[str]:
    """The ``msgtype`` of every Bokeh message the page's websockets send or receive, as they pass."""
    seen: list[str] = []

    def record(payload: str | bytes) -> None:
        try:
            header = json.loads(payload)
        except (TypeError, ValueError):
            return
        if isinstance(header, dict) and "msgtype" in header:
            seen.append(header["msgtype"])

    page.on("websocket", lambda ws: (ws.on("framesent", record), ws.on("framereceived", record)))
    return seen


def window(page: Page, pid: int, seen: list[str], seconds: float) -> tuple[float, int]:
    """Server CPU ms per second and Bokeh messages over the next ``seconds``."""
    before_messages, before = len(seen), cpu_seconds(pid)
    page.wait_for_timeout(seconds * 1000)
    return (cpu_seconds(pid) - before) * 1000 / seconds, len(seen) - before_messages


def measure(browser: Browser, url: str, pid: int, seconds: float, press_play: bool) -> dict[str, tuple[float, int]]:
    """Open one session; measure it idle, then (for the app) while playing, in the same session.

    Closing a page makes the server tear its session down a little later, so every window of one
    server is taken within one page that stays open.
    """
    page = browser.new_page()
    seen = count_messages(page)
    page.goto(url)
    lab = page.get_by_role("region", name="Queue lab")
    lab.get_by_role("status").first.wait_for()
    page.wait_for_timeout(2000)
    figures = {"idle": window(page, pid, seen, seconds)}
    if press_play:
        lab.get_by_role("combobox", name="Speed").select_option("0.5×")  # the 10 s horizon lasts 20 s
        page.wait_for_timeout(500)
        lab.get_by_role("button", name="Play").click()
        page.wait_for_timeout(300)
        figures["play"] = window(page, pid, seen, seconds)
    page.close()
    return figures


def main() -> None:
    """Play in Chromium and print the server's CPU per second of Play against an idle page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    app = AppServer(host="localhost")
    baseline = PanelServer("server_driven_queue.py", host="localhost")
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            app_figures = measure(browser, f"{app.base_url}/queue", app.pid, args.seconds, True)
            base_figures = measure(browser, f"{baseline.base_url}{baseline.page}", baseline.pid, args.seconds, False)
            browser.close()
    finally:
        app.stop()
        baseline.stop()
    print(f"window: {args.seconds:.0f} s of Play, one session each, server CPU from /proc")
    print(f"{'':34}{'CPU ms per s':>14}{'ws messages':>13}")
    (app_idle, idle_msgs), (app_play, app_msgs) = app_figures["idle"], app_figures["play"]
    base_play, base_msgs = base_figures["idle"]  # the baseline plays from the moment it loads
    print(f"{'app, session open, idle':34}{app_idle:>14.1f}{idle_msgs:>13}")
    print(f"{'app, browser-side Play':34}{app_play:>14.1f}{app_msgs:>13}")
    print(f"{'baseline, server-driven 20 fps':34}{base_play:>14.1f}{base_msgs:>13}")
    ratio = app_play / base_play if base_play else float("nan")
    print(f"ratio app/baseline: {ratio:.3f} (budget: at most 0.1)")


if __name__ == "__main__":
    main()
