"""The shared base of every lab's view: model, transport, concealing, region, one redraw."""

from __future__ import annotations

import panel as pn
import param
from bokeh.model import Model
from panel.viewable import Viewer

from labs.timed import TimedModel
from labs.ui.playback import Transport
from labs.ui.region import NamedRegion


class LabView(Viewer):
    """One student's lab: a model drawn with Bokeh, driven by Reset, Step and Play, in a named region.

    A subclass sets ``title`` (the region's accessible name and heading), builds its fields and
    plots in ``__init__`` after calling ``super().__init__``, then calls :meth:`_assemble`; it
    implements :meth:`_template` (the readout, with ``{t}`` and column placeholders) and
    :meth:`_redraw` (everything from the model). ``conceal`` is set by a guided exercise to hide the
    values that answer it until the student has run the lab.
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
        self.transport = Transport(
            model=self.model,
            template=self._template,
            redraw=self.refresh,
            bars=self.bar_columns if self.has_bars else None,
        )
        self._layout: NamedRegion | None = None

    def _assemble(self, controls: list[pn.viewable.Viewable], *below: Model) -> None:
        """Lay the lab out: heading, a wrapping row of ``controls``, the transport, then ``below``.

        Parameters
        ----------
        controls : list of panel.viewable.Viewable
            Fields and choosers, in reading order.
        *below : bokeh.model.Model
            Plots and notes under the readout (one Bokeh pane for all of them).
        """
        self._layout = NamedRegion(
            label=self.title,
            heading=self.title,
            controls=controls,
            object=self.transport.view(*below),
            sizing_mode="stretch_width",
        )

    def bar_columns(self) -> dict[str, list]:
        """The lab's interval bars as columns (``start``, ``end``, ``label``, ...), for ``has_bars`` labs."""
        raise NotImplementedError

    def _template(self) -> str:
        raise NotImplementedError

    def _redraw(self) -> None:
        raise NotImplementedError

    def refresh(self, *_events: param.parameterized.Event) -> None:
        """Redraw everything from the model, sent to the page as one message."""
        with pn.io.hold(self.transport.state.document):
            self._redraw()

    def __panel__(self) -> NamedRegion:
        if self._layout is None:
            raise RuntimeError(f"{type(self).__name__} did not call _assemble()")
        return self._layout
