"""A checkbox with a real ``<label>``: an accessible name for screen readers and role queries.

Bokeh's ``Checkbox`` (and so Panel's) puts its text in a ``<div>`` beside the ``<input>``, which
gives the checkbox no accessible name. A switch is a plain ``param`` object (its label and whether
it is on); the lab's :class:`~labs.ui.stage.LabStage` draws it as ``<label><input> text</label>``
(``assets/fields.js``), and a click sends the new state as one message.
"""

from __future__ import annotations

import param


class SwitchField(param.Parameterized):
    """``<label><input type=checkbox> label</label>``; ``value`` follows the box both ways."""

    label = param.String(default="", doc="The checkbox's visible label and accessible name.")
    value = param.Boolean(default=False, doc="Whether the box is checked: set by the server or by a click.")

    def shown(self) -> dict:
        """What the page draws the switch from (``LabStage.fields_json``)."""
        return {"kind": "switch", "label": self.label, "value": self.value}

    def take(self, sent: object) -> None:
        """Take a state the page sent; anything but true or false is ignored."""
        if isinstance(sent, bool):
            self.value = sent
