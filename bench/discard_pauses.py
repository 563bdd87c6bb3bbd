"""The server's longest pauses while students leave and others stay: garbage collection of discarded sessions.

A lecture hall does not leave at once: students close tabs while the rest keep working. Each
discarded session leaves its objects in reference cycles that only a garbage collection frees, and a
full collection walks every session still open. This bench starts a server with the event-loop task
timer on (``OVERLAP_TASK_TIMER=1``), opens ``--stay`` lesson sessions and keeps them open, then, with
the timer reset, opens and closes ``--leave`` more in batches of ``--batch`` (each batch closed, then
discarded by the server, ``--unused-session-lifetime 2 --check-unused-sessions 1``), waits until the
discards are collected, and reads ``/healthz``: the longest garbage-collector pause, the longest
event-loop task, the collector's counts.

It runs the same for this checkout (``app.upstream.collector`` with ``app.upstream.session_sweep``), for this
checkout with Panel's own collection (``OVERLAP_GC=panel``) and, with ``--before DIR``, for another
checkout, one after the other on the same machine, and prints them side by side. The budget
(issue 20): the longest pause under 100 ms with 150 sessions open.

Usage: ``.venv/bin/python -m bench.discard_pauses [--stay 150] [--leave 150] [--batch 50] [--before DIR]``
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from bench.lib.app_health import get_json
from bench.lib.servers import AppServer
from bench.lib.session_batches import close_batch, open_batch

BUDGET_PAUSE_MS = 100.0
SERVER_ARGS = ["--unused-session-lifetime", "2", "--check-unused-sessions", "1"]


async def leave_while_others_stay(server: AppServer, args: argparse.Namespace) -> dict[str, object]:
    """Open the sessions that stay, then open and close the others in batches; the server's figures."""
    health = f"{server.base_url}/healthz"
    staying = await open_batch(server.base_url, args.stay, args.concurrency, args.timeout)
    held_before = get_json(f"{health}?reset=1")["held"]
    gc_before = get_json(f"{health}?frozen=1").get("gc") or {}
    frozen_before = gc_before.get("frozen_objects")
    cpu_before = server.cpu_seconds()
    errors = list(staying.errors)
    for start in range(0, args.leave, args.batch):
        batch = await open_batch(server.base_url, min(args.batch, args.leave - start), args.concurrency, args.timeout)
        errors += batch.errors
        await close_batch(batch)
        await settle(health, held_before, args.settle)
    report = get_json(f"{health}?frozen=1")
    frozen_after = (report.get("gc") or {}).get("frozen_objects")
    if frozen_before is not None and frozen_after is not None and _gc(report, "thaws") == gc_before.get("thaws"):
        report["frozen_per_leaver"] = round((frozen_after - frozen_before) / max(1, args.leave))
    report["cpu_s"] = server.cpu_seconds() - cpu_before
    report["errors"] = len(errors)
    report["staying"] = len(staying.sessions)
    await close_batch(staying)
    return report


async def settle(health: str, held_before: int, timeout: float) -> None:
    """Wait until the server holds no more sessions than before the batch, and then the collection after them."""
    deadline = time.monotonic() + timeout
    quiet_since = None
    while time.monotonic() < deadline:
        if get_json(health)["held"] <= held_before:
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since > 10:  # Panel's collection waits 5 s after the last discard
                return
        else:
            quiet_since = None
        await asyncio.sleep(1)


def one_run(label: str, args: argparse.Namespace, env: dict[str, str], cwd: Path | None) -> dict[str, object]:
    """One server, start to stop."""
    with AppServer(
        extra_args=SERVER_ARGS, env={"OVERLAP_TASK_TIMER": "1", **env}, ready_path="/healthz", cwd=cwd
    ) as server:
        report = asyncio.run(leave_while_others_stay(server, args))
    report["label"] = label
    return report


def main() -> None:
    """Run each server in turn and print the figures side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stay", type=int, default=150, help="sessions kept open throughout (default 150)")
    parser.add_argument("--leave", type=int, default=150, help="sessions opened and closed meanwhile (default 150)")
    parser.add_argument("--batch", type=int, default=50, help="how many leave together (default 50)")
    parser.add_argument("--concurrency", type=int, default=4, help="sessions opening at once (default 4)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds for each step of opening one session")
    parser.add_argument("--settle", type=float, default=90.0, help="seconds to wait for the discards of a batch")
    parser.add_argument("--before", type=Path, help="also run another checkout (git worktree add /tmp/before <commit>)")
    parser.add_argument("--no-panel", action="store_true", help="skip the run with Panel's own collection")
    args = parser.parse_args()

    runs = [("this checkout", {}, None)]
    if not args.no_panel:
        runs.append(("OVERLAP_GC=panel", {"OVERLAP_GC": "panel"}, None))
    if args.before:
        runs.append((f"before ({args.before})", {}, args.before))
    print(f"{args.stay} sessions stay open; {args.leave} more open and close in batches of {args.batch}")
    reports = [one_run(label, args, env, cwd) for label, env, cwd in runs]
    print(f"{'':32}" + "".join(f"{r['label']:>26}" for r in reports))
    rows = [
        ("longest GC pause (ms)", lambda r: r.get("longest_gc_ms")),
        ("GC pauses in all (ms)", lambda r: r.get("gc_total_ms")),
        ("longest event-loop task (ms)", lambda r: r.get("longest_task_ms")),
        ("  that task", lambda r: r.get("longest_task")),
        ("server CPU while leaving (s)", lambda r: round(r["cpu_s"], 1)),
        ("sessions swept / given up", lambda r: f"{_gc(r, 'swept')} / {_gc(r, 'sweeps_given_up')}"),
        ("longest sweep (ms)", lambda r: _gc(r, "longest_sweep_ms")),
        ("objects walked per sweep", _walked_per_sweep),
        ("objects swept / survivors", lambda r: f"{_gc(r, 'objects_swept')} / {_gc(r, 'survivors')}"),
        ("thaws", lambda r: _gc(r, "thaws")),
        ("objects held per leaver", lambda r: r.get("frozen_per_leaver", "- (a thaw ran)")),
        ("errors", lambda r: r["errors"]),
    ]
    for name, read in rows:
        print(f"{name:32}" + "".join(f"{str(read(r))[:25]:>26}" for r in reports))
    for r in reports:
        pause = r.get("longest_gc_ms") or 0
        sweep = _gc(r, "longest_sweep_ms")
        sweep = sweep if isinstance(sweep, (int, float)) else 0
        verdict = "PASS" if max(pause, sweep) < BUDGET_PAUSE_MS and r["staying"] == args.stay else "FAIL"
        print(
            f"budget (longest GC pause and longest sweep < {BUDGET_PAUSE_MS:.0f} ms, {args.stay} open), "
            f"{r['label']}: {verdict} ({pause} ms, {sweep} ms)"
        )


def _walked_per_sweep(report: dict) -> object:
    swept, walked = _gc(report, "swept"), _gc(report, "objects_walked")
    return round(walked / swept) if isinstance(swept, int) and swept and isinstance(walked, int) else "-"


def _gc(report: dict, name: str) -> object:
    return (report.get("gc") or {}).get(name, "-")


if __name__ == "__main__":
    main()
