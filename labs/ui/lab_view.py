"""The shared base of every lab's view: model, transport, concealing, region, one redraw.

What reacts to what, in one place: a change to the model (a control, t, the horizon, where an
exercise pauses) or to ``conceal`` redraws the lab once (:meth:`LabView.refresh`): the lab's own
figures first, then the transport's readout and playback, then the plots' words. The transport
never calls the view back. A guided exercise drives the lab only through :meth:`LabView.gate`,
:meth:`LabView.on_reset`, ``conceal`` and the model's ``pause_at``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import panel as pn
import param
from bokeh.model import Model
from bokeh.plotting import figure as Figure
from panel.viewable import Viewer

from labs.timed import TimedModel
from labs.ui.plot_text import PlotText, PlotTexts
from labs.ui.region import NamedRegion
from labs.ui.transport import Transport


class LabView(Viewer):
    """One student's lab: a model drawn with Bokeh, driven by Reset, Step and Play, in a named region.

    A subclass sets ``title`` (the region's accessible name and heading), builds its fields and
    plots in ``__init__`` after calling ``super().__init__``, then calls :meth:`_assemble`, which
    draws the lab for the first time; it implements :meth:`_template` (the readout, with ``{t}`` and
    column placeholders), :meth:`_redraw` (its own figures from the model) and
    :meth:`describe_plots` (each plot in words and as a table, for screen readers). ``conceal`` is
    set by a guided exercise to hide the values that answer it until the student has run the lab.
    """

    title = "Lab"
    has_bars = False
    """Whether the lab draws interval bars (a Gantt) that playback clips at t; see :meth:`bar_columns`."""

    model = param.ClassSelector(class_=TimedModel, doc="This session's model.")
    conceal = param.Boolean(
        default=False,
        doc="Hide the values that answer a guided exercise until the student has run it.",
    )

    def __init__(self, **params):
        super().__init__(**params)
        self.transport = Transport(model=self.model, bars=self.has_bars)
        self._layout: NamedRegion | None = None
        self._plot_texts: PlotTexts | None = None
        self._drawn: tuple | None = None

    def _assemble(self, controls: list[pn.viewable.Viewable], *below: Model, plots: Sequence[Figure] = ()) -> None:
        """Lay the lab out: heading, a wrapping row of ``controls``, the transport, then ``below``.

        Parameters
        ----------
        controls : list of panel.viewable.Viewable
            Fields and choosers, in reading order.
        *below : bokeh.model.Model
            Plots and notes under the readout (one Bokeh pane for all of them).
        plots : sequence of bokeh.plotting.figure
            The plots among ``below`` that :meth:`describe_plots` describes, in its order; their
            data tables go under everything else.
        """
        self._plot_texts = PlotTexts(plots)
        self._layout = NamedRegion(
            label=self.title,
            heading=self.title,
            controls=controls,
            object=self.transport.view(*below, self._plot_texts.tables),
            sizing_mode="stretch_width",
        )
        self.refresh()

    def bar_columns(self) -> dict[str, list]:
        """The lab's interval bars as columns (``start``, ``end``, ``label``, ...), for ``has_bars`` labs."""
        raise NotImplementedError

    def _template(self) -> str:
        raise NotImplementedError

    def describe_plots(self) -> list[PlotText]:
        """Each plot passed to :meth:`_assemble` as ``plots``, in words and as a table, as drawn now.

        What the lab conceals from the plots while an exercise runs stays out of these texts too.
        """
        return []

    def _redraw(self) -> None:
        """Draw the lab's own figures and notes from the model (the transport follows)."""
        raise NotImplementedError

    def _drawn_state(self) -> tuple:
        """Everything a redraw reads: the model's parameters and ``conceal``."""
        return (self.conceal, *sorted(self.model.param.values().items()))

    @param.depends("conceal", "model.param", watch=True)
    def refresh(self) -> None:
        """Redraw everything from the model, sent to the page as one message; once per state.

        An edit can reach here more than once (a model that derives its horizon from a control
        sets it first, then the control's own event arrives); a state already drawn is not drawn
        again. Before :meth:`_assemble` there is nothing to draw yet.
        """
        if self._plot_texts is None:
            return
        drawn = self._drawn_state()
        if drawn == self._drawn:
            return
        self._drawn = drawn
        with pn.io.hold(self.transport.state.document):
            self._redraw()
            self.transport.show(self._template(), self.bar_columns() if self.has_bars else None)
            self._plot_texts.update(self.describe_plots())

    # -- what a guided exercise drives -------------------------------------------------------

    def gate(self, reason: str = "") -> None:
        """Turn Step and Play off, saying why beside them; an empty reason turns them back on.

        Parameters
        ----------
        reason : str
            Why Step and Play are off, in words for the student.
        """
        self.transport.param.update(allowed=not reason, reason=reason)

    def on_reset(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` each time the student presses Reset.

        Parameters
        ----------
        callback : callable
            Called with no arguments, after the model has been reset.
        """
        self.transport.param.watch(lambda _event: callback(), "resets")

    def __panel__(self) -> NamedRegion:
        if self._layout is None:
            raise RuntimeError(f"{type(self).__name__} did not call _assemble()")
        return self._layout
