"""The app's own browser code (``app/assets/``), read once per process, as it goes on the wire."""

from __future__ import annotations

from pathlib import Path

ASSETS = Path(__file__).parent / "assets"
"""The app's ``.js`` files (the labs' own are in ``labs/ui/assets/``)."""


def script(*parts: str) -> str:
    """The named files of :data:`ASSETS` joined in order, without their comment lines.

    The comments stay in the files for the next reader; a page is sent the code alone.

    Parameters
    ----------
    *parts : str
        Paths relative to ``app/assets/``, in the order they must run.

    Returns
    -------
    str
        Their lines, minus those that start with ``//``.
    """
    return "\n".join(
        line
        for part in parts
        for line in (ASSETS / part).read_text(encoding="utf-8").splitlines()
        if not line.lstrip().startswith("//")
    )
