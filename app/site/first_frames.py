"""Each lab's first frame, drawn once per process from a view built outside any session (issue 64).

:mod:`labs.ui.first_frame` draws a lab's picture from the Bokeh models a view builds; every student
sees the same first frame (a link's settings arrive with the live lab), so each lab's is drawn once,
as the server starts (:func:`draw_every_first_frame`), from a view no session holds.
"""

from __future__ import annotations

import html

import panel as pn

from labs.registry import registrations
from labs.ui.first_frame import picture_frame_html
from labs.ui.stage import LabStage


def _stage(view: object) -> LabStage | None:
    layout = view.__panel__() if isinstance(view, pn.viewable.Viewer) else view
    if isinstance(layout, LabStage):
        return layout
    found = layout.select(LabStage) if hasattr(layout, "select") else []
    return found[0] if found else None


_drawn: dict[tuple[str, bool], str] = {}
"""Each lab's first frame by (slug, in a lesson), once drawn."""


def lab_first_frame(slug: str, in_lesson: bool = False) -> str:
    """Lab ``slug``'s picture as it opens, as HTML: on its own page, or beside a lesson.

    Parameters
    ----------
    slug : str
        A registered lab.
    in_lesson : bool
        Drawn from the view a lesson uses (its ``lesson_view``) rather than the page's.

    Returns
    -------
    str
        HTML (:func:`labs.ui.first_frame.picture_frame_html`); '' for an unknown lab, one with no
        stage, or one not drawn yet when a session asks: a view is never built inside a student's
        session for this (Panel would tie what it registers to that session's document), so the
        server draws them all as it starts (:func:`draw_every_first_frame`).
    """
    key = (slug, in_lesson)
    if key not in _drawn:
        if pn.state.curdoc is not None:
            return ""
        _drawn[key] = _draw(slug, in_lesson)
    return _drawn[key]


def _draw(slug: str, in_lesson: bool) -> str:
    lab = next((item for item in registrations() if item.slug == slug), None)
    if lab is None:
        return ""
    stage = _stage(lab.lesson_view() if in_lesson else lab.page_view())
    if stage is None or stage.picture is None:
        return ""
    frame = picture_frame_html(getattr(stage.picture, "object", stage.picture))
    if frame and stage.heading:  # a lesson's lab is headed by its name (labs/ui/assets/stage.js)
        frame = f'<h2 class="stage-heading">{html.escape(stage.heading)}</h2>{frame}'
    return frame


def draw_every_first_frame() -> None:
    """Draw every lab's first frames now, before any session (the server calls it as it starts)."""
    for lab in registrations():
        lab_first_frame(lab.slug)
        lab_first_frame(lab.slug, in_lesson=True)
