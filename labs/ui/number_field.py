"""A text field for one numeric control that applies on Enter or blur and refuses bad input."""

from __future__ import annotations

import time

import panel as pn
import param
from panel.viewable import Viewer

from labs.timed import InvalidInput, TimedModel
from labs.ui.text_field import TextField

IN_FLIGHT_SECONDS = 10.0
"""How long after the server changed a field on its own a typed value may have crossed that change."""


class NumberField(Viewer):
    """Edit one control of a :class:`~labs.timed.TimedModel` by typing an exact value.

    Text controls (a model whose ``apply`` parses the text, such as a list of layers) and optional
    controls (empty or "never" when off) work the same: the field shows ``model.shown_value``.

    The field's accessible name is the control's label plus its unit. A refused value leaves the
    model untouched, puts the last valid value back in the field and shows why, right below it.
    """

    model = param.ClassSelector(class_=TimedModel, doc="The model whose control this edits.")
    control = param.String(doc="The parameter name of the control, e.g. 'arrival_rate'.")
    unit = param.String(default="", doc="Unit shown after the label, e.g. 'units/s'.")
    error = param.String(default="", doc="Why the last typed value was refused; empty when fine.")

    def __init__(self, **params):
        super().__init__(**params)
        label = self.model.param[self.control].label
        self.input = TextField(
            label=f"{label} ({self.unit})" if self.unit else label,
            value=self.model.shown_value(self.control),
        )
        self._resending = False
        self._server_changed_at = -IN_FLIGHT_SECONDS  # when the server last changed the field itself
        self.input.param.watch(self._typed, "value")
        self.model.param.watch(self._model_changed, self.control)

    @param.depends("error", watch=True)
    def _show_error(self) -> None:
        self.input.error = self.error

    def _typed(self, event: param.parameterized.Event) -> None:
        if self._resending:
            return
        current = self.model.shown_value(self.control)
        if event.new == current:
            self.error = ""
            return
        try:
            self.model.apply(self.control, event.new)
        except InvalidInput as refusal:
            self.input.value = current  # (its own event finds the value shown and clears the error)
            self.error = str(refusal)
            return
        self.error = ""
        shown = self.model.shown_value(self.control)
        self.input.value = shown  # as the model reads it: "Never" shows "never", "1,5" shows "1.5"
        if shown == event.new and time.monotonic() - self._server_changed_at < IN_FLIGHT_SECONDS:
            # Nothing changed here, so nothing is sent; but a change the server made to this field
            # just before (a Reset, a preset) may have landed on the page after the student typed,
            # and the field would show that instead of the value in force. Send it once more, next
            # tick (now Panel would drop it as an echo of the page's own change). Only then: an
            # extra message per edit would cost a class-sized server.
            pn.state.execute(self._resend, schedule=True)

    def _resend(self) -> None:
        """Send the field's value to the page again, even though it has not changed."""
        shown = self.model.shown_value(self.control)
        self._resending = True
        try:
            with pn.io.hold():  # one message: the change to the temporary text and back combine
                self.input.value = shown + " "
                self.input.value = shown
        finally:
            self._resending = False

    def _model_changed(self, _event: param.parameterized.Event) -> None:
        shown = self.model.shown_value(self.control)
        if shown != self.input.value:  # the server's own change (Reset, a preset), not the echo of a typed one
            self._server_changed_at = time.monotonic()
        self.input.value = shown

    def __panel__(self) -> TextField:
        return self.input
