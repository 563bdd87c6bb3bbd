"""The instructor's side of a class bench: how far the class database lags behind the students' locks.

While the class runs, :class:`ClassWatch` reads ``/instructor/rounds.json`` (with the instructor
token from ``INSTRUCTOR_TOKEN``) every 0.25 s, as the instructor's page reads the database every
second. After it, :meth:`ClassWatch.lag` pairs the k-th lock the students saw answered with the first
read that counted k votes: that delay is how far the database (and so the instructor's view, which
adds at most its own 1 s refresh) was behind the class.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from typing import Any

from tornado.httpclient import AsyncHTTPClient, HTTPRequest

EXERCISE_KEY = "overlap/growth"
EVERY_S = 0.25


class ClassWatch:
    """Reads the class's vote count during a load (nothing if no token is set or the class is off)."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.token = os.environ.get("INSTRUCTOR_TOKEN", "")
        self.reads: list[tuple[float, int]] = []
        self.problem = "" if self.token else "INSTRUCTOR_TOKEN is not set: the class's votes are not read"
        self._task: asyncio.Task | None = None

    async def _count(self, client: AsyncHTTPClient) -> int:
        request = HTTPRequest(
            f"{self.base_url}/instructor/rounds.json?exercise={EXERCISE_KEY}",
            headers={"Authorization": f"Bearer {self.token}"},
            request_timeout=10,
        )
        reply = await client.fetch(request, raise_error=False)
        if reply.code != 200:
            raise RuntimeError(f"/instructor/rounds.json answered {reply.code}")
        return sum(len(r["predictions"]) for r in json.loads(reply.body)["rounds"])

    async def _watch(self, t0: float) -> None:
        client = AsyncHTTPClient(force_instance=True)
        try:
            while True:
                count = await self._count(client)
                self.reads.append((time.perf_counter() - t0, count))
                await asyncio.sleep(EVERY_S)
        except asyncio.CancelledError:
            pass
        except Exception as error:  # noqa: BLE001 - the class goes on; the report says why nothing was read
            self.problem = str(error)
        finally:
            client.close()

    def start(self, t0: float) -> None:
        """Begin reading (``t0``: the load's ``time.perf_counter()`` origin)."""
        if self.token:
            self._task = asyncio.ensure_future(self._watch(t0))

    async def stop(self, t0: float) -> None:
        """Stop reading, after one last read once the load is over."""
        if self._task is None:
            return
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        client = AsyncHTTPClient(force_instance=True)
        try:
            self.reads.append((time.perf_counter() - t0, await self._count(client)))
        except Exception as error:  # noqa: BLE001
            self.problem = str(error)
        finally:
            client.close()

    def lag(self, locked_at: list[float]) -> dict[str, Any]:
        """Votes counted against locks answered, and the delay from each lock to the read that counted it."""
        if not self.reads:
            return {"problem": self.problem or "no read"}
        before = self.reads[0][1]
        delays = []
        for k, at in enumerate(sorted(locked_at), start=1):
            seen = next((t for t, count in self.reads if count - before >= k and t >= at), None)
            if seen is not None:
                delays.append(seen - at)
        return {
            "locks": len(locked_at),
            "votes": self.reads[-1][1] - before,
            "delays": sorted(delays),
            "problem": self.problem,
        }
