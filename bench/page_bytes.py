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
(the Bokeh document and its updates) are counted apart, as payload bytes. Prints one table.

Usage: ``.venv/bin/python bench/page_bytes.py [--first overlap] [--second buckets] [--only app,bare]``
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from bokeh_client import ROOT, AppServer, free_port
from session_cost import BareServer

sys.path.insert(0, str(ROOT))
from deploy.cluster import Cluster  # noqa: E402
from tests.chromium import launch  # noqa: E402

FIRST_BUDGET = 1_000_000
"""Design budget for a first visit, bytes on the wire (docs: design.md, Budgets)."""

REPEAT_BUDGET = 100_000
"""Design budget for a repeat visit (a second lesson, browser cache warm)."""

README_PANEL_SERVE = re.compile(r"`(\.venv/bin/panel serve [^`]+)`")


@dataclass
class Visit:
    """What one page visit transferred."""

    bytes: int = 0
    responses: int = 0
    from_cache: int = 0
    gzipped_bytes: int = 0
    mathjax: bool = False
    ws_bytes: int = 0
    nginx_hits: int = 0
    urls: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class Server:
    """A way of serving, running: where its pages are and how to stop it."""

    name: str
    base_url: str
    lesson_path: str
    ready: str  # "readout" or "heading"
    stop: Callable[[], None]


def wait_http(url: str, process: subprocess.Popen | None, timeout: float = 120.0) -> None:
    """Wait until ``url`` answers 200 (or fail if ``process`` exits first)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as reply:
                reply.read()
            return
        except OSError:
            if (process is not None and process.poll() is not None) or time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not answer") from None
            time.sleep(0.2)


def subprocess_server(name: str, command: list[str], port: int, env: dict[str, str], lesson_path: str) -> Server:
    """Start ``command`` in the checkout, wait for its ``/``, and describe it."""
    log = tempfile.TemporaryFile()
    process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **env})

    def stop() -> None:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        log.close()

    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(base + "/", process)
    except RuntimeError:
        log.seek(0)
        output = log.read().decode(errors="replace")[-2000:]
        stop()
        raise RuntimeError(f"{name} did not start:\n{output}") from None
    return Server(name, base, lesson_path, "readout", stop)


def readme_panel_serve() -> str:
    """The README's ``panel serve`` command, as written."""
    match = README_PANEL_SERVE.search((ROOT / "README.md").read_text(encoding="utf-8"))
    if not match:
        raise RuntimeError("the README gives no `.venv/bin/panel serve ...` line")
    return match.group(1)


def dockerfile_command() -> tuple[list[str], dict[str, str]]:
    """The Dockerfile's ``CMD`` (exec form) and the environment its ``ENV`` lines set."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    env: dict[str, str] = {}
    command: list[str] = []
    for line in text.splitlines():
        if line.startswith("ENV "):
            env.update(dict(re.findall(r"(\w+)=(\S+)", line)))
        elif line.startswith("CMD "):
            command = json.loads(line[4:])
    if not command:
        raise RuntimeError("the Dockerfile has no CMD in exec form")
    return command, env


def start(name: str) -> Server:
    """Start one way of serving by its short name."""
    lesson = "/lesson?id={slug}"
    port = free_port()
    if name == "app":
        app = AppServer(port=port)
        return Server("make serve (python -m app)", app.base_url, lesson, "readout", app.stop)
    if name == "panel":
        command = f"exec {readme_panel_serve()} --port {port} --address 127.0.0.1"
        command += f" --allow-websocket-origin 127.0.0.1:{port}"
        return subprocess_server("README's panel serve line", ["bash", "-c", command], port, {}, lesson)
    if name == "container":
        command, env = dockerfile_command()
        command = [sys.executable if part == "python" else part for part in command]
        env.update(PORT=str(port), ADDRESS="127.0.0.1")
        return subprocess_server("container's CMD (Dockerfile)", command, port, env, lesson)
    if name == "cluster":
        log = tempfile.NamedTemporaryFile(prefix="overlap-bytes-cluster-", suffix=".log", delete=False)
        cluster = Cluster(port=port, app_ports=[free_port(), free_port()], log=log.name)

        def stop_cluster() -> None:
            cluster.stop()
            log.close()
            os.unlink(log.name)

        try:
            cluster.start()
        except BaseException:
            stop_cluster()
            raise
        return Server("cluster (nginx, 2 processes)", f"http://localhost:{port}", lesson, "readout", stop_cluster)
    if name == "bare":
        bare = BareServer()
        return Server("bare Panel page (reference)", bare.base_url, "/bare_lesson?id={slug}", "heading", bare.stop)
    raise ValueError(name)


@contextmanager
def recorder(context, page) -> Iterator[Callable[[], Visit]]:
    """Record the page's traffic through the DevTools protocol; yields a function that ends a visit."""
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    responses: dict[str, dict] = {}
    state = {"visit": Visit(), "pending": set()}

    def requested(event: dict) -> None:
        if event["request"]["url"].startswith(("http:", "https:")):
            state["pending"].add(event["requestId"])

    def responded(event: dict) -> None:
        headers = {key.lower(): value for key, value in event["response"]["headers"].items()}
        responses[event["requestId"]] = {"url": event["response"]["url"], "headers": headers}

    def finished(event: dict) -> None:
        state["pending"].discard(event["requestId"])
        info = responses.pop(event["requestId"], None)
        if info is None or not info["url"].startswith(("http:", "https:")):
            return
        visit: Visit = state["visit"]
        size = int(event["encodedDataLength"])
        visit.responses += 1
        visit.bytes += size
        visit.urls.append((size, info["url"]))
        visit.from_cache += size == 0
        if info["headers"].get("content-encoding") == "gzip":
            visit.gzipped_bytes += size
        visit.mathjax |= "mathjax" in info["url"].lower()
        visit.nginx_hits += info["headers"].get("x-cache-status") == "HIT"

    def failed(event: dict) -> None:
        state["pending"].discard(event["requestId"])
        responses.pop(event["requestId"], None)

    def frame(event: dict) -> None:
        response = event["response"]
        data = response.get("payloadData", "")
        state["visit"].ws_bytes += len(data.encode()) if response.get("opcode") == 1 else len(base64.b64decode(data))

    cdp.on("Network.requestWillBeSent", requested)
    cdp.on("Network.responseReceived", responded)
    cdp.on("Network.loadingFinished", finished)
    cdp.on("Network.loadingFailed", failed)
    cdp.on("Network.webSocketFrameReceived", frame)
    cdp.on("Network.webSocketFrameSent", frame)

    def end_visit() -> Visit:
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < 1.0:  # the page asks for nothing more for a second
            if state["pending"]:
                quiet_since = time.monotonic()
            page.wait_for_timeout(50)
        visit, state["visit"] = state["visit"], Visit()
        return visit

    yield end_visit
    cdp.detach()


