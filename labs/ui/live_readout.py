"""A readout line outside a lab (the trace page's, the instructor's) that stays one live region.

A screen reader announces changes inside a live region that is already on the page. Panel's and
Bokeh's HTML panes rebuild their content on every change, so a ``role="status"`` element inside
that content is a new element each time, which some screen readers then never read. Here the live
region is the Bokeh ``Div``'s own element (``html_attributes``), which stays; only its text changes.
The labs' readouts work the same way (:data:`labs.ui.playback.LIVE_REGION`).
"""

from __future__ import annotations

import panel as pn
from bokeh.models import Div

from labs.ui.playback import LIVE_REGION, readout_html


class LiveReadout:
    """One status line, in the readout's style, announced politely whenever :meth:`show` changes it.

    Parameters
    ----------
    text : str
        The first text, already escaped.
    busy : bool
        Whether it says that something is under way (screen readers wait for the outcome).
    """

    def __init__(self, text: str, busy: bool = False):
        self.div = Div(sizing_mode="stretch_width", margin=(5, 10))
        self.show(text, busy)
        self.pane = pn.pane.Bokeh(self.div, sizing_mode="stretch_width")

    def show(self, text: str, busy: bool = False) -> None:
        """Show ``text`` (already escaped); ``busy`` while the figures it promises are on their way."""
        self.div.update(
            text=readout_html(text, live=False),
            html_attributes={**LIVE_REGION, "aria-busy": "true" if busy else "false"},
        )

    @property
    def text(self) -> str:
        """The HTML shown now (for headless tests)."""
        return self.div.text
