"""Attack a running course as an anonymous client would, and print what held, with memory and a second client's latency.

Each probe of :mod:`bench.lib.attack_probes` and :mod:`bench.lib.attack_traces` (the security review
v6's findings: a URL that imports a module, a forged session token, missing headers, a vote flood,
extreme votes, a session flood, a trace claiming two million ranks, six expansion bombs while a
student votes, forged upload chunks, Bearer guesses) runs against ``python -m app`` with a SQLite
class database, started here on a free loopback port. While a probe runs, a second client asks
``/healthz`` every 0.2 s: its slowest and median answer say how much the attack cost everyone else,
and the server's resident memory is sampled at the same time. A probe that ends the server is
reported, and the server is started again for the next one.

With ``--before DIR`` the same probes run against another checkout (a worktree of an earlier commit)
first, and both columns are printed side by side.

Usage::

    .venv/bin/python -m bench.attack [--before /path/to/other/checkout] [--only "vote flood,components"]
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.lib import procfs
from bench.lib.attack_probes import HTTP_PROBES, Target, Verdict
from bench.lib.attack_traces import BROWSER_PROBES
from bench.lib.raw_session import http_client
from bench.lib.servers import AppServer

PROBES = {**HTTP_PROBES, **BROWSER_PROBES}
PROBES["bearer guesses"] = PROBES.pop("bearer guesses")  # last: a throttle on this client's address may hold a while


FLOOD_CAP = 100
"""The server's ``MAX_SESSIONS`` here: a lecture hall's worth, below the session flood's 150."""


@dataclass
class Watch:
    """A second client's ``/healthz`` latencies and the server's memory while a probe runs."""

    latencies_ms: list[float] = field(default_factory=list)
    failures: int = 0
    rss_mb: list[float] = field(default_factory=list)

    def summary(self) -> str:
        """The second client's median and slowest answer, and how many failed."""
        if not self.latencies_ms:
            return f"no answer ({self.failures} failed)"
        slowest = max(self.latencies_ms)
        median = statistics.median(self.latencies_ms)
        failed = f", {self.failures} failed" if self.failures else ""
        return f"healthz p50 {median:.0f} ms, max {slowest:.0f} ms{failed}"


async def watch(server: AppServer, client, into: Watch, stop: asyncio.Event) -> None:
    """Ask ``/healthz`` every 0.2 s and sample the server's memory until ``stop`` is set."""
    while not stop.is_set():
        started = time.perf_counter()
        try:
            reply = await client.fetch(f"{server.base_url}/healthz", raise_error=False, request_timeout=120)
            if reply.code in (200, 503):
                into.latencies_ms.append((time.perf_counter() - started) * 1000)
            else:
                into.failures += 1
        except Exception:  # noqa: BLE001 - a refused or dropped connection (the server ended): counted, not fatal
            into.failures += 1
        try:
            into.rss_mb.append(procfs.rss_mb(server.pid))
        except (OSError, ValueError, LookupError):  # the process is gone
            pass
        try:
            await asyncio.wait_for(stop.wait(), 0.2)
        except TimeoutError:
            pass


def start_server(cwd: Path | None, directory: Path, token: str) -> tuple[AppServer, Path]:
    """``python -m app`` with a fresh SQLite class database in ``directory``."""
    database = directory / f"class-{secrets.token_hex(4)}.db"
    server = AppServer(
        extra_args=["--class-db", f"sqlite:///{database}"],
        # a cap below the session flood's 150 (older checkouts ignore it), so the flood meets it
        env={"INSTRUCTOR_TOKEN": token, "MAX_SESSIONS": str(FLOOD_CAP)},
        ready_path="/healthz",
        start_timeout=120,
        cwd=cwd,
    )
    return server, database


async def run_all(cwd: Path | None, names: list[str]) -> dict[str, tuple[Verdict, Watch, float, float]]:
    """Run the probes named against a server of the checkout ``cwd`` (this one when None)."""
    token = secrets.token_urlsafe(24)
    results: dict[str, tuple[Verdict, Watch, float, float]] = {}
    with tempfile.TemporaryDirectory(prefix="overlap-attack-") as folder:
        server, database = start_server(cwd, Path(folder), token)
        try:
            for name in names:
                if server.process.poll() is not None:  # the last probe ended it: a new one for this probe
                    server.stop()
                    server, database = start_server(cwd, Path(folder), token)
                alive = lambda s=server: s.process.poll() is None  # noqa: E731
                target = Target(server.base_url, token, database, alive, server.pid, Path(folder))
                client, watcher = http_client(200), http_client(2)
                seen, stop = Watch(), asyncio.Event()
                before = procfs.rss_mb(server.pid)  # the server runs: a probe that ended it was followed by a new one
                watching = asyncio.ensure_future(watch(server, watcher, seen, stop))
                try:
                    verdict = await PROBES[name](target, client)
                except Exception as error:  # noqa: BLE001 - a probe that breaks says so and the rest go on
                    verdict = Verdict(False, f"probe failed: {type(error).__name__}: {error}"[:200])
                stop.set()
                await watching
                peak = max(seen.rss_mb, default=before)
                results[name] = (verdict, seen, before, peak)
                client.close()
                watcher.close()
        finally:
            server.stop()
    return results


def row(result: tuple[Verdict, Watch, float, float]) -> str:
    """One probe's line: held or not, what it saw, the second client's latency, the server's memory."""
    verdict, seen, before, peak = result
    word = "held" if verdict.held else "FAILED"
    return f"{word}: {verdict.detail} | {seen.summary()} | RSS {before:.0f} -> peak {peak:.0f} MB"


def main() -> None:
    """Parse the command line, run the probes, print a line per probe (and per checkout)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="another checkout to attack first, e.g. a worktree of main")
    parser.add_argument("--only", default="", help="probe names separated by commas (default: all)")
    args = parser.parse_args()
    names = [name.strip() for name in args.only.split(",") if name.strip()] or list(PROBES)
    unknown = [name for name in names if name not in PROBES]
    if unknown:
        parser.error(f"no probe named {', '.join(unknown)}; the probes: {', '.join(PROBES)}")
    checkouts = ([("before", args.before.resolve())] if args.before else []) + [("this", None)]
    everything = {label: asyncio.run(run_all(cwd, names)) for label, cwd in checkouts}
    for name in names:
        print(f"{name}:")
        for label, _ in checkouts:
            print(f"  {label:>6}  {row(everything[label][name])}")
    held = sum(everything["this"][name][0].held for name in names)
    print(f"this checkout: {held} of {len(names)} probes held")


if __name__ == "__main__":
    main()