def visit(browser_page, url: str, ready: str, end_visit: Callable[[], Visit]) -> Visit:
    """Open ``url`` and wait until the page is usable and its requests are done."""
    browser_page.goto(url)
    if ready == "readout":
        browser_page.get_by_role("status").filter(has_text="t = ").first.wait_for(timeout=120_000)
    else:
        browser_page.get_by_role("heading").first.wait_for(timeout=120_000)
    return end_visit()


def measure(browser, server: Server, first: str, second: str) -> dict[str, Visit]:
    """The three visits (first, repeat, second student) to one way of serving."""
    results = {}
    for visits in ([("first", first), ("repeat", second)], [("student 2", first)]):  # two fresh browsers
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        with recorder(context, page) as end_visit:
            for label, slug in visits:
                results[label] = visit(
                    page, server.base_url + server.lesson_path.format(slug=slug), server.ready, end_visit
                )
        context.close()
    return results


def kb(value: int) -> str:
    """Bytes as kB (1000 bytes), one decimal."""
    return f"{value / 1000:,.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", default="overlap", help="the lesson of the first visit")
    parser.add_argument("--second", default="buckets", help="the lesson of the repeat visit")
    parser.add_argument(
        "--only", default="app,panel,container,cluster,bare", help="comma-separated: app,panel,container,cluster,bare"
    )
    parser.add_argument("--verbose", action="store_true", help="list every response of every visit")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    rows: list[tuple[str, dict[str, Visit]]] = []
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            for name in args.only.split(","):
                server = start(name.strip())
                try:
                    rows.append((server.name, measure(browser, server, args.first, args.second)))
                finally:
                    server.stop()
        finally:
            browser.close()

    print(
        f"Bytes on the wire (encoded, headers included), lesson '{args.first}' then '{args.second}'; "
        f"budgets: first visit <= {kb(FIRST_BUDGET)} kB, repeat < {kb(REPEAT_BUDGET)} kB."
    )
    header = (
        f"{'way of serving':32s} {'first kB':>9s} {'resp':>4s} {'gzip%':>5s} {'MathJax':>7s} {'ws kB':>6s}"
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
            f" {kb(first.ws_bytes):>6s} {kb(repeat.bytes):>9s} {repeat.responses:>4d} {repeat.from_cache:>6d}"
            f"  {kb(other.bytes):>12s} {other.nginx_hits:>9d}  {verdict}"
        )
    print(
        "first: cold server, cold browser; repeat: the second lesson, same browser; student 2: the first lesson"
        " in a fresh browser, server (and nginx cache) warm. resp: responses; cached: taken from the browser's"
        " cache; ws kB: websocket payload of the first visit, not in the other figures."
    )
    if args.verbose:
        for name, visits in rows:
            for label, result in visits.items():
                print(f"\n{name}, {label}:")
                for size, url in sorted(result.urls, reverse=True):
                    print(f"  {size:>9,d}  {url[:120]}")


if __name__ == "__main__":
    main()
