"""Server memory per open lesson session, and whether it returns to baseline once sessions close.

Starts the app (``python -m app``) on a free loopback port and reads the server's resident memory
(``VmRSS`` in ``/proc/<pid>/status``) at these points:

1. baseline: after one warm-up session was opened, closed and discarded by the server (Bokeh's
   ``Document.destroy`` runs ``gc.collect()`` when it discards a session);
2. with ``--sessions`` (K) sessions of ``/lesson?id=overlap&exercise=growth`` open, websockets kept
   open: (RSS − baseline) / K is the memory per open session;
3. after closing them and waiting ``--linger`` seconds;
4. after more open/close batches of K, up to ``--total`` sessions or until ``--time-budget`` runs
   short, and another ``--linger`` wait.

CPython seldom gives freed memory back to the operating system, so even a server that frees every
closed session keeps roughly its peak RSS; the budget (design.md) is therefore "no growth after the
first batch": the RSS after the last batch closed within 5% of the RSS after the first one closed.

Sessions are opened with the raw protocol client in ``bench/lib/raw_session.py`` (page request,
websocket, ``PULL-DOC``, and what bokehjs sends once the page has rendered), ``--concurrency`` at a
time.

A closed session is not freed at once: the Bokeh server discards a session once it has had no
connection for ``unused_session_lifetime`` (15 s by default), checking every
``check_unused_sessions``, so a closed session lingers for up to their sum. ``python -m app`` takes
both as ``--unused-session-lifetime`` and ``--check-unused-sessions`` (15 s and 10 s by default;
``--app-args`` passes others), and this script waits ``--linger`` (40 s) for the discards.

Usage: ``.venv/bin/python -m bench.session_memory [--sessions 50] [--total 1000] [--time-budget 280]``
"""

from __future__ import annotations

import argparse
import asyncio
import time

from bench.lib.servers import AppServer
from bench.lib.session_batches import close_batch, open_batch, settle, trace
from bench.lib.student import LESSON_PATH

BUDGET_MB_PER_SESSION = 3.0  # design.md
BUDGET_GROWTH = 0.05  # no growth after the first batch: within 5% of the RSS after it was closed


