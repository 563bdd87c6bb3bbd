"""The bucket timeline lab beside a measured step: filled from the trace's fit, and the two compared.

A mixin of :class:`app.trace.page.view.TraceView`, which owns ``lab``, ``lab_slot``, ``comparison``
and the step read (``_run``, ``_timeline``).
"""

from __future__ import annotations

import html
from pathlib import Path

import panel as pn
import param
from panel.custom import JSComponent

from app.trace import TraceError
from app.trace.fit import fit_network, lab_settings, readable_settings
from app.trace.page.shown import measured_window, ms
from app.trace.report import tail_text
from app.web.delivery.browser_code import script
from labs.timed import InvalidInput


class AnswerLine(JSComponent):
    """The line that answers "Open in the bucket timeline lab": brought into view and focused once per press.

    The answer is drawn below the button, often below the screen. Each press counts up ``opened``;
    the page then scrolls the line to the top and gives it focus, and only then: a later edit in the
    lab redraws the line without moving the page or taking the focus from the field being typed in.
    """

    html = param.String(default="", doc="The line: trusted HTML (the model against the measured step, or why not).")
    opened = param.Integer(default=0, bounds=(0, None), doc="Presses of the button so far.")

    _esm = script(Path(__file__).parent / "assets" / "answer_line.js")


class ModelBeside:
    """The "Open in the bucket timeline lab" button: the model filled from the measured step, and the two compared."""

    def _open_lab(self, _event: object) -> None:
        from labs.timeline.view import TimelineLab  # built only when asked for

        with pn.io.hold():  # one message with the lab as filled, not each setting on its way there
            if self.lab is None:
                self.lab = TimelineLab(placement="section")
                self.lab.model.param.watch(self._compare, list(self.lab.model.controls))
                self.lab_slot.objects = [self.lab]
            self.comparison.opened += 1  # first: the line drawn next is brought into view
            self._fill_lab()

    def _fill_lab(self) -> None:
        source = self._run if self._run is not None else self._timeline
        try:
            fit = fit_network(source)
        except TraceError as refusal:  # p unknown: say where to give it, on the page rather than the CLI's flag
            said = str(refusal).replace("(--world-size N)", "in “World size (ranks in the run)”")
            self.comparison.html = f'<p role="alert">The model cannot be filled in: {html.escape(said)}.</p>'
            return
        settings = readable_settings(lab_settings(source, fit))  # as the fields show them, and read back
        model = self.lab.model
        model.reset()
        try:
            for name in ("layers", "first_bucket_cap", "bucket_cap", "ranks", "bandwidth", "latency", "iteration"):
                model.apply(name, settings[name])
        except InvalidInput as refusal:  # the run is larger than the lab models (more ranks than its field takes)
            model.reset()
            self.comparison.html = f'<p role="alert">The model cannot be filled in: {html.escape(str(refusal))}</p>'
            return
        self._compare()

    def _compare(self, *_events: object) -> None:
        m, tl = self.lab.model, self._timeline
        measured_step = measured_window(tl)[1]
        predicted = "hangs" if m.hangs else f"step = {ms(m.step_time)} ms, tail = {ms(m.exposed)} ms"
        difference = (
            ""
            if m.hangs
            else (
                f"; the model is {ms(m.step_time - measured_step)} ms off the measured step and "
                f"{ms(m.exposed - max(tl.tail_ms, 0.0))} ms off the measured tail"
            )
        )
        self.comparison.html = (
            f'<p role="status">Model: {predicted} (from the start of backward). '
            "Measured: step = "
            f"{ms(measured_step)} ms, tail = {tail_text(tl.tail_ms)}{difference}. Change the bucket cap below to see "
            f"what the model predicts for another layout.</p>"
        )
