"""Seeded fuzz at scale: random student actions across every lab and a lesson exercise, with counts.

Starts the app (``python -m app``) on a free loopback port and drives it with Chromium
(Playwright), using the engine of ``tests/fuzzing.py``: controls found by role and name,
ordinary and hostile typing, Step, Reset, Play/Pause, waits, selects; on the exercise page also
Start this exercise / Try again and Lock prediction with any text. After every action the page's
figures are checked against the models (backlog = max(0, q0 + (λ − μ)·t), attainable = min(P, I·B),
the timeline's buckets/step/exposed, the exercise's verdict against its figures) and for NaN,
infinities, negative zero and overlong numbers.

The actions are split evenly over four targets (``/queue``, ``/roofline``, ``/timeline`` and
``/lesson?id=overlap&exercise=growth``), each in runs of ``--per-page`` actions on a freshly opened
page (a new session). Every click waits at most ``tests.fuzzing.CLICK_TIMEOUT_MS`` for its control;
a click another element intercepts (a covered control) is a violation naming that element, with the
actions before it, and the run goes on. ``--phone`` runs it all in a phone's browser (390 × 844,
``is_mobile``, ``has_touch``), tapping instead of clicking.

Prints actions by kind, refusals, invariant checks, violations (the first few in full), intercepted
clicks, page errors, console errors and server tracebacks; exits 1 if any of the violations, page
errors, console errors or tracebacks is not zero.

Usage: ``.venv/bin/python -m bench.fuzz [--actions 10000] [--seed 20261130] [--per-page 250] [--phone]
[--skip-pages N]``. With ``--skip-pages 19 --actions 250`` a run replays its 20th page alone (its
target and seed; its timing is the machine's).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter

from playwright.sync_api import expect, sync_playwright

from bench.lib.browser import desktop_context, phone_context
from bench.lib.servers import AppServer
from bench.lib.student import LESSON_PATH
from tests.chromium import launch
from tests.fuzzing import LABS, SEED, Tally, fuzz_lab, growth_exercise
from tests.waiting import STUCK_AFTER_S

expect.set_options(timeout=STUCK_AFTER_S * 1000)  # as in the tests: a page opened on a busy machine is slow, not broken

TARGETS = ("exercise", "queue", "roofline", "timeline")


def parse_args() -> argparse.Namespace:
    """The command line: how many actions, the seed, actions per page."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=10_000, help="random actions in all (default 10000)")
    parser.add_argument("--seed", type=int, default=SEED, help="the seed every choice comes from")
    parser.add_argument("--per-page", type=int, default=250, help="actions on one page before a fresh one")
    parser.add_argument("--phone", action="store_true", help="a phone's browser (390x844, touch): tap, not click")
    parser.add_argument(
        "--skip-pages",
        type=int,
        default=0,
        help="draw the seeds of the first N pages without opening them: replays the run from page N + 1 "
        "(a page that found a violation; the run's Nth progress line is its end), same targets and seeds",
    )
    return parser.parse_args()


class AnnouncedList(list):
    """A list of violations that prints each one as it is added.

    A violation shows the moment it is found, so a page that stalls after one (each later check
    waiting out ``SETTLE_SECONDS``) still says why while it runs.
    """

    def append(self, item: str) -> None:
        """Print ``item``, then keep it."""
        print(f"    violation: {item[:1000]}", flush=True)
        super().append(item)

    def __iadd__(self, items):  # list's own signature
        """Print and keep each of ``items``."""
        for item in items:
            self.append(item)
        return self


def main() -> int:
    """Fuzz every target in runs of fresh pages and print the counts; 1 on any violation or page error."""
    args = parse_args()
    tally = Tally(violations=AnnouncedList())
    page_errors: list[str] = []
    console_errors: list[str] = []
    per_target: Counter = Counter()
    rng = random.Random(args.seed)
    exercise = growth_exercise()
    started = time.monotonic()
    with AppServer() as server, sync_playwright() as playwright:
        browser = launch(playwright)
        left, run = args.actions, 0
        for _ in range(args.skip_pages):  # each page draws its seed and nothing else from rng
            rng.randrange(2**32)
            run += 1
        while left > 0:
            target = TARGETS[run % len(TARGETS)]
            count = min(args.per_page, left)
            context = phone_context(browser) if args.phone else desktop_context(browser)
            page = context.new_page()
            page.on("pageerror", lambda error, t=target: page_errors.append(f"{t}: {error}"))
            page.on(
                "console",
                lambda message, t=target: (
                    console_errors.append(f"{t}: {message.text}") if message.type == "error" else None
                ),
            )
            page.base_url = server.base_url  # type: ignore[attr-defined]
            before = sum(tally.actions.values())
            if target == "exercise":
                fuzz_lab(page, LABS["queue"], count, rng.randrange(2**32), tally, LESSON_PATH, exercise, args.phone)
            else:
                fuzz_lab(page, LABS[target], count, rng.randrange(2**32), tally, touch=args.phone)
            per_target[target] += sum(tally.actions.values()) - before
            context.close()
            left -= count
            run += 1
            print(
                f"  {args.actions - left}/{args.actions} actions, {time.monotonic() - started:.0f} s, "
                f"{len(tally.violations)} violations ({tally.intercepted} intercepted clicks)",
                flush=True,
            )
        browser.close()
        log = server.log_text()
    tracebacks = log.count("Traceback")
    took = time.monotonic() - started
    device = "phone (390x844, touch)" if args.phone else "desktop (1280x900)"
    print(f"\nfuzz: {sum(tally.actions.values())} actions in {took:.0f} s, seed {args.seed}, {device}")
    print("actions by target: " + ", ".join(f"{k} {v}" for k, v in per_target.items()))
    print("actions by kind:")
    for kind, n in sorted(tally.actions.items(), key=lambda item: -item[1]):
        print(f"  {kind:22} {n}")
    print(f"refusals:          {tally.refusals}")
    print(f"invariant checks:  {tally.checks}")
    print(f"violations:        {len(tally.violations)}")
    print(f"intercepted clicks: {tally.intercepted} (counted in the violations)")
    print(f"other missed clicks: {sum(tally.missed.values())} (a button gone as pressed, a control off)")
    for reason, n in tally.missed.most_common(6):
        print(f"  {n:5}  {reason}")
    print(f"page errors:       {len(page_errors)}")
    print(f"console errors:    {len(console_errors)}")
    print(f"server tracebacks: {tracebacks}")
    for line in [*tally.violations[:10], *page_errors[:5], *console_errors[:5]]:
        print("  " + line)
    return 1 if tally.violations or page_errors or console_errors or tracebacks else 0


if __name__ == "__main__":
    sys.exit(main())
