"""The instructor's page (``/instructor``): the class's locked predictions, behind the instructor token."""

from __future__ import annotations

import panel as pn

from app.classroom import class_store
from app.web.shell import page

INTRO = (
    "Students commit a prediction alone; you see the spread before anyone sees the answer; the class "
    "discusses and predicts again. Type the instructor token to see the class."
)
CLASS_OFF = (
    "The class is off on this server, so no predictions are collected. Start the course with a class "
    "database, for example <code>python -m app --class-db sqlite:///class.db</code> (or set "
    "<code>CLASS_DB</code>), and set <code>INSTRUCTOR_TOKEN</code> to a secret of your own (one is made up "
    "and printed once if you do not)."
)


def build() -> pn.template.base.BaseTemplate:
    """Build the instructor page for one session."""
    store = class_store()
    if store is None:
        return page("Class results", pn.pane.HTML(f'<p role="status">{CLASS_OFF}</p>', sizing_mode="stretch_width"))
    from app.classroom.instructor_view import InstructorView

    return page("Class results", InstructorView(store, user=pn.state.user), intro=INTRO)


if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
    build().servable()
