"""How this project launches Chromium under Playwright (tests and bench scripts alike)."""

from __future__ import annotations

from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")

# As root, without a network: no sandbox, no GPU, and none of Chromium's background connections.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def launch(playwright):
    """Launch Debian's Chromium when it is installed, else Playwright's own build.

    Parameters
    ----------
    playwright : playwright.sync_api.Playwright
        A started Playwright.

    Returns
    -------
    playwright.sync_api.Browser
        A headless Chromium.
    """
    options: dict = {"args": CHROMIUM_ARGS}
    if CHROMIUM.exists():
        options["executable_path"] = str(CHROMIUM)
    return playwright.chromium.launch(**options)
