"""A lab's standalone page, for any registered lab: ``/lab?id=<slug>``, and ``/<slug>`` under ``python -m app``.

``python -m app`` also serves ``/embed/<slug>``: the lab alone, for another site to frame.

``panel serve app/site/pages/[!_]*.py app/site/pages/instructor.py app/trace/page/trace.py --plugins
app.site.panel_plugin`` serves this file as ``/lab``, so every lab a
package registers is reachable there too without a page file of its own.
"""

from __future__ import annotations

import html

import panel as pn

from app.course.library import query_param
from app.site.first_frames import lab_first_frame
from app.site.lab_link import apply_link_settings, with_settings
from app.site.not_found import missing_lab_html
from app.web.frame_headers import EMBED_PREFIX
from app.web.share import ShareButton, lab_paths
from app.web.shell import deferred, page
from labs.registry import LabRegistration, registrations


def build_lab_page(lab: LabRegistration, embed: bool = False) -> pn.template.base.BaseTemplate:
    """Build one lab's standalone page for one session: a fresh model and view.

    Parameters
    ----------
    lab : LabRegistration
        The lab, as its package registers it.
    embed : bool
        The page another site frames, ``/embed/<slug>``: the same lab in a bare frame (no site
        header, index link or intro), with a link "Open in Overlap Lab" to ``/<slug>``. Otherwise the
        page has a "Share" button under its heading (:class:`app.web.share.ShareButton`).

    Returns
    -------
    panel.template.base.BaseTemplate
        The page; the lab itself arrives once the page has loaded (:func:`app.web.shell.deferred`).
    """
    # Import the view now, before the page's HTML is written: Bokeh puts in it the data models
    # (e.g. labs.ui.playback.PlaybackState) imported by then, and the deferred lab needs them. Without
    # this the first lab page a fresh `panel serve` process serves fails to show its lab.
    lab.view_class()
    shares: list[ShareButton] = []  # the heading's Share button, once the page has made it

    def heading(heading_html: str) -> ShareButton:
        shares.append(ShareButton.heading(lab.slug, lab.title)(heading_html))
        return shares[-1]

    view = deferred(lambda: lab_from_link(lab, shares), sizing_mode="stretch_width")
    if embed:
        # Relative, so it holds behind a proxy serving the course under a path of its own; a new tab,
        # so the site that frames the lab stays where it is.
        link = f'<a href="../{html.escape(lab.slug)}" target="_blank" rel="noopener">Open in Overlap Lab</a>'
        return page(
            lab.title,
            view,
            extra_html=link,
            back=False,
            bare=True,
            first_paint=f'<div class="lab-room">{lab_first_frame(lab.slug)}</div>',
            first_paint_until="lab",
        )
    # The picture first, as on /embed/<slug>: the heading, then the intro folded under one line (on a
    # phone it ran to 11 lines above the picture), then the Share button and the lab.
    return page(
        lab.title,
        view,
        extra_html=intro_html(lab.intro),
        heading=heading,
        first_paint=f'<div class="share-room"></div><div class="lab-room">{lab_first_frame(lab.slug)}</div>',
        first_paint_until="lab",
    )


def lab_from_link(lab: LabRegistration, shares: list[ShareButton]) -> object:
    """The lab for this session with the settings its link gives, and its Share link following them.

    Parameters
    ----------
    lab : LabRegistration
        The lab.
    shares : list of ShareButton
        The page's Share button (none on an embed page): its link and embed code carry the lab's
        settings as they change (:func:`app.site.lab_link.with_settings`).

    Returns
    -------
    object
        The lab's view, under an alert naming each setting of the link the lab refused.
    """
    view = lab.page_view()
    model = view.model
    refusals = apply_link_settings(model, pn.state.session_args or {})
    if shares:
        link, embed = lab_paths(lab.slug)

        def follow(*_events: object) -> None:
            shares[0].param.update(link=with_settings(link, model), embed=with_settings(embed, model))

        model.param.watch(follow, list(model.controls))
        follow()
    if not refusals:
        return view
    said = "".join(f"<li>{html.escape(refusal)}</li>" for refusal in refusals)
    alert = pn.pane.HTML(
        f'<div role="alert" class="field-error"><p>This link asks for settings the lab cannot take; '
        f"it kept its own for these:</p><ul>{said}</ul></div>",
        sizing_mode="stretch_width",
        margin=(0, 10),
    )
    return pn.Column(alert, view, sizing_mode="stretch_width")


INTRO_SUMMARY = "About this lab"
"""The one line a lab page's folded intro shows above the lab."""


def intro_html(intro: str) -> str:
    """A lab's intro folded under :data:`INTRO_SUMMARY`, so that the picture comes first.

    Parameters
    ----------
    intro : str
        The lab's intro, plain text.

    Returns
    -------
    str
        A ``<details>`` element, or nothing for no intro.
    """
    if not intro:
        return ""
    return (
        "<details style='margin:0 0 4px'><summary style='cursor:pointer;min-height:24px'>"
        f"{INTRO_SUMMARY}</summary><p style='margin:4px 0'>{html.escape(intro)}</p></details>"
    )


def page_builder(lab: LabRegistration, embed: bool = False):
    """The page function ``pn.serve`` calls for every session of ``/<slug>`` (or ``/embed/<slug>``).

    Parameters
    ----------
    lab : LabRegistration
        The lab.
    embed : bool
        Whether it builds the page to embed (:func:`build_lab_page`).

    Returns
    -------
    callable
        A function of no arguments, named after the lab.
    """

    def build() -> pn.template.base.BaseTemplate:
        return build_lab_page(lab, embed=embed)

    build.__name__ = build.__qualname__ = f"build_{lab.slug}_{'embed' if embed else 'page'}"
    return build


def lab_routes() -> dict[str, object]:
    """``/lab`` (``?id=<slug>``) and a short ``/<slug>`` for every registered lab, each with its page function."""
    return {"/lab": build, **{f"/{lab.slug}": page_builder(lab) for lab in registrations()}}


def embed_routes() -> dict[str, object]:
    """``/embed/<slug>`` for every registered lab: the lab in a bare frame for another site's ``<iframe>``."""
    return {f"{EMBED_PREFIX}{lab.slug}": page_builder(lab, embed=True) for lab in registrations()}


def build() -> pn.template.base.BaseTemplate:
    """Build the lab page the URL's ``id`` asks for, or a clear message if there is no such lab."""
    slug = query_param("id")
    lab = next((item for item in registrations() if item.slug == slug), None)
    if lab is not None:
        return build_lab_page(lab)
    # Only under panel serve: python -m app answers an unknown lab with a 404 page (app.site.urls).
    return page("No such lab", pn.pane.HTML(missing_lab_html(slug), sizing_mode="stretch_width"))


if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
    build().servable()
