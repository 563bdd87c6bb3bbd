"""The probes of ``python -m bench.attack``: each tries one thing the security review v6 did, as an anonymous client.

Every probe is a coroutine ``probe(target) -> Verdict``. It acts on the server only through HTTP and
the Bokeh websocket, as a browser or a script could, and reads the class database directly (SQLite)
to count what was stored. Whether a probe *held* is decided from what the server did (a status
code, a vote count, a refused connection), never from a time.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import sqlite3
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from bokeh.util.token import generate_jwt_token, get_session_id, get_token_payload
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
from tornado.websocket import websocket_connect

from bench.lib.protocol import ProtocolFailure
from bench.lib.raw_session import STORE, TOKEN, RawSession
from bench.lib.student import LESSON_PATH, LessonIds, usable

HOSTILE_COMPONENTS = ["venv.__main__", "app.__main__", "this", "antigravity"]
"""Modules whose import ends a process or runs code (review C1)."""


@dataclass
class Target:
    """The server under attack."""

    base_url: str
    token: str
    """The instructor's token (for reading, never guessed)."""
    class_db: Path | None
    """The SQLite file the class's votes go to, to count them."""
    alive: object
    """A no-argument callable: whether the server process still runs."""
    pid: int
    """The server's process id (for its memory)."""
    folder: Path
    """Where a probe may write the files it drops."""


@dataclass
class Verdict:
    """What one probe found."""

    held: bool
    detail: str


async def status_of(client: AsyncHTTPClient, url: str, **kwargs: object) -> int:
    """The HTTP status of ``GET url`` (599 when nothing answered)."""
    try:
        reply = await client.fetch(url, raise_error=False, request_timeout=60, follow_redirects=False, **kwargs)
    except (HTTPClientError, OSError):
        return 599
    return reply.code


def stored_votes(target: Target) -> int:
    """How many votes the class database holds (0 without one)."""
    if target.class_db is None or not target.class_db.exists():
        return 0
    with sqlite3.connect(target.class_db) as connection:
        try:
            return connection.execute("SELECT COUNT(*) FROM votes").fetchone()[0]
        except sqlite3.OperationalError:  # no table yet
            return 0


async def components(target: Target, client: AsyncHTTPClient) -> Verdict:
    """C1: ``/components/<module>/...`` must not import ``<module>``; the server must outlive it."""
    codes = [await status_of(client, f"{target.base_url}/components/{name}/x/_css/a") for name in HOSTILE_COMPONENTS]
    await asyncio.sleep(1.0)  # an import that ends the process takes a moment to do it
    alive = target.alive()
    health = await status_of(client, f"{target.base_url}/healthz") if alive else 599
    return Verdict(alive and health == 200, f"answers {codes}; server {'alive' if alive else 'ENDED'}")


async def forged_token(target: Target, client: AsyncHTTPClient) -> Verdict:
    """M4: a token written for a real session id without the server's key must be refused."""
    page = await client.fetch(f"{target.base_url}/queue", request_timeout=60)
    real = TOKEN.search(page.body.decode("utf-8", errors="replace")).group(1)
    payload = get_token_payload(real)
    payload.pop("session_expiry", None)
    forged = generate_jwt_token(get_session_id(real), signed=False, extra_payload=payload, expiration=3600)
    request = HTTPRequest(f"ws{target.base_url[4:]}/queue/ws", headers={"Origin": target.base_url})
    try:
        socket = await websocket_connect(request, subprotocols=["bokeh", forged])
        frame = await asyncio.wait_for(socket.read_message(), 30)
        socket.close()
    except Exception:  # noqa: BLE001 - refused in the handshake
        frame = None
    joined = isinstance(frame, str) and json.loads(frame).get("msgtype") == "ACK"
    return Verdict(not joined, "forged token JOINED the session" if joined else "forged token refused")


async def bearer_guesses(target: Target, client: AsyncHTTPClient, guesses: int = 200) -> Verdict:
    """H3: wrong Bearer tokens on ``/instructor/export.csv`` must be throttled."""
    url = f"{target.base_url}/instructor/export.csv"
    started = time.perf_counter()
    wrong = [{"Authorization": f"Bearer {secrets.token_hex(8)}"} for _ in range(guesses)]
    codes = Counter(await asyncio.gather(*(status_of(client, url, headers=each) for each in wrong)))
    rate = guesses / (time.perf_counter() - started)
    judged = codes.get(403, 0)
    return Verdict(codes.get(429, 0) > 0 and judged < guesses, f"{dict(codes)}; {rate:.0f} guesses/s, {judged} judged")


