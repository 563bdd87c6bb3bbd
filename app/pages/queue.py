"""The standalone queue lab page (``/queue``)."""

from __future__ import annotations

import panel as pn

from app.shell import deferred, page
from labs.queue.view import QueueLab


def build() -> pn.template.base.BaseTemplate:
    """Build the page for one session: a fresh model and view."""
    return page(
        "Queue lab",
        deferred(QueueLab, sizing_mode="stretch_width"),  # the frame first, the lab once loaded
        intro=(
            "Set the arrival rate λ and the service rate μ, then Step or Play to watch the fluid "
            "backlog grow or drain. The M/M/1 panel is a separate reference model."
        ),
    )


if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
    build().servable()
