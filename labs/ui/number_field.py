"""A text field for one numeric control that applies on Enter or blur and refuses bad input."""

from __future__ import annotations

import param

from labs.timed import TimedModel
from labs.ui.text_field import TextField
from labs.ui.two_way import TwoWay

IN_FLIGHT_SECONDS = 10.0
"""How long after the server changed a field on its own a typed value may have crossed that change."""


class NumberField(param.Parameterized):
    """Edit one control of a :class:`~labs.timed.TimedModel` by typing an exact value.

    Its :attr:`input` is the field the lab's stage draws (:class:`~labs.ui.stage.LabStage`: a
    :class:`ControlGroup <labs.ui.stage.ControlGroup>` takes the NumberField itself).

    Text controls (a model whose ``apply`` parses the text, such as a list of layers) and optional
    controls (empty or "never" when off) work the same: the field shows ``model.shown_value``.

    The field's accessible name is the control's label plus its unit. A refused value leaves the
    model untouched and stays in the field for correction, with why (and the value kept) right
    below it; the next valid value, typed or set by the server (Reset, a preset), replaces both.
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
        self.link = TwoWay(
            self.input,
            shown=lambda: self.model.shown_value(self.control),
            apply=lambda text: self.model.apply(self.control, text),
            model=self.model,
            controls=(self.control,),
            report=self._report,
            resend_within=IN_FLIGHT_SECONDS,
            keep_refused=True,
        )

    @param.depends("error", watch=True)
    def _show_error(self) -> None:
        self.input.error = self.error

    def _report(self, message: str) -> None:
        self.error = message
