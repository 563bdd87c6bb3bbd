"""Screenshots of the student's first screen: every lab and one exercise, on a laptop and on a phone.

Starts the app (``python -m app``) on a free loopback port and opens each page in Chromium twice:
a laptop window (1280 × 800) and a phone's mobile browser (375 × 812, touch, 2× screen; a desktop
window as narrow never shows what a phone does). It saves what is on the first screen, no
scrolling, as PNG files; then one exercise of each kind (:data:`KINDS`), done with its right prediction
as a student does it (the browser tests' steps), shot started, at its verdict, and on a phone after
"Read why". Look at
them after a change to the layout (the tests check the measurable part: tests/browser/test_layout_browser.py).

Usage: ``.venv/bin/python tools/screenshots.py [--out test-artifacts/screens]``
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from playwright.sync_api import Page, expect, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout, as for bench/

from app.course.catalog import lab_kinds  # noqa: E402
from app.course.content import Lesson, load_lessons  # noqa: E402
from bench.lib.servers import AppServer  # noqa: E402
from labs.registry import registrations  # noqa: E402
from tests.browser.test_lessons_browser import work_exercise  # noqa: E402
from tests.chromium import launch  # noqa: E402
from tests.conftest import PHONE  # noqa: E402

SCREENS = {"laptop": {"viewport": {"width": 1280, "height": 800}}, "phone": PHONE}
KINDS = {
    "number-queue": ("overlap", "growth"),
    "number-timeline": ("overlap", "host-timer"),
    "choice-timeline": ("hidden", "overlap-slower-than-none"),
    "choice-random-queue": ("overlap", "random-peak"),
    "number-roofline": ("hidden", "memory-bound"),
    "number-trace": ("hidden", "late-rank-in-a-trace"),
}
"""One exercise of each kind (a typed number or a choice, on each lab, the seeded random queue and the
sample trace), by lesson slug and exercise id: each is shot started, at its verdict, and on a phone once
"Read why" has given the card back to the page."""


def lab_ready(page: Page, title: str) -> None:
    """Wait until the lab called ``title`` shows its readout and its plots are drawn."""
    region = page.get_by_role("region", name=title)
    expect(region.get_by_role("status").first).to_contain_text(" = ")
    expect(region.get_by_role("img").first).to_be_visible()


def shoot_exercise(page: Page, base_url: str, out: Path, screen: str, kind: str, lesson: Lesson, exercise) -> None:
    """Start ``exercise``, do its steps with the right prediction, and shoot it started and at its verdict."""
    page.goto(f"{base_url}/lesson?id={lesson.slug}")
    region = page.get_by_role("region", name=f"Exercise: {exercise.title}")
    region.get_by_role("button", name="Start this exercise").click()
    lab = page.get_by_role("region", name=lab_kinds()[exercise.lab].title)
    expect(lab.get_by_role("status").first).to_contain_text(re.compile("=|Load the sample trace"))
    expect(region.get_by_role("button", name="Lock prediction")).to_be_visible()  # started
    page.screenshot(path=str(out / f"{screen}-{kind}-started.png"))
    page.base_url = base_url  # type: ignore[attr-defined]
    work_exercise(lab, region, exercise, exercise.answer, use_play=True)
    expect(region.get_by_role("status").first).to_contain_text("Correct")
    page.screenshot(path=str(out / f"{screen}-{kind}-verdict.png"))
    read_why = region.get_by_role("button", name="Read why")
    if read_why.is_visible():  # a phone: the card docked through its verdict
        read_why.click()
        expect(region.get_by_text("Why:")).to_be_in_viewport()
        page.screenshot(path=str(out / f"{screen}-{kind}-read-why.png"))


def main() -> None:
    """Save ``<screen>-<page>.png`` for each lab and the started exercises."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("test-artifacts/screens"), help="where the PNGs go")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    lessons = load_lessons()
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
                for kind, (slug, exercise_id) in KINDS.items():
                    lesson = next(lesson for lesson in lessons if lesson.slug == slug)
                    exercise = next(exercise for exercise in lesson.exercises if exercise.id == exercise_id)
                    shoot_exercise(page, server.base_url, args.out, screen, kind, lesson, exercise)
                context.close()
            browser.close()
    finally:
        server.stop()
    for path in sorted(args.out.glob("*.png")):
        print(path)


if __name__ == "__main__":
    main()
