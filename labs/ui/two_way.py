"""One rule for keeping a widget's value and a model's control in step both ways, without echoes.

A widget (a :class:`~labs.ui.text_field.TextField`, a Select, a checkbox) shows what a model holds,
and a value the page sends changes the model unless it is refused. :class:`TwoWay` is that link,
over ``param.watch``:

- **page to model**: a value that is already in force changes nothing; any other is applied, and a
  refusal puts the value in force back in the widget;
- **model to page**: :meth:`TwoWay.show` writes what the model reads as now into the widget, on a
  watched control's change or when its owner calls it (a redraw that first updates the options);
- **no echo**: the widget's own events caused by the link's writes are ignored, so a value shown
  back is never applied again, and a change never comes back as another change.

Panel's ``.link(..., bidirectional=True)`` and ``pn.bind`` copy values as they are; they cannot
refuse one, nor show a value the way the model reads it ("1,5" as "1.5").

A text field can also resend a value that crossed a server change on its way (see
``resend_within``): the race it covers is described at :meth:`TwoWay._widget_changed`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import panel as pn
import param

from labs.timed import InvalidInput


class TwoWay:
    """Keep ``widget.value`` and a model's control in step both ways; refuse bad values.

    Parameters
    ----------
    widget : param.Parameterized
        The widget; its ``value`` is what the page shows and sends.
    shown : callable
        ``shown()``: the widget value the model's state reads as now.
    apply : callable
        ``apply(value)``: put a value from the page into the model; raises
        :class:`~labs.timed.InvalidInput` to refuse it (nothing may change then).
    model : param.Parameterized, optional
        The model whose ``controls`` are watched; without it, the owner calls :meth:`show`.
    controls : sequence of str
        The model's parameters whose changes are shown in the widget.
    in_force : callable, optional
        ``in_force(value)``: whether a value from the page needs no applying; by default,
        whether it equals ``shown()``.
    report : callable, optional
        ``report(message)``: called with ``""`` whenever the widget comes to show the value in
        force, and with the refusal's message when a value is refused.
    resend_within : float, optional
        For text values: seconds after the link changed the widget itself during which an
        applied value that reads unchanged is sent to the page once more (next tick).
    """

    def __init__(
        self,
        widget: param.Parameterized,
        shown: Callable[[], Any],
        apply: Callable[[Any], object],
        *,
        model: param.Parameterized | None = None,
        controls: Sequence[str] = (),
        in_force: Callable[[Any], bool] | None = None,
        report: Callable[[str], None] | None = None,
        resend_within: float | None = None,
    ) -> None:
        self.widget = widget
        self.shown = shown
        self._apply = apply
        self._in_force = in_force or (lambda value: value == shown())
        self._report = report or (lambda _message: None)
        self.resend_within = resend_within
        self._writing = False
        self._shown_changed_at = -float("inf")  # when the link last changed the widget on the model's behalf
        widget.param.watch(self._widget_changed, "value")
        if model is not None and controls:
            model.param.watch(lambda _event: self.show(), list(controls))

    def show(self) -> None:
        """Show the model's value in the widget, if it shows something else (model to page)."""
        shown = self.shown()
        if shown == self.widget.value:
            return
        self._shown_changed_at = time.monotonic()
        self._write(shown)
        self._report("")

    def _write(self, value: Any) -> None:
        """Set the widget's value without taking it for a value from the page."""
        self._writing = True
        try:
            self.widget.value = value
        finally:
            self._writing = False

    def _widget_changed(self, event: param.parameterized.Event) -> None:
        """Apply a value from the page (page to model), or refuse it and show the value in force.

        The race ``resend_within`` covers: the server changed the field itself (a Reset, a preset)
        just before the student's edit reached it, so that change may land on the page after the
        edit and show instead of the value in force. If the edit reads unchanged, nothing would be
        sent (Panel drops it as an echo of the page's own change), so it is sent once more, next
        tick. Only then: an extra message per edit would cost a class-sized server.
        """
        if self._writing:
            return
        if self._in_force(event.new):
            self._report("")
            return
        try:
            self._apply(event.new)
        except InvalidInput as refusal:
            self._write(self.shown())
            self._report("")
            self._report(str(refusal))
            return
        self._report("")
        shown = self.shown()
        self._write(shown)  # as the model reads it: "Never" shows "never", "1,5" shows "1.5"
        window = self.resend_within
        if window is not None and shown == event.new and time.monotonic() - self._shown_changed_at < window:
            pn.state.execute(self._resend, schedule=True)

    def _resend(self) -> None:
        """Send the widget's (text) value to the page again, even though it has not changed."""
        shown = self.shown()
        self._writing = True
        try:
            with pn.io.hold():  # one message: the change to the temporary text and back combine
                self.widget.value = shown + " "
                self.widget.value = shown
        finally:
            self._writing = False
