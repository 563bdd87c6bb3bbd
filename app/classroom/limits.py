"""How much one client may do, per process: writes per session and per address, sign-in failures.

A flood from one tab or one address touches no one else. Every limit is a sliding window of
recent events per key (a session, a client address, or the whole process), remembered for a
bounded number of keys. The values are here, in one place, for the bench's attack script too.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque

WRITES_PER_SECOND = 3
"""How many predictions one session may send in any one second."""

ADDRESS_WRITES = 600
ADDRESS_WINDOW_S = 10.0
"""How many predictions one client address may send in any 10 s, per process (a hall of 600 behind one NAT locking
within 10 s fits; a session votes once per exercise and round anyway, so this bounds only the writes tried)."""

SIGN_IN_FAILURES_PER_ADDRESS = 10
SIGN_IN_FAILURES_GLOBAL = 30
SIGN_IN_WINDOW_S = 60.0
"""Failed instructor sign-ins allowed in any minute, from one address and from all addresses together."""


class WriteLimiter:
    """A sliding window of events per key (a session, an address).

    Parameters
    ----------
    per_second : int
        Events allowed in any window (of one second by default).
    keys : int
        How many keys are remembered; the least recently seen is forgotten first.
    window_s : float
        The window's length in seconds.
    """

    def __init__(self, per_second: int = WRITES_PER_SECOND, keys: int = 20_000, window_s: float = 1.0) -> None:
        self.per_second = per_second
        self.keys = keys
        self.window_s = window_s
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def _window(self, key: str, now: float) -> deque[float]:
        window = self._seen.pop(key, None) or deque()
        while window and now - window[0] >= self.window_s:
            window.popleft()
        self._seen[key] = window
        while len(self._seen) > self.keys:
            self._seen.popitem(last=False)
        return window

    def allow(self, key: str, now: float | None = None) -> bool:
        """Count one event for ``key`` and say whether it is within the limit.

        Parameters
        ----------
        key : str
            Who writes.
        now : float, optional
            The time in seconds (``time.monotonic()`` by default).

        Returns
        -------
        bool
            False when ``key`` already had ``per_second`` events in the window (not counted then).
        """
        now = time.monotonic() if now is None else now
        with self._lock:
            window = self._window(key, now)
            allowed = len(window) < self.per_second
            if allowed:
                window.append(now)
            return allowed

    def wait_s(self, key: str, now: float | None = None) -> float:
        """Seconds until ``key`` may have another event (0 when it may now); nothing is counted."""
        now = time.monotonic() if now is None else now
        with self._lock:
            window = self._window(key, now)
            if len(window) < self.per_second:
                return 0.0
            return max(0.0, window[0] + self.window_s - now)

    def count(self, key: str, now: float | None = None) -> None:
        """Count one event for ``key`` whatever the limit (a failure that already happened)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            self._window(key, now).append(now)


class SignInLimiter:
    """Failed instructor sign-ins per client address and for the whole process, HTTP and page alike.

    Over either limit every try is refused unchecked until the window has room again, the right
    token included (a guess must never be checked then). Sessions already signed in are unaffected.

    Parameters
    ----------
    per_address : int
        Failures allowed from one address in any window.
    overall : int
        Failures allowed from all addresses together in any window.
    window_s : float
        The window's length in seconds.
    """

    EVERYONE = "*"

    def __init__(
        self,
        per_address: int = SIGN_IN_FAILURES_PER_ADDRESS,
        overall: int = SIGN_IN_FAILURES_GLOBAL,
        window_s: float = SIGN_IN_WINDOW_S,
    ) -> None:
        self.addresses = WriteLimiter(per_address, keys=20_000, window_s=window_s)
        self.overall = WriteLimiter(overall, keys=1, window_s=window_s)

    def wait_s(self, address: str, now: float | None = None) -> int:
        """Whole seconds (at least 1) ``address`` must wait before a try is checked; 0 when it may try now."""
        waiting = max(self.addresses.wait_s(address, now), self.overall.wait_s(self.EVERYONE, now))
        return math.ceil(waiting) if waiting > 0 else 0

    def failed(self, address: str, now: float | None = None) -> None:
        """Count one failed try from ``address``."""
        self.addresses.count(address, now)
        self.overall.count(self.EVERYONE, now)
