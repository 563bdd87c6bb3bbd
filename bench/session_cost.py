"""Server CPU to open one lesson session, against a bare Panel page with the same lesson Markdown.

Starts two servers from this virtual environment on free loopback ports:

- the app (``python -m app``), page ``/lesson?id=<lesson>``;
- the baseline, ``panel serve bench/bare_lesson.py``: the same ``BootstrapTemplate`` showing the
  lesson's Markdown in one pane, page ``/bare_lesson?id=<lesson>``.

Then Chromium (Playwright) opens each page ``--opens`` times, alternating between the two, after
``--warmup`` opens of each that are not counted. An open runs from ``page.goto`` until the page is
usable (the app: the lab's readout, ``role="status"`` with ``t = ``; the baseline: the lesson's
first heading) plus ``--settle`` seconds for what the page sends once it has rendered. The figure is
the server process's CPU time over that window, from ``/proc/<pid>/stat``. Pages stay open until
the end, so no session teardown falls inside a window.

With ``--before DIR`` (another checkout of the app, such as ``git worktree add /tmp/before <commit>``)
that checkout's app is a third server, opened in the same rounds, for a before/after in one run.

With ``--pages /queue,/embed/queue`` those pages of the app (a lab page: usable once its readout
shows) are opened too, in the same rounds and on the same app process as the lesson, so that an
embedded lab's session compares with its full page's.

Prints per-open CPU (median and mean) of every server and each app's ratio to the bare page; the
design budget is a ratio of at most 1.5. With ``--pages``, each further page's ratio to the first.

Usage: ``.venv/bin/python -m bench.session_cost [--opens 8] [--lesson overlap] [--before DIR]
[--pages /queue,/embed/queue]``
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext

from bench.lib.browser import Ready, desktop_context, wait_until_usable
from bench.lib.procfs import cpu_seconds
from bench.lib.servers import AppServer, PanelServer
from tests.chromium import launch

BUDGET_RATIO = 1.5


def open_once(browser: Browser, url: str, ready: Ready, settle: float, pid: int) -> tuple[float, BrowserContext]:
    """Open ``url`` in a fresh browser context; return the server CPU seconds it cost and the context."""
    context = desktop_context(browser)
    page = context.new_page()
    before = cpu_seconds(pid)
    page.goto(url)
    wait_until_usable(page, ready, 60_000)
    page.wait_for_timeout(settle * 1000)
    return cpu_seconds(pid) - before, context


def main() -> None:
    """Open lesson sessions on the app and the bare page in turn and print their CPU."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opens", type=int, default=8, help="counted opens of each page")
    parser.add_argument("--warmup", type=int, default=2, help="uncounted opens of each page first")
    parser.add_argument("--lesson", default="overlap")
    parser.add_argument("--settle", type=float, default=1.0, help="seconds after ready inside each window")
    parser.add_argument("--app-args", default="", help="extra arguments for python -m app")
    parser.add_argument("--before", type=Path, help="another checkout whose app is measured in the same rounds")
    parser.add_argument(
        "--pages", default="", help="comma-separated app pages opened too, in the same rounds: /queue,/embed/queue"
    )
    args = parser.parse_args()
    pages = [path.strip() for path in args.pages.split(",") if path.strip()]

    from playwright.sync_api import sync_playwright

    app = AppServer(extra_args=args.app_args.split())
    bare = PanelServer("bare_lesson.py")
    before = AppServer(extra_args=args.app_args.split(), cwd=args.before.resolve()) if args.before else None
    servers = [server for server in (app, bare, before) if server is not None]
    targets: dict[str, tuple[str, Ready, int]] = {
        "app": (f"{app.base_url}/lesson?id={args.lesson}", "readout", app.pid),
        "bare": (f"{bare.base_url}{bare.page}?id={args.lesson}", "heading", bare.pid),
    }
    if before is not None:
        targets["before"] = (f"{before.base_url}/lesson?id={args.lesson}", "readout", before.pid)
    for path in pages:
        targets[path] = (f"{app.base_url}{path}", "readout", app.pid)
    costs: dict[str, list[float]] = {name: [] for name in targets}
    contexts = []
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            for round_ in range(args.warmup + args.opens):
                for name, (url, ready, pid) in targets.items():
                    cost, context = open_once(browser, url, ready, args.settle, pid)
                    contexts.append(context)
                    if round_ >= args.warmup:
                        costs[name].append(cost * 1000)
            for context in contexts:
                context.close()
            browser.close()
        problems = app.problems() + (before.problems() if before else [])
    finally:
        for server in servers:
            server.stop()

    print(
        f"Server CPU per session open, lesson '{args.lesson}', {args.opens} opens each after "
        f"{args.warmup} warm-up, settle {args.settle} s:"
    )
    if before is not None:
        print(f"  before: the app of {args.before}")
    if pages:
        print(f"  {', '.join(pages)}: pages of the same app process as 'app'")
    width = max(len(name) for name in costs)
    for name, values in costs.items():
        print(
            f"  {name:{width}s}: median {statistics.median(values):7.1f} ms  mean {statistics.mean(values):7.1f} ms  "
            f"min {min(values):7.1f}  max {max(values):7.1f}"
        )
    for name in [name for name in costs if name not in ("bare", *pages)]:
        ratio = statistics.median(costs[name]) / statistics.median(costs["bare"])
        verdict = "within" if ratio <= BUDGET_RATIO else "OVER"
        print(f"  ratio {name}/bare (medians): {ratio:.2f}  ({verdict} the budget of {BUDGET_RATIO:g})")
    for path in pages[1:]:
        ratio = statistics.median(costs[path]) / statistics.median(costs[pages[0]])
        print(f"  ratio {path} / {pages[0]} (medians): {ratio:.2f}")
    if problems:
        print("Server problems:", *problems, sep="\n  ")


if __name__ == "__main__":
    main()
