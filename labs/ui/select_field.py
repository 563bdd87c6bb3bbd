"""A choice from a list, drawn by the stage as a native ``<select>`` with a real ``<label>``.

Panel's ``Select`` is a Bokeh model of its own, and its value crosses a server change on the wire
unseen: a student who picks an option just as a Reset's answer is on its way sees the Reset's option
while the lab runs the one picked (the fuzz at seed 4471 on a busy machine: "buckets = 1, expected
3" after Reset → select Iteration). A select the :class:`~labs.ui.stage.LabStage` draws goes to the
page with its fields (``fields_json``), which is sent again after every message the page sent, so
the page always ends showing what the server holds. It is a plain ``param`` object, one Bokeh model
fewer for each select of each session.
"""

from __future__ import annotations

import param


class SelectField(param.Parameterized):
    """``<label>label <select>…</select></label>``; ``value`` follows the choice both ways."""

    label = param.String(default="", doc="The select's visible label and accessible name.")
    options = param.List(default=[], item_type=str, doc="The choices, in order, as shown.")
    value = param.String(default="", doc="The chosen option: set by the server or by the page.")

    def shown(self) -> dict:
        """What the page draws the select from (``LabStage.fields_json``)."""
        return {"kind": "select", "label": self.label, "options": list(self.options), "value": self.value}

    def take(self, sent: object) -> None:
        """Take a choice the page sent; anything but one of the options is ignored."""
        if isinstance(sent, str) and sent in self.options:
            self.value = sent
