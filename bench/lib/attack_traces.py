"""The trace page's probes for ``python -m bench.attack``: hostile files and a forged upload, dropped from Chromium.

Each runs Playwright's sync API in a worker thread (``asyncio.to_thread``), so the bench's event loop
goes on timing the second client and, for the bombs, storing a vote in the meantime.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import time
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from bench.lib.attack_probes import Target, Verdict, lesson_session, stored_votes
from tests.chromium import launch

SAMPLE = Path(__file__).resolve().parents[2] / "content" / "traces"
"""The course's sample trace: two ranks of a gloo run, the base of every hostile file here."""

TEXT_TIMEOUT_MS = 120_000
"""How long a probe waits for the page to say something about a dropped file."""

FORGE_CHUNKS = """
async ([chunks, size]) => {
  const upload = window.__overlapUpload;
  if (!upload) return "no upload event captured";
  for (let k = 0; k < chunks; k++) {
    upload.origin.trigger_event(new upload.kind({chunk: k, data: new ArrayBuffer(size), name: "forged.json",
                                                 total_chunks: 1e9, type: "application/json"}));
    await new Promise((done) => setTimeout(done, 50));
  }
  return "sent";
}
"""
"""The review's forged upload (H4): chunks of ``size`` bytes for a file that claims a billion chunks."""

CAPTURE_UPLOAD = """
() => {
  const manager = Bokeh.documents[0].event_manager;
  const send = manager.send_event.bind(manager);
  manager.send_event = (event) => {
    if (event.event_name === "upload_event" && !window.__overlapUpload)
      window.__overlapUpload = {kind: event.constructor, origin: event.origin};
    return send(event);
  };
}
"""
"""Keep the page's own upload event class and the dropper's model, as the review did."""


def hostile_world_size(folder: Path, world_size: int = 2_000_000) -> list[Path]:
    """The review's H1 pair: rank 0 claiming ``world_size`` ranks, rank 1 saying no rank at all."""
    rank0 = json.loads(gzip.decompress((SAMPLE / "gloo_late_rank0.json.gz").read_bytes()))
    rank0.setdefault("distributedInfo", {})["world_size"] = world_size
    rank1 = json.loads(gzip.decompress((SAMPLE / "gloo_late_rank1.json.gz").read_bytes()))
    rank1.pop("distributedInfo", None)
    paths = [folder / f"ws{world_size}_rank0.json", folder / "norank.json"]
    paths[0].write_text(json.dumps(rank0))
    paths[1].write_text(json.dumps(rank1))
    return paths


def expansion_bomb(folder: Path, copies: int = 6, mib: int = 1000) -> list[Path]:
    """The review's H2 file: a gzip of ``{"traceEvents":[`` and ``mib`` MiB of spaces (about 1 MB), ``copies`` names."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    blank = b" " * (1 << 20)
    body = [packer.compress(b'{"traceEvents":[')]
    body += [packer.compress(blank) for _ in range(mib)]
    body.append(packer.flush())
    data = b"".join(body)
    paths = [folder / f"bomb{index}.json.gz" for index in range(copies)]
    for path in paths:
        path.write_bytes(data)
    return paths


@contextmanager
def trace_page(url: str, before_drop: str = "", paths: Sequence[Path] = ()) -> Iterator[object]:
    """A Chromium page on ``url``/trace with ``before_drop`` run and ``paths`` dropped; the browser closed after."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            page = browser.new_page()
            page.goto(f"{url}/trace")
            group = page.get_by_role("group", name="Trace file")
            group.wait_for()
            if before_drop:
                page.evaluate(before_drop)
            group.locator("input[type=file]").set_input_files([str(path) for path in paths])
            yield page
        finally:
            browser.close()


def _drop_and_read(url: str, paths: list[Path], wanted: str) -> str:
    """Open /trace, drop ``paths``, and return the alert saying ``wanted`` once it shows (or that none did)."""
    from playwright.sync_api import Error as PlaywrightError

    with trace_page(url, paths=paths) as page:
        # The page's alerts are inside Bokeh's shadow roots: a role locator reaches them, body text does not.
        said = page.get_by_role("region", name="Trace").get_by_role("alert").filter(has_text=wanted)
        deadline = time.monotonic() + TEXT_TIMEOUT_MS / 1000
        while time.monotonic() < deadline:
            try:
                if said.count():
                    return said.first.inner_text(timeout=5000)
            except PlaywrightError:  # the page itself busy (a huge list drawn): ask again
                continue
            page.wait_for_timeout(250)
        return "(no alert saying so)"


async def world_size(target: Target, client: object) -> Verdict:
    """H1: a file claiming two million ranks is refused with a line, the process answering throughout."""
    paths = hostile_world_size(target.folder)
    shown = await asyncio.to_thread(_drop_and_read, target.base_url, paths, "world_size 2000000")
    refused = "world_size 2000000" in shown and target.alive()
    line = next((line for line in shown.splitlines() if "world_size" in line), shown[:120])
    return Verdict(refused, f"page says: {line.strip()[:140]}")


async def bombs_and_a_vote(target: Target, client: object) -> Verdict:
    """H2: six expansion bombs dropped; a student's lock meanwhile must be stored without waiting for them."""
    paths = expansion_bomb(target.folder)
    dropping = asyncio.ensure_future(asyncio.to_thread(_drop_and_read, target.base_url, paths, "white space"))
    await asyncio.sleep(8)  # the review locked 8 s after the drop
    before = stored_votes(target)
    session, ids, _store = await lesson_session(target, client)
    locked = time.perf_counter()
    await session.send_msg(ids.text, {"card": ids.card, "action": "lock", "text": "1"})
    stored_after = None
    while time.perf_counter() - locked < 180:
        if stored_votes(target) > before:
            stored_after = time.perf_counter() - locked
            break
        await asyncio.sleep(0.05)
    await session.close()
    shown = await dropping
    refused = "white space" in shown
    vote = f"vote stored {stored_after:.2f} s after Lock" if stored_after is not None else "vote NOT stored in 180 s"
    return Verdict(stored_after is not None and refused, f"{vote}; bombs {'refused' if refused else 'NOT refused'}")


async def forged_chunks(target: Target, client: object, chunks: int = 30) -> Verdict:
    """H4: 30 forged 10 MB chunks of a file claiming a billion chunks; the server's memory must stay flat."""
    tiny = target.folder / "tiny.json"
    tiny.write_text('{"traceEvents": []}')
    from bench.lib import procfs

    before = procfs.rss_mb(target.pid)

    def forge() -> str:
        with trace_page(target.base_url, CAPTURE_UPLOAD, [tiny]) as page:
            page.wait_for_function("() => !!window.__overlapUpload", timeout=TEXT_TIMEOUT_MS)
            said = page.evaluate(FORGE_CHUNKS, [chunks, 10_000_000])
            page.wait_for_timeout(3000)  # the last chunks reach the server
            return said

    said = await asyncio.to_thread(forge)
    try:
        grew = procfs.rss_mb(target.pid) - before
    except LookupError:  # the server ended
        return Verdict(False, f"{chunks} forged 10 MB chunks: the server ENDED ({said})")
    return Verdict(said == "sent" and grew < 100, f"{chunks} forged 10 MB chunks: RSS +{grew:.0f} MB ({said})")


BROWSER_PROBES = {
    "trace world size": world_size,
    "trace bombs and a vote": bombs_and_a_vote,
    "forged upload chunks": forged_chunks,
}
"""The probes that need Chromium, in the order run."""
