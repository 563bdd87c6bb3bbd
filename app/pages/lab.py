"""A lab's standalone page (``/<slug>``), for any registered lab."""

from __future__ import annotations

import panel as pn

from app.shell import deferred, page
from labs.registry import LabRegistration, registrations


def build_lab_page(lab: LabRegistration) -> pn.template.base.BaseTemplate:
    """Build one lab's standalone page for one session: a fresh model and view.

    Parameters
    ----------
    lab : LabRegistration
        The lab, as its package registers it.

    Returns
    -------
    panel.template.base.BaseTemplate
        The page; the lab itself arrives once the page has loaded (:func:`app.shell.deferred`).
    """
    return page(lab.title, deferred(lab.page_view, sizing_mode="stretch_width"), intro=lab.intro)


def page_builder(lab: LabRegistration):
    """The page function ``pn.serve`` calls for every session of ``/<slug>``.

    Parameters
    ----------
    lab : LabRegistration
        The lab.

    Returns
    -------
    callable
        A function of no arguments, named after the lab.
    """

    def build() -> pn.template.base.BaseTemplate:
        return build_lab_page(lab)

    build.__name__ = build.__qualname__ = f"build_{lab.slug}_page"
    return build


def lab_routes() -> dict[str, object]:
    """``/<slug>`` for every registered lab, each with its page function."""
    return {f"/{lab.slug}": page_builder(lab) for lab in registrations()}
