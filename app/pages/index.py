"""The index page (``/``): every lesson and both standalone labs."""

from __future__ import annotations

import panel as pn

from app.shell import page


def build() -> pn.template.base.BaseTemplate:
    """Build the index for one session."""
    links = pn.pane.HTML(
        '<nav aria-label="Labs"><h2>Labs</h2><ul>'
        '<li><a href="./queue">Queue lab</a></li>'
        '<li><a href="./roofline">Roofline lab</a></li>'
        "</ul></nav>"
    )
    return page("Course", links)


if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
    build().servable()
