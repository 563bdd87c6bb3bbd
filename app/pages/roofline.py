"""The standalone roofline lab page (``/roofline``): placeholder until the roofline lab lands."""

from __future__ import annotations

import panel as pn

from app.shell import page


def build() -> pn.template.base.BaseTemplate:
    """Build the page for one session."""
    return page("Roofline lab", pn.pane.Markdown("The roofline lab is being built."))
