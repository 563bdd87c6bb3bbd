"""A BokehJS fix every course page runs after Bokeh's scripts (``assets/bokeh_fixes.js``).

BokehJS 3.9 connects a new layout's views to their models before it draws them; a control's view
that is changed in between (Step turned on as the student locks a prediction while the lab
arrives) finds no element yet and throws, and the rest of that message is never applied
(``tests/browser/test_bokeh_fixes_browser.py``). The script drops those updates until the view is drawn,
which then draws from the model's state. A button's text label that changes (Play ↔ Pause) is
changed in the same ``<button>``: BokehJS 3.9 removes the label, awaits a new one and draws a new
element, so a click aimed at Pause met the page behind it and focus fell to ``<body>``. It
reaches into BokehJS 3.9's widget views, so a page sends it only where :func:`app.upstream.install`
found the Bokeh it was checked on.
"""

from __future__ import annotations

from app.upstream import ASSETS
from app.upstream.browser_code import script

BOKEH_FIXES_JS = script(ASSETS / "bokeh_fixes.js")
"""``assets/bokeh_fixes.js`` without its comment lines."""


class BokehFixesJs:
    """Whether :func:`install` has been called."""

    on = False


def install() -> None:
    """Send :data:`BOKEH_FIXES_JS` in every course page from now on (idempotent)."""
    BokehFixesJs.on = True


def scripts() -> tuple[str, ...]:
    """The fix's script once installed, else none.

    Returns
    -------
    tuple of str
        What a page runs after Bokeh's scripts.
    """
    return (BOKEH_FIXES_JS,) if BokehFixesJs.on else ()
