"""The sample trace beside a lesson: the trace page's view with Load and Reset, driven by an exercise.

A guided exercise drives any lab through the same few calls (:class:`labs.ui.lab_view.LabView`
documents them): ``gate``, ``spotlight``, ``listen_for_play``, ``on_play``, ``on_reset``, and the
``conceal`` and ``hidden_quantity`` parameters. Here Load the sample trace plays the part of Play (the
model's ``t`` goes to 1), Reset unloads it, and nothing can be set.
"""

from __future__ import annotations

import html
from collections.abc import Callable

import panel as pn
import param

from app.trace.page.sample import SampleTraceReading
from app.trace.page.view import SAMPLE_PROMPT, TraceView
from labs.ui.region import NamedRegion
from labs.ui.styles import CONTROL_CSS

HIDDEN = "The trace's figures are hidden until you have done this exercise's steps."


class TraceLab(TraceView):
    """One student's sample trace beside a lesson: Load, Reset, the step, the buckets and the summary."""

    title = "Sample trace"

    model = param.ClassSelector(class_=SampleTraceReading, doc="This session's reading of the sample trace.")
    conceal = param.Boolean(
        default=False, doc="Hide the trace's figures while a guided exercise asks about them, until its steps are done."
    )
    hidden_quantity = param.String(default="", doc="While concealed, the quantity the exercise asks for.")

    def __init__(self, **params):
        params.setdefault("model", SampleTraceReading())
        self._plays: list[Callable[[], None]] = []
        self._resets: list[Callable[[], None]] = []
        super().__init__(own_files=False, **params)
        self.model.param.watch(self._loaded_changed, "t")

    def _lay_out(self) -> NamedRegion:
        """Load and Reset above the step picker, a line saying why Load is off, then what the trace shows."""
        self.reset = pn.widgets.Button(label="Reset", stylesheets=[CONTROL_CSS])
        self.reset.on_click(lambda _event: self._reset())
        self.hint = pn.pane.HTML("", margin=(0, 10), sizing_mode="stretch_width")
        return NamedRegion(
            label=self.title,
            heading=self.title,
            controls=[self.sample, self.reset, self.steps],
            object=pn.Column(self.hint, self.alert, self.status.pane, self.shown, sizing_mode="stretch_width"),
            sizing_mode="stretch_width",
        )

    # -- the model drives what is shown ------------------------------------------------------------

    def load_sample(self) -> None:
        """Load (the button): the model reads the sample, unless an exercise has Load off."""
        if self.sample.disabled:
            return  # a press that left the browser before the button went off
        self.model.t = self.model.horizon
        for callback in self._plays:
            callback()

    def _reset(self) -> None:
        self.model.reset()
        for callback in self._resets:
            callback()

    def _loaded_changed(self, event: param.parameterized.Event) -> None:
        if self.model.loaded:
            super().load_sample()
        else:
            self.clear()
        self._concealed()

    @param.depends("conceal", watch=True)
    def _concealed(self) -> None:
        """While an exercise conceals, the picture and tables are off and the readout says why."""
        self.shown.visible = not self.conceal
        if self.conceal and self.model.loaded:
            self.status.show(html.escape(HIDDEN))
        elif self.model.loaded:
            self.status.show(self._shown or self.prompt)

    def _show(self) -> None:
        super()._show()
        if self.conceal and self.model.loaded:
            self.status.show(html.escape(HIDDEN))

    # -- what a guided exercise drives ---------------------------------------------------------------

    def gate(self, reason: str = "") -> None:
        """Turn Load off, saying why beside it; an empty reason turns it back on.

        Parameters
        ----------
        reason : str
            Why Load is off, in words for the student.
        """
        self.sample.disabled = bool(reason)
        self.hint.object = f'<p class="gate">{html.escape(reason)}</p>' if reason else ""
        # The status line's invitation names the step that comes first while Load is off, never a press of it.
        self.prompt = html.escape(f"{reason} Then press it to read the sample's buckets.") if reason else SAMPLE_PROMPT
        if not self.model.loaded:
            self.status.show(self.prompt)

    def advise(self, advice: str = "") -> None:
        """Say beside Load what a run still needs to count (an exercise's setup), while Load is on.

        Parameters
        ----------
        advice : str
            In words for the student; empty for none.
        """
        if not self.sample.disabled:
            self.hint.object = f'<p class="gate">{html.escape(advice)}</p>' if advice else ""

    def reset_lab(self) -> None:
        """Reset as the Reset button does: unload the sample."""
        self._reset()

    def spotlight(self, control: str) -> None:
        """Nothing to bring into view: the sample trace has no controls an exercise sets.

        Parameters
        ----------
        control : str
            Unused.
        """

    def show_picture(self) -> None:
        """Nothing to bring back into view: Load sits above what the trace shows."""

    def listen_for_play(self, on: bool) -> None:
        """Nothing to listen for: Load itself tells the exercise (:meth:`on_play`).

        Parameters
        ----------
        on : bool
            Unused.
        """

    def on_play(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` each time Load reads the sample.

        Parameters
        ----------
        callback : callable
            Called with no arguments, after the model has loaded.
        """
        self._plays.append(callback)

    def on_reset(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` each time the student presses Reset.

        Parameters
        ----------
        callback : callable
            Called with no arguments, after the model has been reset.
        """
        self._resets.append(callback)
