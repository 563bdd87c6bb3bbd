"""View pieces shared by the labs: a named region, typed number fields, browser playback."""

from __future__ import annotations

from pathlib import Path

ASSETS = Path(__file__).parent / "assets"
"""The browser code of the labs: real ``.js`` files, each read once per process by the module that sends it."""


def browser_code(*names: str) -> str:
    """The named files of :data:`ASSETS` joined in order: one program for a page component or callback.

    Parameters
    ----------
    *names : str
        File names in ``labs/ui/assets/``, the ones that define functions first (``"formats.js"``
        before ``"player.js"``, which calls them).

    Returns
    -------
    str
        The files' text, one after the other.
    """
    return "\n".join((ASSETS / name).read_text(encoding="utf-8") for name in names)
