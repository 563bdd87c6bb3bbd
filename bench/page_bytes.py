"""Bytes on the wire for a lesson page, on every way of serving, beside a bare Panel page.

Starts each way of serving from this checkout on free loopback ports, one after the other:

- ``make serve``: ``python -m app`` (what the Makefile runs);
- the README's ``panel serve`` line, exactly as written there (through a shell, so its glob expands);
- the container's command: the Dockerfile's ``CMD`` with its ``ENV`` (``ADDRESS`` set to 127.0.0.1 to
  stay on loopback);
- the cluster: ``deploy/cluster.py``'s :class:`Cluster`, two app processes behind Debian's nginx;
- the reference: ``panel serve bench/bare_lesson.py``, the lesson's Markdown in the same template.

For each, Chromium (Playwright, ``tests/chromium.py``) opens, in a fresh browser profile, the first
lesson (cold server, cold browser cache), then the second lesson in the same profile (the repeat
visit: browser cache warm), then the first lesson again in another fresh profile (a second student:
browser cache cold, server and nginx cache warm). A visit ends once the page is usable (the app: the
lab's readout; the bare page: its first heading) and no request is pending.

Bytes are what Chromium's DevTools protocol reports as received for each response
(``Network.loadingFinished``'s ``encodedDataLength``: headers and body as they came over the
socket, compressed or not; 0 for a file taken from the browser's cache). The websocket's frames
(the Bokeh document and its updates) are counted apart, as payload bytes, and what the page received
on it also as it crossed the wire: deflated when the handshake agreed on permessage-deflate, a
figure computed with the server's compressor settings (DevTools reports frames inflated only; see
``bench/lib/traffic.py``). Prints one table.

With ``--pages /queue,/embed/queue`` it measures those pages instead of the lessons: each page in a
fresh browser profile, the pages in turn (``first``: the first page listed meets a cold server), then
each again in another fresh profile (``student 2``: server and nginx cache warm). A lab page is
usable once its readout shows. Only ``python -m app`` and the cluster serve ``/<lab>`` and
``/embed/<lab>``: ``--only app,cluster``.

Usage: ``.venv/bin/python -m bench.page_bytes [--first overlap] [--second buckets] [--only app,bare]
[--pages /queue,/embed/queue]``
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from playwright.sync_api import Browser, Page, sync_playwright

from bench.lib.browser import Ready, desktop_context, wait_until_usable
from bench.lib.traffic import Visit, recorder
from bench.lib.ways_of_serving import WAYS, Server, start
from tests.chromium import launch

FIRST_BUDGET = 1_000_000
"""Design budget for a first visit, bytes on the wire (docs: design.md, Budgets)."""

REPEAT_BUDGET = 100_000
"""Design budget for a repeat visit (a second lesson, browser cache warm)."""


class NotServed(Exception):
    """A page the way of serving answers with an error (e.g. ``/embed/queue`` under ``panel serve``)."""


def visit(page: Page, url: str, ready: Ready, end_visit: Callable[[], Visit]) -> Visit:
    """Open ``url`` and wait until the page is usable and its requests are done.

    Raises
    ------
    NotServed
        When ``url`` answers with an HTTP error, rather than waiting for a page that never comes.
    """
    response = page.goto(url)
    if response is None or not response.ok:
        raise NotServed(f"{url}: HTTP {response.status if response else 'no response'}")
    wait_until_usable(page, ready, 120_000)
    return end_visit()


def measure(browser: Browser, server: Server, first: str, second: str) -> dict[str, Visit]:
    """The three visits (first, repeat, second student) to one way of serving."""
    results = {}
    for visits in ([("first", first), ("repeat", second)], [("student 2", first)]):  # two fresh browsers
        context = desktop_context(browser)
        page = context.new_page()
        with recorder(context, page) as end_visit:
            for label, slug in visits:
                results[label] = visit(
                    page, server.base_url + server.lesson_path.format(slug=slug), server.ready, end_visit
                )
        context.close()
    return results


def measure_pages(browser: Browser, server: Server, paths: list[str]) -> dict[str, dict[str, Visit]]:
    """Each page in a fresh profile, the pages in turn (``first``), then all again (``student 2``).

    Parameters
    ----------
    browser : playwright.sync_api.Browser
        A launched Chromium.
    server : Server
        The way of serving, running.
    paths : list of str
        The pages, e.g. ``["/queue", "/embed/queue"]``.

    Returns
    -------
    dict of str to dict of str to Visit
        Per path, its ``first`` and ``student 2`` visit.
    """
    results: dict[str, dict[str, Visit]] = {path: {} for path in paths}
    for label in ("first", "student 2"):
        for path in paths:
            context = desktop_context(browser)
            page = context.new_page()
            try:
                with recorder(context, page) as end_visit:
                    results[path][label] = visit(page, server.base_url + path, server.ready, end_visit)
            finally:
                context.close()
    return results


def print_pages(rows: list[tuple[str, dict[str, dict[str, Visit]]]]) -> None:
    """The table of ``--pages``: per way of serving and page, its two first visits.

    Parameters
    ----------
    rows : list of (str, dict)
        The way of serving's name and what :func:`measure_pages` returned.
    """
    print(f"Bytes on the wire (encoded, headers included) of a first visit; budget <= {kb(FIRST_BUDGET)} kB.")
    header = (
        f"{'way of serving':32s} {'page':14s} {'first kB':>9s} {'resp':>4s} {'gzip%':>5s} {'ws kB':>6s}"
        f" {'ws in kB':>12s}  {'student 2 kB':>12s} {'resp':>4s} {'nginx HIT':>9s}  verdict"
    )
    print(header)
    print("-" * len(header))
    for name, pages in rows:
        for path, visits in pages.items():
            first, other = visits["first"], visits["student 2"]
            share = 100 * first.gzipped_bytes / first.bytes if first.bytes else 0
            verdict = "within" if max(first.bytes, other.bytes) <= FIRST_BUDGET else "OVER"
            print(
                f"{name:32s} {path:14s} {kb(first.bytes):>9s} {first.responses:>4d} {share:>5.0f}"
                f" {kb(first.ws_bytes):>6s} {kb(first.ws_received) + ' / ' + kb(first.ws_received_wire):>12s}"
                f"  {kb(other.bytes):>12s} {other.responses:>4d} {other.nginx_hits:>9d}  {verdict}"
            )
    print(
        "first: each page in a fresh browser, in turn (the first page listed meets a cold server); student 2:"
        " each page again in another fresh browser, server (and nginx cache) warm. ws kB: websocket payload"
        " of the first visit, both ways, not in the other figures; ws in kB: what the page received on it,"
        " payload / on the wire (deflated, computed: bench/lib/traffic.py)."
    )


def kb(value: int) -> str:
    """Bytes as kB (1000 bytes), one decimal."""
    return f"{value / 1000:,.1f}"


def main() -> None:
    """Load a lesson on each way of serving asked for and print its bytes on the wire."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", default="overlap", help="the lesson of the first visit")
    parser.add_argument("--second", default="buckets", help="the lesson of the repeat visit")
    parser.add_argument("--only", default=",".join(WAYS), help=f"comma-separated: {','.join(WAYS)}")
    parser.add_argument(
        "--pages", help="comma-separated paths measured instead of the lessons, e.g. /queue,/embed/queue"
    )
    parser.add_argument("--verbose", action="store_true", help="list every response of every visit")
    args = parser.parse_args()
    paths = [path.strip() for path in args.pages.split(",") if path.strip()] if args.pages else []

    rows: list[tuple[str, dict[str, Visit]]] = []
    page_rows: list[tuple[str, dict[str, dict[str, Visit]]]] = []
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            for name in args.only.split(","):
                server = start(name.strip())
                try:
                    if paths:
                        page_rows.append((server.name, measure_pages(browser, server, paths)))
                    else:
                        rows.append((server.name, measure(browser, server, args.first, args.second)))
                except NotServed as error:
                    print(f"{server.name}: skipped, {error}", file=sys.stderr)
                finally:
                    server.stop()
        finally:
            browser.close()

    if paths:
        print_pages(page_rows)
        if args.verbose:
            for name, pages in page_rows:
                for path, visits in pages.items():
                    for label, result in visits.items():
                        print(f"\n{name}, {path}, {label}:")
                        for size, url in sorted(result.urls, reverse=True):
                            print(f"  {size:>9,d}  {url[:120]}")
        return

    print(
        f"Bytes on the wire (encoded, headers included), lesson '{args.first}' then '{args.second}'; "
        f"budgets: first visit <= {kb(FIRST_BUDGET)} kB, repeat < {kb(REPEAT_BUDGET)} kB."
    )
    header = (
        f"{'way of serving':32s} {'first kB':>9s} {'resp':>4s} {'gzip%':>5s} {'MathJax':>7s} {'ws kB':>6s}"
        f" {'ws in kB':>12s}"
        f" {'repeat kB':>9s} {'resp':>4s} {'cached':>6s}  {'student 2 kB':>12s} {'nginx HIT':>9s}  verdict"
    )
    print(header)
    print("-" * len(header))
    for name, visits in rows:
        first, repeat, other = visits["first"], visits["repeat"], visits["student 2"]
        share = 100 * first.gzipped_bytes / first.bytes if first.bytes else 0
        ok = max(first.bytes, other.bytes) <= FIRST_BUDGET and repeat.bytes < REPEAT_BUDGET
        mathjax = "yes" if first.mathjax or other.mathjax else "no"
        verdict = ("within" if ok else "OVER") + (" (reference)" if name.startswith("bare") else "")
        print(
            f"{name:32s} {kb(first.bytes):>9s} {first.responses:>4d} {share:>5.0f} {mathjax:>7s}"
            f" {kb(first.ws_bytes):>6s} {kb(first.ws_received) + ' / ' + kb(first.ws_received_wire):>12s}"
            f" {kb(repeat.bytes):>9s} {repeat.responses:>4d} {repeat.from_cache:>6d}"
            f"  {kb(other.bytes):>12s} {other.nginx_hits:>9d}  {verdict}"
        )
    print(
        "first: cold server, cold browser; repeat: the second lesson, same browser; student 2: the first lesson"
        " in a fresh browser, server (and nginx cache) warm. resp: responses; cached: taken from the browser's"
        " cache; ws kB: websocket payload of the first visit, both ways, not in the other figures; ws in kB: what"
        " the page received on it, payload / on the wire (deflated, computed: bench/lib/traffic.py)."
    )
    if args.verbose:
        for name, visits in rows:
            for label, result in visits.items():
                print(f"\n{name}, {label}:")
                for size, url in sorted(result.urls, reverse=True):
                    print(f"  {size:>9,d}  {url[:120]}")


if __name__ == "__main__":
    main()
