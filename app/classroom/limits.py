"""At most a few writes per student per second, per process: a flood from one client touches no one else."""

from __future__ import annotations

import time
from collections import OrderedDict, deque

WRITES_PER_SECOND = 3
"""How many predictions one student id (or one session) may send in any one second."""


class WriteLimiter:
    """A sliding one-second window of writes per key (a student id or a session).

    Parameters
    ----------
    per_second : int
        Writes allowed in any window of one second.
    keys : int
        How many keys are remembered; the least recently seen is forgotten first.
    """

    def __init__(self, per_second: int = WRITES_PER_SECOND, keys: int = 20_000) -> None:
        self.per_second = per_second
        self.keys = keys
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()

    def allow(self, key: str, now: float | None = None) -> bool:
        """Count one write for ``key`` and say whether it is within the limit.

        Parameters
        ----------
        key : str
            Who writes.
        now : float, optional
            The time in seconds (``time.monotonic()`` by default).

        Returns
        -------
        bool
            False when ``key`` already wrote ``per_second`` times in the last second (not counted then).
        """
        now = time.monotonic() if now is None else now
        window = self._seen.pop(key, None) or deque()
        while window and now - window[0] >= 1.0:
            window.popleft()
        allowed = len(window) < self.per_second
        if allowed:
            window.append(now)
        self._seen[key] = window
        while len(self._seen) > self.keys:
            self._seen.popitem(last=False)
        return allowed
