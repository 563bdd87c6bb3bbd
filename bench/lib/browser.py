"""Chromium pages for the benches (launched by ``tests/chromium.py``): a fresh profile, a usable page.

A bench that opens a page in a browser waits until a student could use it: the app's lab readout
(``role="status"`` showing ``t = ``), or a bare page's first heading.
"""

from __future__ import annotations

from typing import Literal

from playwright.sync_api import Browser, BrowserContext, Page

DESKTOP = {"width": 1280, "height": 900}
"""The viewport of a desktop browser window."""

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 3}
"""A phone's browser (390 × 844 CSS px, touch): the page is laid out at the phone's own width."""

Ready = Literal["readout", "heading"]
"""What shows that a page is usable: the app's lab readout, or a bare page's first heading."""


def desktop_context(browser: Browser) -> BrowserContext:
    """A new browser profile (empty cache, no cookies) with a desktop-sized window.

    Parameters
    ----------
    browser : playwright.sync_api.Browser
        A launched Chromium.

    Returns
    -------
    playwright.sync_api.BrowserContext
        The profile; the caller closes it.
    """
    return browser.new_context(viewport=DESKTOP)


def phone_context(browser: Browser) -> BrowserContext:
    """A new browser profile (empty cache, no cookies) as a phone's browser: :data:`PHONE`.

    Parameters
    ----------
    browser : playwright.sync_api.Browser
        A launched Chromium.

    Returns
    -------
    playwright.sync_api.BrowserContext
        The profile; the caller closes it.
    """
    return browser.new_context(**PHONE)


def wait_until_usable(page: Page, ready: Ready, timeout_ms: float) -> None:
    """Wait until the page shows what ``ready`` names.

    Parameters
    ----------
    page : playwright.sync_api.Page
        A page that is loading or loaded.
    ready : {"readout", "heading"}
        The lab's readout (a ``role="status"`` element with ``t = ``), or the first heading.
    timeout_ms : float
        Milliseconds to wait at most (Playwright's ``TimeoutError`` after that).
    """
    if ready == "readout":
        page.get_by_role("status").filter(has_text="t = ").first.wait_for(timeout=timeout_ms)
    elif ready == "heading":
        page.get_by_role("heading").first.wait_for(timeout=timeout_ms)
    else:
        raise ValueError(f"not a sign of a usable page: {ready!r}")
