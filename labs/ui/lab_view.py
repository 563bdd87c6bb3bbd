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
from bokeh.models import Column
from bokeh.plotting import figure as Figure
from panel.viewable import Viewer

from labs.timed import TimedModel
from labs.ui.plot_text import PlotText, PlotTexts
from labs.ui.stage import ControlGroup, LabStage
from labs.ui.transport import Transport


class LabView(Viewer):
    """One student's lab: a model drawn with Bokeh, driven by Reset, Step and Play, in a named region.

    A subclass sets ``title`` (the region's accessible name and heading), builds its fields and
    plots in ``__init__`` after calling ``super().__init__``, then calls :meth:`_assemble` with its
    picture, its control panels and the rest, which draws the lab for the first time; it
    implements :meth:`_template` (the readout, with ``{t}`` and column placeholders),
    :meth:`_redraw` (its own figures from the model) and :meth:`describe_plots` (each plot in words
    and as a table, for screen readers). ``conceal`` is set by a guided exercise to hide the values
    that answer it until the student has run the lab.
    """

    title = "Lab"
    has_bars = False
    """Whether the lab draws interval bars (a Gantt) that playback clips at t; see :meth:`bar_columns`."""
    speed = "1×"
    """The speed Play starts at: every exercise's run plays in about 5 s or less at it."""

    model = param.ClassSelector(class_=TimedModel, doc="This session's model.")
    conceal = param.Boolean(
        default=False,
        doc="Hide the values that answer a guided exercise until the student has run it.",
    )
    hidden_quantity = param.String(
        default="",
        doc="While concealed, the quantity the exercise asks for (e.g. 'bucket_count'), for what only it gives away.",
    )
    placement = param.Selector(
        default="lesson",
        objects=["lesson", "page", "section"],
        constant=True,
        doc=(
            "Beside a lesson: a heading with the lab's name, the picture pinned on a wide screen. "
            "On its own page: no heading (the page's own h1 names the lab). A section of another "
            "page (the trace page's): a heading, nothing pinned."
        ),
    )

    def __init__(self, **params):
        super().__init__(**params)
        self.transport = Transport(model=self.model, bars=self.has_bars, speed=self.speed)
        self._layout: LabStage | None = None
        self._plot_texts: PlotTexts | None = None
        self._drawn: tuple | None = None

    def _assemble(
        self,
        picture: Sequence[Model],
        groups: Sequence[ControlGroup],
        more: Sequence[Model] = (),
        plots: Sequence[Figure] = (),
        key: Sequence[Model] = (),
    ) -> None:
        """Lay the lab out: the picture and its time bar and readout, the control panels, the rest.

        Parameters
        ----------
        picture : sequence of bokeh.model.Model
            The plot(s) the time bar plays, and their key, shown first.
        groups : sequence of ControlGroup
            The controls in titled panels, in reading order.
        more : sequence of bokeh.model.Model
            What comes after the panels: notes, secondary plots (one Bokeh pane for all of them).
        plots : sequence of bokeh.plotting.figure
            The plots among ``picture`` and ``more`` that :meth:`describe_plots` describes, in its
            order; their data tables go under everything else.
        key : sequence of bokeh.model.Model
            The picture's key, under the readout.
        """
        self._plot_texts = PlotTexts(plots)
        self._layout = LabStage(
            label=self.title,
            heading="" if self.placement == "page" else self.title,
            pinned=self.placement == "lesson",
            picture=self.transport.picture(*picture, after=tuple(key)),
            groups=tuple(groups),
            more=pn.pane.Bokeh(Column(children=[*more, self._plot_texts.tables], sizing_mode="stretch_width")),
        )
        self.refresh()

    def bar_columns(self) -> dict[str, list]:
        """The lab's interval bars as columns (``start``, ``end``, ``label``, ...), for ``has_bars`` labs."""
        raise NotImplementedError

    def _template(self) -> str:
        raise NotImplementedError

    def readout_room(self) -> str:
        """The longest readout the lab shows for its controls as they are, as plain text.

        The readout keeps that height from Reset to the end of a run (empty: none kept). It must
        tell nothing an exercise conceals: a fixed text, or the unconcealed readout's words with
        every figure masked.
        """
        return ""

    def describe_plots(self) -> list[PlotText]:
        """Each plot passed to :meth:`_assemble` as ``plots``, in words and as a table, as drawn now.

        What the lab conceals from the plots while an exercise runs stays out of these texts too.
        """
        return []

    def _redraw(self) -> None:
        """Draw the lab's own figures and notes from the model (the transport follows)."""
        raise NotImplementedError

    def _drawn_state(self) -> tuple:
        """Everything a redraw reads: the model's parameters, ``conceal`` and ``hidden_quantity``."""
        return (self.conceal, self.hidden_quantity, *sorted(self.model.param.values().items()))

    @param.depends("conceal", "hidden_quantity", "model.param", watch=True)
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
            self.transport.show(self._template(), self.bar_columns() if self.has_bars else None, self.readout_room())
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

    def advise(self, advice: str = "") -> None:
        """Say beside Play what a run still needs to count, without turning anything off.

        Parameters
        ----------
        advice : str
            In words for the student (e.g. which setting differs from the exercise's); empty for none.
        """
        self.transport.advice = advice

    def reset_lab(self) -> None:
        """Reset the lab as its Reset button does (an exercise's setup starts from here)."""
        self.transport.reset()

    def spotlight(self, control: str) -> None:
        """Bring a control into view and mark it: an exercise's step is about to ask for it.

        Parameters
        ----------
        control : str
            The model's name of the control, e.g. ``"bucket_cap"``.
        """
        if self._layout is not None:
            self._layout.spotlight(control)

    def show_picture(self) -> None:
        """Bring the picture and its time bar into view: an exercise's next step runs the lab."""
        if self._layout is not None:
            self._layout.show_picture()

    def listen_for_play(self, on: bool) -> None:
        """Have the page say when Play starts (one message), or stop it saying so.

        Parameters
        ----------
        on : bool
            True while a guided exercise judges as soon as Play is pressed (the model's ``judged_on_play``).
        """
        self.transport.report_play = on

    def on_play(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` each time Play starts while :meth:`listen_for_play` is on.

        Parameters
        ----------
        callback : callable
            Called with no arguments.
        """
        self.transport.param.watch(lambda _event: callback(), "plays")

    def on_reset(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` each time the student presses Reset.

        Parameters
        ----------
        callback : callable
            Called with no arguments, after the model has been reset.
        """
        self.transport.param.watch(lambda _event: callback(), "resets")

    def __panel__(self) -> LabStage:
        if self._layout is None:
            raise RuntimeError(f"{type(self).__name__} did not call _assemble()")
        return self._layout
