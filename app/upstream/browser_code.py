"""Browser code as it goes on the wire: a package's ``.js`` assets without their comment lines.

It lives here so that :mod:`app.upstream` needs nothing else of ``app``; :mod:`app.web.delivery.browser_code`
hands the same function to the rest of the app.
"""

from __future__ import annotations

from pathlib import Path


def script(*files: Path) -> str:
    """The named files joined in order, without their comment lines.

    The comments stay in the files for the next reader; a page is sent the code alone.

    Parameters
    ----------
    *files : Path
        The ``.js`` files, in the order they must run.

    Returns
    -------
    str
        Their lines, minus those that start with ``//``.
    """
    return "\n".join(
        line
        for file in files
        for line in file.read_text(encoding="utf-8").splitlines()
        if not line.lstrip().startswith("//")
    )
