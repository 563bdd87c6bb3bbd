"""One rule for keeping a widget's value and a model's control in step both ways, without echoes.

A widget (a :class:`~labs.ui.text_field.TextField`, a Select, a checkbox) shows what a model holds,
and a value the page sends changes the model unless it is refused. :class:`TwoWay` is that link,
over ``param.watch``:

- **page to model**: a value that is already in force changes nothing; any other is applied. A
  refusal leaves the model as it was; a text field (``keep_refused``) keeps the refused text for
  the student to correct (the refusal's message names the value kept), any other widget (a
  Select has no line to say why) shows the value in force again;
- **model to page**: :meth:`TwoWay.show` writes what the model reads as now into the widget, on a
  watched control's change or when its owner calls it (a redraw that first updates the options).
  A watched control set by the server even to the value it had (a Reset, a preset, an exercise's
  step) counts too: it replaces a refused value still in the widget, and clears the refusal;
- **no echo**: the widget's own events caused by the link's writes are ignored, so a value shown
  back is never applied again, and a change never comes back as another change.

Panel's ``.link(..., bidirectional=True)`` and ``pn.bind`` copy values as they are; they cannot
refuse one, nor show a value the way the model reads it ("1,5" as "1.5").

A text field can also resend a value that crossed a server change on its way (see
``resend_within``): the race it covers is described at :meth:`TwoWay._widget_changed`; a refused
value is resent the same way, so the page shows the text the refusal is about.
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
        applied value that reads unchanged, or a refused one kept, is sent to the page once more
        (next tick).
    keep_refused : bool, optional
        Leave a refused value in the widget (a text field, which shows the refusal under it)
        instead of showing the value in force again.
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
        keep_refused: bool = False,
    ) -> None:
        self.widget = widget
        self.shown = shown
        self._apply = apply
        self._in_force = in_force or (lambda value: value == shown())
        self._report = report or (lambda _message: None)
        self.resend_within = resend_within
        self.keep_refused = keep_refused
        self._writing = False
        self._shown_changed_at = -float("inf")  # when the link last changed the widget on the model's behalf
        widget.param.watch(self._widget_changed, "value")
        if model is not None and controls:
            # onlychanged=False: a Reset to the value in force must still replace a refused text.
            model.param.watch(lambda _event: self.show(), list(controls), onlychanged=False)

    def show(self) -> None:
        """Show the model's value in the widget, if it shows something else (model to page)."""
        shown = self.shown()
        if shown == self.widget.value:
            return
        self._write(shown)
        self._report("")

    def _write(self, value: Any) -> None:
        """Set the widget's value without taking it for a value from the page.

        A value the page does not have yet is on its way to it, and may cross the student's next
        edit there: its time starts the ``resend_within`` window.
        """
        if value != self.widget.value:
            self._shown_changed_at = time.monotonic()
        self._writing = True
        try:
            self.widget.value = value
        finally:
            self._writing = False

    def _widget_changed(self, event: param.parameterized.Event) -> None:
        """Apply a value from the page (page to model), or refuse it and leave it for correction.

        The model is unchanged by a refused value. With ``keep_refused`` it stays in the widget
        (the page shows what was typed, next to the refusal, which names the value kept) until
        the next value the page sends or the server shows; otherwise the value in force is shown.

        The race ``resend_within`` covers: the server changed the field itself (a Reset, a preset,
        a value shown as the model reads it, an earlier resend) just before the student's edit
        reached it, so that change may land on the page after the edit and show instead of the
        edit. If the edit reads unchanged, or is refused, nothing
        would be sent (Panel drops it as an echo of the page's own change), so it is sent once
        more, next tick. Only then: an extra message per edit would cost a class-sized server.
        """
        if self._writing:
            return
        if self._in_force(event.new):
            self._report("")
            return
        window = self.resend_within
        crossed = window is not None and time.monotonic() - self._shown_changed_at < window
        try:
            self._apply(event.new)
        except InvalidInput as refusal:
            if not self.keep_refused:
                self._write(self.shown())
            self._report("")  # the same refusal again is announced again
            self._report(str(refusal))
            if self.keep_refused and crossed:
                pn.state.execute(lambda: self._resend(event.new), schedule=True)
            return
        self._report("")
        shown = self.shown()
        self._write(shown)  # as the model reads it: "Never" shows "never", "1,5" shows "1.5"
        if crossed and shown == event.new:
            pn.state.execute(lambda: self._resend(shown), schedule=True)

    def _resend(self, text: str) -> None:
        """Send ``text`` (the widget's value) to the page again, even though it has not changed."""
        if self.widget.value != text:
            return  # something newer has been shown since
        # The resent text is on its way to the page too: an edit typed there before it lands reads
        # unchanged here as well, and is resent in its turn (the fuzz saw a field left showing the
        # edit before last, 17.769901, while the model held the last, 29.46).
        self._shown_changed_at = time.monotonic()
        self._writing = True
        try:
            with pn.io.hold():  # one message: the change to the temporary text and back combine
                self.widget.value = text + " "
                self.widget.value = text
        finally:
            self._writing = False
