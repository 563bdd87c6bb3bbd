"""Lesson prose, rendered from Markdown once per process and shared by every session."""

from __future__ import annotations

import typing as t

import panel as pn
import param

from labs.ui.palette import inline


class LessonProse(pn.pane.Markdown):
    """A Markdown pane whose HTML is rendered once per process for each distinct text.

    Lesson texts are the same for every student, and Markdown rendering is a noticeable part of a
    page build; the rendered HTML is immutable, so one copy serves every session. Only lesson text
    (a bounded set) goes through this pane.
    """

    # Panel's Markdown colours inline code #82aaff (2.3:1 on white); this is 10:1.
    stylesheets = param.List(
        default=[inline(":host code { color: var(--ol-code-blue); background: var(--ol-code-background); }")]
    )

    _rendered: t.ClassVar[dict[str, dict[str, t.Any]]] = {}

    def _transform_object(self, obj: t.Any) -> dict[str, t.Any]:
        if not isinstance(obj, str):
            return super()._transform_object(obj)
        if obj not in self._rendered:
            self._rendered[obj] = super()._transform_object(obj)
        return dict(self._rendered[obj])
