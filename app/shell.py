"""The page frame every page shares: title, navigation back to the index, main content."""

from __future__ import annotations

import html

import panel as pn

CSS = """
.readout { font: 600 1.05rem/1.4 system-ui, sans-serif; padding: 6px 10px;
           background: #f3f6fa; border-left: 4px solid #1f6fb2; border-radius: 4px; }
.field-error { color: #a4000f; font-weight: 600; margin: 0; }
.mm1 { border: 1px dashed #6a3d9a; border-radius: 6px; padding: 4px 12px; }
.mm1 h3 { margin: 4px 0; font-size: 1rem; }
.assumptions { font-size: 0.9rem; color: #444; }
.lab-title { margin: 4px 0; font-size: 1.25rem; }
"""


def page(title: str, main: object, intro: str = "") -> pn.template.BootstrapTemplate:
    """Wrap ``main`` in the course's page frame.

    Parameters
    ----------
    title : str
        The page title, also the browser tab's title.
    main : object
        Any Panel object: a lab, a lesson, the index.
    intro : str
        An optional sentence shown above ``main``.

    Returns
    -------
    panel.template.BootstrapTemplate
        The page, ready to be served.
    """
    template = pn.template.BootstrapTemplate(
        title=f"Overlap Lab · {title}",
        header_background="#1f3b57",
        collapsed_sidebar=True,
        raw_css=[CSS],
        busy_indicator=None,
    )
    nav = pn.pane.HTML('<nav aria-label="Course"><a href="./">← All lessons and labs</a></nav>')
    template.main.append(nav)
    if intro:
        template.main.append(pn.pane.HTML(f"<p>{html.escape(intro)}</p>"))
    template.main.append(main)
    return template
