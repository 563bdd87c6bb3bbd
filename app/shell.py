"""The page frame every page shares: title, navigation back to the index, main content."""

from __future__ import annotations

import html
from collections.abc import Callable

import panel as pn

CSS = """
#header a.title, #header span.title { font-size: 1.15rem; white-space: nowrap; }
@media (max-width: 600px) { #header a.title:last-child, #header span.title { display: none; } }
"""


def page(title: str, main: object, intro: str = "", extra_html: str = "") -> pn.template.BootstrapTemplate:
    """Wrap ``main`` in the course's page frame.

    Parameters
    ----------
    title : str
        The page title, also the browser tab's title.
    main : object
        Any Panel object: a lab, a lesson, the index.
    intro : str
        An optional sentence shown above ``main``.
    extra_html : str
        Optional trusted HTML shown under the heading (navigation, notices); one pane with it.

    Returns
    -------
    panel.template.BootstrapTemplate
        The page, ready to be served.
    """
    template = pn.template.BootstrapTemplate(
        title=title,
        site="Overlap Lab",
        site_url="./",
        header_background="#1f3b57",
        collapsed_sidebar=True,
        raw_css=[CSS],
        busy_indicator=None,
    )
    heading = pn.pane.HTML(
        '<nav aria-label="Course"><a href="./">← All lessons and labs</a></nav>'
        f"<h1 style='font-size:1.7rem;margin:8px 0'>{html.escape(title)}</h1>"
        + (f"<p>{html.escape(intro)}</p>" if intro else "")
        + extra_html,
        sizing_mode="stretch_width",
    )
    template.main.append(heading)
    template.main.append(main)
    return template


def deferred(make: Callable[[], object], **column_params) -> pn.Column:
    """A column that receives ``make()`` once the page has loaded, in a server task of its own.

    A page built in one piece holds every click of every other student on the process until it is
    done; a page built in two pieces (the frame and text first, the lab once the browser reports the
    page ready, through ``pn.state.onload``) lets clicks through in between. Outside a server
    session (tests, scripts) the column is filled at once.

    Parameters
    ----------
    make : callable
        Builds what goes in the column.
    **column_params
        Parameters of the column (styles, sizing).

    Returns
    -------
    panel.Column
        Empty until the page has loaded, then holding ``make()``.
    """
    slot = pn.Column(**column_params)

    def fill() -> None:
        slot.objects = [make()]

    pn.state.onload(fill)
    return slot
