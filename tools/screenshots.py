"""Screenshots of the student's first screen: every lab and one exercise, on a laptop and on a phone.

Starts the app (``python -m app``) on a free loopback port and opens each page in Chromium twice:
a laptop window (1280 × 800) and a phone's mobile browser (375 × 812, touch, 2× screen; a desktop
window as narrow never shows what a phone does). It saves what is on the first screen, no
scrolling, as PNG files; for two exercises (a number, a choice), after "Start this exercise" has been
pressed. Look at
them after a change to the layout (the tests check the measurable part: tests/browser/test_layout_browser.py).

Usage: ``.venv/bin/python tools/screenshots.py [--out test-artifacts/screens]``
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from playwright.sync_api import Page, expect, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout, as for bench/

from bench.lib.servers import AppServer  # noqa: E402
from labs.registry import registrations  # noqa: E402
from tests.chromium import launch  # noqa: E402
from tests.conftest import PHONE  # noqa: E402

SCREENS = {"laptop": {"viewport": {"width": 1280, "height": 800}}, "phone": PHONE}
EXERCISES = {
    "exercise": ("buckets", "A bucket per layer", "Bucket timeline lab", "textbox"),
    "choice": ("hidden", "Heavy contention on both sides", "Bucket timeline lab", "group"),
}
"""The exercises shot once started: lesson, exercise title, the lab it uses, the prediction's role
(a typed number's text box, a choice's group of radio buttons)."""


def lab_ready(page: Page, title: str) -> None:
    """Wait until the lab called ``title`` shows its readout and its plots are drawn."""
    region = page.get_by_role("region", name=title)
    expect(region.get_by_role("status").first).to_contain_text(" = ")
    expect(region.get_by_role("img").first).to_be_visible()


def main() -> None:
    """Save ``<screen>-<page>.png`` for each lab and the started exercises."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("test-artifacts/screens"), help="where the PNGs go")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    server = AppServer(ready_path="/healthz")
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            for screen, options in SCREENS.items():
                context = browser.new_context(**options)
                page = context.new_page()
                for lab in registrations():
                    page.goto(f"{server.base_url}/{lab.slug}")
                    lab_ready(page, lab.title)
                    page.screenshot(path=str(args.out / f"{screen}-{lab.slug}.png"))
                for name, (lesson, title, lab_title, role) in EXERCISES.items():
                    page.goto(f"{server.base_url}/lesson?id={lesson}")
                    card = page.get_by_role("region", name=f"Exercise: {title}")
                    card.get_by_role("button", name="Start this exercise").click()
                    prediction = card.get_by_role(role, name="Your prediction")
                    expect(prediction).to_be_visible()
                    lab_ready(page, lab_title)
                    prediction.scroll_into_view_if_needed()
                    page.screenshot(path=str(args.out / f"{screen}-{name}.png"))
                context.close()
            browser.close()
    finally:
        server.stop()
    for path in sorted(args.out.glob("*.png")):
        print(path)


if __name__ == "__main__":
    main()
