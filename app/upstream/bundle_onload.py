"""Bokeh's embed code made to wait for the course's script loader (:mod:`app.web.delivery.bundle_loading`).

The loader fetches a page's bundles BokehJS first and runs them in order, so they are no longer
parser-blocking and the page's ``DOMContentLoaded`` comes before they have run. Bokeh wraps the code
that draws a page's documents in ``bokeh.embed.wrappers._ONLOAD``, a string of JavaScript Panel sets
to run it at ``DOMContentLoaded``; run then, it would find no BokehJS. :func:`install` puts one test
ahead of Panel's in that wrapper (``assets/embed_waits.js``): a page whose scripts come from the
loader (``window.overlapBundles``) runs the code once they have run; any other page as Panel runs it.
"""

from __future__ import annotations

from bokeh.embed import wrappers

from app.upstream import ASSETS
from app.upstream.browser_code import script

WAITING_FOR_BUNDLES = script(ASSETS / "embed_waits.js")
"""The lines of the embed wrapper that run Bokeh's embed code, as :func:`install` writes them."""

_PANEL_RUNS_IT = WAITING_FOR_BUNDLES.splitlines()[-1].replace("else if", "if", 1)
"""The same line as Panel writes it (``panel/io/resources.py``): the asset's last line without its ``else``."""


def applies() -> str:
    """Why the fix cannot be installed here, or ``""`` when it can.

    Returns
    -------
    str
        Empty when Panel's wrapper runs the embed code as this module expects.
    """
    if WAITING_FOR_BUNDLES in wrappers._ONLOAD or _PANEL_RUNS_IT in wrappers._ONLOAD:
        return ""
    return "Panel's embed wrapper no longer runs the embed code as expected"


def install() -> None:
    """Make Bokeh's embed code wait for the loader where a page has one (idempotent).

    Raises
    ------
    RuntimeError
        If Panel's wrapper no longer runs the code as this module expects (an upgrade changed it).
    """
    if WAITING_FOR_BUNDLES in wrappers._ONLOAD:
        return
    if _PANEL_RUNS_IT not in wrappers._ONLOAD:
        raise RuntimeError(
            f"Panel's embed wrapper changed; app.upstream.bundle_onload cannot wait in it:\n{wrappers._ONLOAD}"
        )
    wrappers._ONLOAD = wrappers._ONLOAD.replace(_PANEL_RUNS_IT, WAITING_FOR_BUNDLES)