async def lesson_session(target: Target, client: AsyncHTTPClient) -> tuple[RawSession, LessonIds, str]:
    """A student's session of the growth exercise, open and usable: the session, its ids, its store's id."""
    session = RawSession(target.base_url, LESSON_PATH, client)
    await session.open(60)
    ids = await usable(session, 60)
    store = next(m.id for m in session.doc.models.values() if STORE.match(m.name))
    return session, ids, store


async def vote_flood(target: Target, client: AsyncHTTPClient, locks: int = 300) -> Verdict:
    """M1: one session locking again and again under fresh student ids must count once."""
    if target.class_db is None:
        return Verdict(False, "no class database to count in")
    before = stored_votes(target)
    session, ids, store = await lesson_session(target, client)
    try:
        for index in range(locks):
            await session.set_value(store, "student", secrets.token_hex(16))
            await session.send_msg(ids.text, {"card": ids.card, "action": "lock", "text": str(1 + index % 7)})
        await session.quiet(1.0, 60)
    finally:
        await session.close()
    added = stored_votes(target) - before
    return Verdict(added <= 1, f"{locks} locks under fresh ids stored {added} vote(s)")


async def extreme_votes(target: Target, client: AsyncHTTPClient) -> Verdict:
    """M2: ±1.7e308 must be refused at the lock (the instructor's histogram broke on them)."""
    if target.class_db is None:
        return Verdict(False, "no class database to count in")
    before = stored_votes(target)
    for text in ("-1.7e308", "1.7e308"):
        session, ids, store = await lesson_session(target, client)
        try:
            await session.send_msg(ids.text, {"card": ids.card, "action": "lock", "text": text})
            await session.quiet(1.0, 60)
        finally:
            await session.close()
    added = stored_votes(target) - before
    return Verdict(added == 0, f"two locks of ±1.7e308 stored {added} vote(s)")


async def session_flood(target: Target, client: AsyncHTTPClient, sessions: int = 150) -> Verdict:
    """M3: raw sessions opened as fast as one client can; a real student's lesson must still open."""
    flood: list[RawSession] = []
    refused = 0

    async def one() -> None:
        nonlocal refused
        session = RawSession(target.base_url, "/queue", client)
        flood.append(session)
        try:
            await session.open(60)
        except (HTTPClientError, ProtocolFailure, OSError, TimeoutError):
            refused += 1

    started = time.perf_counter()
    attack = asyncio.gather(*(one() for _ in range(sessions)), return_exceptions=True)
    await asyncio.sleep(0.5)
    victim = RawSession(target.base_url, LESSON_PATH, client)
    victim_s = float("inf")
    try:
        await victim.open(120)
        await usable(victim, 120)
        victim_s = victim.timings["usable"] - victim.timings["start"]
        said = f"a student's lesson usable after {victim_s:.1f} s"
    except HTTPClientError as error:
        full = error.code == 503
        said = "a student got the 'full' page at once" if full else f"a student's lesson got HTTP {error.code}"
        victim_s = 0.0 if full else victim_s
    except (ProtocolFailure, OSError, TimeoutError) as error:
        said = f"a student's lesson did NOT open: {type(error).__name__}"
    await attack
    opened = sessions - refused
    took = time.perf_counter() - started
    for session in flood:
        await session.close()
    await victim.close()
    # Held: the server refused part of the flood (a cap, a rate), and a student got in or was told at once.
    held = victim_s != float("inf") and refused > 0
    return Verdict(held, f"{opened} of {sessions} flood sessions opened in {took:.1f} s; {said}")


async def headers(target: Target, client: AsyncHTTPClient) -> Verdict:
    """L1: a lesson page carries a CSP with script sources, nosniff and a Referrer-Policy."""
    reply = await client.fetch(f"{target.base_url}/lesson?id=overlap", request_timeout=60)
    policy = " ".join(reply.headers.get_list("Content-Security-Policy"))
    found = {
        "script-src": "script-src" in policy,
        "frame-ancestors": "frame-ancestors" in policy,
        "nosniff": reply.headers.get("X-Content-Type-Options", "") == "nosniff",
        "Referrer-Policy": bool(reply.headers.get("Referrer-Policy")),
    }
    missing = [name for name, there in found.items() if not there]
    return Verdict(not missing, "all present" if not missing else f"missing: {', '.join(missing)}")


HTTP_PROBES = {
    "components": components,
    "forged token": forged_token,
    "headers": headers,
    "vote flood": vote_flood,
    "extreme votes": extreme_votes,
    "session flood": session_flood,
    "bearer guesses": bearer_guesses,  # last: a throttle on this client's address may hold a while
}
"""Every probe, in the order run."""
