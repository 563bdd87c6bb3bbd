"""Waiting on state, never on the clock: the only pauses the tests make are in this module.

A slow or busy machine makes everything take longer, never something else happen. So a test waits
until the page shows what it expects (a readout, a message count, an attribute), with a deadline far
beyond any honest delay: running into it means the page is stuck, not slow. The one exception is
:func:`nothing_happens_for`, a short window in which a test shows that nothing happens.
"""

from __future__ import annotations

import time
from collections.abc import Callable

STUCK_AFTER_S = 60.0
"""How long a wait on state may take before the page counts as stuck (not a speed requirement)."""

POLL_MS = 25
"""How often a wait looks at the page again."""


def settles(predicate: Callable[[], object], timeout: float = STUCK_AFTER_S, page=None) -> bool:
    """Call ``predicate`` until it returns something true; say whether it did within ``timeout`` seconds.

    Parameters are those of :func:`poll`.
    """
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        if page is not None:
            page.wait_for_timeout(POLL_MS)
        else:
            time.sleep(POLL_MS / 1000)
    return True


def poll(predicate: Callable[[], object], timeout: float = STUCK_AFTER_S, page=None, what: str = "") -> None:
    """Call ``predicate`` until it returns something true, or fail.

    Parameters
    ----------
    predicate : callable
        Reads the page (or a log) and says whether the awaited state is there.
    timeout : float
        Seconds after which the state counts as never coming: the test fails.
    page : playwright.sync_api.Page, optional
        Given, the pause between polls is spent inside Playwright, which delivers the page's
        events (websocket frames, console messages) only while a Playwright call runs.
    what : str
        What was awaited, for the failure message.
    """
    assert settles(predicate, timeout, page), f"stuck: {what or 'the awaited state'} never came in {timeout:.0f} s"


def nothing_happens_for(page, seconds: float) -> None:
    """Let ``seconds`` of wall time pass, inside Playwright, so a test can show that nothing happened.

    Keep it short and use it once per test: it is the only wait on the clock the tests make.
    """
    page.wait_for_timeout(seconds * 1000)
