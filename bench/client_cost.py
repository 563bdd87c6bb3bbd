"""Client CPU per session: Bokeh's own ``bokeh.client.pull_session`` against the bench's raw client.

The class bench (bench/class_load.py) plays up to 300 students from one Python process, so what
one simulated session costs that process decides whether the client or the server is measured.
This bench opens the same lesson session (``/lesson?id=overlap&exercise=growth``) ``--sessions``
times with each client in turn, one at a time, against one ``python -m app``, and prints the CPU
this process spent per session (``time.process_time``: every thread of the process, so
bokeh.client's own event-loop thread counts), the wall time per session, and the server's CPU per
session (from ``/proc``), side by side.

- **bokeh.client**: ``pull_session(url, arguments=...)`` (websocket, ``PULL-DOC-REQ``, and a full
  Python ``Document`` built from the reply), then ``close()``. It sends no ``document_ready``, so
  the server never adds the lab (the page's second piece): it does less than a browser.
- **raw** (bench/lib/raw_session.py ``RawSession``, its frames through ``bokeh.protocol``): the
  page request, the websocket, ``PULL-DOC``, the models indexed by id, ``document_ready`` and the
  server's ``OK``, then the lab's ``PATCH-DOC`` once it comes (what a browser receives), then close.

Usage: ``.venv/bin/python -m bench.client_cost [--sessions 20]``
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable
from urllib.parse import parse_qsl, urlsplit

from bench.lib.events import any_patch
from bench.lib.raw_session import RawSession, http_client
from bench.lib.servers import AppServer
from bench.lib.student import LESSON_PATH


def import_page_models() -> None:
    """Import what defines the page's Bokeh models, so that bokeh.client can build them here."""
    import panel.models  # noqa: F401 (registers Panel's Bokeh models)

    import app.site.pages.lesson  # noqa: F401 (the lesson page's own components and the labs')


def bokeh_client_session(base_url: str) -> None:
    """One session through ``bokeh.client``: pull the document, then close."""
    from bokeh.client import pull_session

    import_page_models()
    path = urlsplit(LESSON_PATH)
    session = pull_session(url=f"{base_url}{path.path}", arguments=dict(parse_qsl(path.query)))
    assert session.document.roots, "bokeh.client pulled an empty document"
    session.close()


async def raw_sessions(base_url: str, count: int) -> list[tuple[float, float]]:
    """``count`` raw sessions one after another; (client CPU s, wall s) for each."""
    client = http_client(4)
    results = []
    for _ in range(count):
        cpu, wall = time.process_time(), time.perf_counter()
        session = RawSession(base_url, LESSON_PATH, client)
        await session.open()
        if not session.patches:  # the lab, added once the server hears document_ready
            await asyncio.wait_for(session.expect(any_patch), 30)
        await session.close()
        results.append((time.process_time() - cpu, time.perf_counter() - wall))
    return results


def timed(count: int, one: Callable[[], object]) -> list[tuple[float, float]]:
    """(client CPU s, wall s) of ``count`` calls of ``one()``."""
    results = []
    for _ in range(count):
        cpu, wall = time.process_time(), time.perf_counter()
        one()
        results.append((time.process_time() - cpu, time.perf_counter() - wall))
    return results


def main() -> None:
    """Run both clients side by side and print their client CPU per session."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=20, help="sessions per client (default 20)")
    args = parser.parse_args()
    rows = []
    with AppServer(ready_path="/healthz") as server:
        bokeh_client_session(server.base_url)  # warm both paths (imports, the server's caches)
        asyncio.run(raw_sessions(server.base_url, 1))
        for name, run in (
            ("bokeh.client pull_session", lambda: timed(args.sessions, lambda: bokeh_client_session(server.base_url))),
            (
                "raw client (bench/lib/raw_session.py)",
                lambda: asyncio.run(raw_sessions(server.base_url, args.sessions)),
            ),
        ):
            before = server.cpu_seconds()
            results = run()
            server_cpu = (server.cpu_seconds() - before) / args.sessions
            rows.append((name, [r[0] for r in results], [r[1] for r in results], server_cpu))
    print(f"Client cost per session, /lesson{LESSON_PATH.removeprefix('/lesson')}, {args.sessions} sessions each")
    print("| client | client CPU per session (median / max) | wall per session (median) | server CPU per session |")
    print("|---|---|---|---|")
    for name, cpu, wall, server_cpu in rows:
        print(
            f"| {name} | {1e3 * statistics.median(cpu):.0f} / {1e3 * max(cpu):.0f} ms | "
            f"{1e3 * statistics.median(wall):.0f} ms | {1e3 * server_cpu:.0f} ms |"
        )
    ratio = statistics.median(rows[0][1]) / statistics.median(rows[1][1])
    print(f"bokeh.client costs {ratio:.1f}× the raw client's CPU per session, doing less (no lab).")


if __name__ == "__main__":
    main()
