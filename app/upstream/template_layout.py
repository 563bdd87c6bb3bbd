"""Panel 1.9 builds, for every template, a notebook widget that no served page reads.

``BaseTemplate.__init__`` calls ``self._build_layout()``: a text with the template's ``repr``, an
HTML pane and a "Launch server" button with a watcher, in a column, kept as ``_layout``. Of Panel's
templates only ``pn.Template`` reads it again (``add_panel`` rewrites the text); ``BasicTemplate``
and the templates built on it (Bootstrap's, and the course's ``CourseTemplate``) never do, neither
served nor in a notebook. Every page built it anyway, four Panel objects and a template ``repr``
for each student: 1.5% of a seminar's server CPU (py-spy, 5 December 2026, evening).

:func:`install` gives ``BasicTemplate`` a ``_build_layout`` that builds nothing; ``pn.Template``
keeps Panel's. The method is private to Panel: :func:`applies` refuses the fix where it is gone or
where ``BasicTemplate`` has one of its own.
"""

from __future__ import annotations

from panel.template.base import BaseTemplate, BasicTemplate


def no_layout(self: BasicTemplate) -> None:
    """Build no notebook widget: nothing of a ``BasicTemplate`` reads ``_layout``."""
    return None


def applies() -> str:
    """Why the fix cannot be installed here, or ``""``."""
    if not callable(BaseTemplate.__dict__.get("_build_layout")):
        return "panel.template.base.BaseTemplate has no _build_layout"
    own = BasicTemplate.__dict__.get("_build_layout")
    if own is not None and own is not no_layout:
        return "panel.template.base.BasicTemplate has a _build_layout of its own"
    return ""


def install() -> None:
    """Have every ``BasicTemplate`` skip the notebook widget (idempotent)."""
    BasicTemplate._build_layout = no_layout


def uninstall() -> None:
    """Give ``BasicTemplate`` Panel's own method back (tests, benches)."""
    if BasicTemplate.__dict__.get("_build_layout") is no_layout:
        del BasicTemplate._build_layout