async def measure(args: argparse.Namespace) -> None:
    """Run the whole measurement against a fresh server and print the figures."""
    started = time.perf_counter()
    errors: list[str] = []
    with AppServer(extra_args=args.app_args.split()) as server:
        url = server.base_url
        print(f"session memory: {LESSON_PATH}, server pid {server.pid}, RSS at start {server.rss_mb():.1f} MB")

        warm = await open_batch(url, 1, 1, args.timeout)
        errors += warm.errors
        await close_batch(warm)
        samples = await settle(server, args.linger)
        baseline = samples[-1][1]
        print(
            f"baseline (1 warm-up session opened, closed, {args.linger:.0f} s for the server to discard it): "
            f"{baseline:.1f} MB   [{trace(samples)}]"
        )

        cpu_before = server.cpu_seconds()
        first = await open_batch(url, args.sessions, args.concurrency, args.timeout)
        cpu_per_open = (server.cpu_seconds() - cpu_before) / max(1, args.sessions)
        errors += first.errors
        await asyncio.sleep(2)  # let the onload work of the last sessions finish
        loaded = server.rss_mb()
        count = len(first.sessions)
        per_session = (loaded - baseline) / max(1, count)
        verdict = "PASS" if per_session <= BUDGET_MB_PER_SESSION and count == args.sessions else "FAIL"
        print(
            f"{count} sessions open ({len(first.errors)} failed; {first.seconds:.1f} s to open, "
            f"server CPU {1000 * cpu_per_open:.0f} ms per session opened): {loaded:.1f} MB "
            f"-> {per_session:.2f} MB per open session"
        )
        print(f"budget: ≤ {BUDGET_MB_PER_SESSION:.0f} MB per open session: {verdict} ({per_session:.2f} MB)")
        await close_batch(first)
        samples = await settle(server, args.linger)
        after_first = samples[-1][1]
        print(
            f"after closing them, {args.linger:.0f} s later: {after_first:.1f} MB "
            f"({after_first - baseline:+.1f} MB, {100 * (after_first / baseline - 1):+.1f}% vs baseline)"
            f"   [{trace(samples)}]"
        )

        total = 1 + count
        peak = loaded
        batches = 1
        slowest = first.seconds
        while total - 1 < args.total:
            left = args.time_budget - (time.perf_counter() - started)
            if left < slowest * 1.2 + args.linger * (2 if args.settle_between else 1) + 5:
                break
            size = min(args.sessions, args.total - (total - 1))
            batch = await open_batch(url, size, args.concurrency, args.timeout)
            errors += batch.errors
            peak = max(peak, server.rss_mb())
            await close_batch(batch)
            if args.settle_between:  # each batch alone: a higher peak would read as growth (CPython keeps it)
                await settle(server, args.linger)
            total += len(batch.sessions)
            batches += 1
            slowest = max(slowest, batch.seconds)
        samples = await settle(server, args.linger)
        final = samples[-1][1]
        change = final / baseline - 1
        reached = total - 1 >= args.total
        growth_share = final / after_first - 1
        if growth_share <= BUDGET_GROWTH:
            verdict = "PASS" if reached else f"not reached: flat after only {total - 1} of {args.total} sessions"
        else:
            verdict = "FAIL"
        print(
            f"open/close cycles: {total - 1} sessions opened and closed after the warm-up, in {batches} batches "
            f"of ≤ {args.sessions} (target {args.total}"
            f"{'' if reached else f'; stopped by --time-budget {args.time_budget:.0f} s'}); peak RSS {peak:.1f} MB"
        )
        print(
            f"final, {args.linger:.0f} s after the last close: {final:.1f} MB ({final - baseline:+.1f} MB, "
            f"{100 * change:+.1f}% vs baseline)   [{trace(samples)}]"
        )
        if total > 1 + count:
            growth = (final - after_first) / max(1, total - 1 - count)
            extra = f"; about {growth * (args.total - (total - 1)):+.0f} MB more by {args.total} at that rate"
            print(
                f"  growth since the first batch was closed: {1024 * growth:+.1f} KB per session opened and closed "
                f"(flat if closed sessions are freed){'' if reached else extra}"
            )
        print(
            f"budget: no growth after the first batch (≤ {100 * BUDGET_GROWTH:.0f}% above the RSS once it was "
            f"closed) over {args.total} sessions opened and closed: {verdict} ({100 * growth_share:+.1f}%); "
            f"CPython keeps freed memory, so the RSS does not return to the baseline ({100 * change:+.1f}%)"
        )
        print(f"errors: {len(errors)}")
        for error in errors[:10]:
            print(f"  {error}")
        problems = server.problems()
        print(f"server log: {len(problems)} traceback/error/warning lines")
        for line in problems[:10]:
            print(f"  {line[:300]}")
    print(f"total run time: {time.perf_counter() - started:.1f} s")


def main() -> None:
    """Parse arguments and run :func:`measure`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=50, help="sessions open at once (K, default 50)")
    parser.add_argument("--total", type=int, default=1000, help="sessions to open and close in all (default 1000)")
    parser.add_argument("--concurrency", type=int, default=4, help="sessions opening at once (default 4)")
    parser.add_argument(
        "--linger",
        type=float,
        default=40.0,
        help="seconds to wait after closing for the server to discard sessions (default 40)",
    )
    parser.add_argument(
        "--time-budget",
        type=float,
        default=280.0,
        help="stop the open/close cycles so that the run ends within this many seconds (default 280)",
    )
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds allowed for each page-open step")
    parser.add_argument(
        "--no-settle-between",
        dest="settle_between",
        action="store_false",
        help="open the next batch at once instead of waiting --linger for the server to discard the last one",
    )
    parser.add_argument(
        "--app-args",
        default="--unused-session-lifetime 15 --check-unused-sessions 10",
        help="arguments for python -m app (the session lifetime flags decide how fast closed sessions go)",
    )
    args = parser.parse_args()
    if not 1 <= args.sessions <= 500 or not 1 <= args.concurrency <= 64 or args.total < args.sessions:
        parser.error("need 1 ≤ --sessions ≤ 500, 1 ≤ --concurrency ≤ 64 and --total ≥ --sessions")
    asyncio.run(measure(args))


if __name__ == "__main__":
    main()
