"""The standalone roofline lab page (``/roofline``)."""

from __future__ import annotations

import panel as pn

from app.shell import deferred, page
from labs.roofline.view import RooflineLab


def build() -> pn.template.base.BaseTemplate:
    """Build the page for one session: a fresh model and view, with the device presets."""
    return page(
        "Roofline lab",
        deferred(lambda: RooflineLab(presets=True), sizing_mode="stretch_width"),  # frame first, then the lab
        intro=(
            "Set the arithmetic intensity I and the memory bandwidth B, read off the attainable "
            "performance min(P, I·B), then Step or Play to watch a fixed workload race its bytes "
            "against its FLOPs on the chosen device."
        ),
    )


if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
    build().servable()
