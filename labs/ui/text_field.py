"""A labelled text field with its own error line: what one field holds, drawn by the lab's stage.

A Panel ``TextInput`` with an error pane under it and a column around both costs three Panel
objects (and their Bokeh models) per field, built again for every student; a component per field
still cost each lab five to eleven components and twice as many models. A field is now a plain
``param`` object: its label, its text and its refusal. The lab's :class:`~labs.ui.stage.LabStage`,
which lays the controls out anyway, draws every field of the lab in its own element
(``assets/fields.js``): a ``<label>`` naming an ``<input>``, and a ``role="alert"`` line under it
that is empty while the value is fine. Typing sends nothing; Enter or leaving the field sends the
text once, as one message, and the stage sets ``value`` here.

A refusal is a line of the layout, right under its own field: it never covers a neighbour, so
every other control can still be clicked, tapped and reached by Tab. The field is marked
``aria-invalid`` and described by that line (``aria-describedby``). What was typed stays in the
field for correction (the link, :class:`~labs.ui.two_way.TwoWay`, leaves it there; the model keeps
its value, which the message names), and focus stays where the student put it.

Nothing below the field jumps as a refusal comes and goes, in two ways:

- one line is always kept for it (:data:`ERROR_LINE_EM`), so a short refusal takes no new room;
- a longer one grows its line when it comes (the moment the student looks at this field, after
  Enter or on leaving it), and when it goes its room is held, empty, until the student is back in
  this field (focus or typing in it). A refusal going away therefore never moves a control that a
  pointer may be on its way to; only a refusal coming can, and only below its own field.

A refusal for the field the student is in is scrolled into view as it comes: on a phone, a field
reached by Tab or the keyboard's arrows sits just above a docked exercise card, which would hide the
line under it.

A refusal goes when the next value is taken: a valid one typed, or one the server sets (Reset, a
preset, an exercise's step).
"""

from __future__ import annotations

import param

ERROR_LINE_EM = 1.25
"""The room always kept under a field for its refusal: one line (in the line's own ems).

At the line's size a field as narrow as a phone gives it (about 150 px at 390 px wide) holds
about 20 characters a line, and the labs' refusals (name, why, range, what is kept) run to 60-110,
so no fixed room would hold them all without pushing every field far apart for a message most
students never see. One line is kept, and a longer refusal grows once, when it comes."""


class TextField(param.Parameterized):
    """``<label>label <input></label>`` plus an alert line; ``value`` changes on Enter or blur."""

    label = param.String(default="", doc="The field's visible label and accessible name.")
    value = param.String(default="", doc="The text: set by the server, or sent by the page on Enter or blur.")
    error = param.String(default="", doc="Why the last typed value was refused; empty when it was fine.")
    styles = param.Dict(
        default={}, doc="CSS for the field's box in its panel, e.g. {'flex': '1 1 100%'} for a line of its own."
    )

    def shown(self) -> dict:
        """What the page draws the field from (``LabStage.fields_json``)."""
        return {"kind": "text", "label": self.label, "value": self.value, "error": self.error, "styles": self.styles}

    def take(self, sent: object) -> None:
        """Take a value the page sent; anything but text is ignored."""
        if isinstance(sent, str):
            self.value = sent
