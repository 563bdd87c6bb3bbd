"""A lab laid out like a simulation: the picture and its time bar first, the parameters in panels.

PhET's sims are the model: the picture dominates, the time controls sit right under it, the
parameters are grouped in titled panels beside it, the rarely used ones folded away. One light
component draws that layout around a lab's Panel objects (every Panel layout object would be one
more model to build for every student), inside ``<section role="region" aria-label=...>`` so that
screen readers and role queries find the lab by its name (design.md's UI contract).

The layout follows the lab's own width, not the window's: beside a lesson the lab is narrow and
puts its panels under the picture even on a wide screen; alone on a wide page the panels stand
beside it. In a lesson on a wide screen (``pinned``) the picture and its time bar stay at the top
of the lab's pane while the panels scroll under them, so the exercise and the picture are in one
view.
"""

from __future__ import annotations

from dataclasses import dataclass

import param
from panel.custom import Child, Children, JSComponent

from labs.ui import ASSETS, browser_code, stylesheet

STAGE_JS = browser_code("stage.js")

WIDE = 880
"""The lab's own width (px) from which its panels stand beside the picture."""

PINNED_FROM = 900
"""The window width (px) from which a lesson puts its lab beside the text, the picture pinned."""

STAGE_CSS = stylesheet(ASSETS / "stage.css", WIDE=WIDE, PINNED_FROM=PINNED_FROM)


@dataclass(frozen=True)
class ControlGroup:
    """One titled panel of a lab's controls.

    Attributes
    ----------
    title : str
        The panel's heading, which also names it for screen readers.
    controls : tuple
        ``(key, Panel object)`` pairs in reading order; the key (the model's control name) is what
        :meth:`LabStage.spotlight` is given.
    collapsible : bool
        A panel of rarely used controls: a disclosure (``<details>``) the student opens.
    open : bool or "wide"
        Whether a collapsible panel starts open; ``"wide"``: open on a wide screen (from
        :data:`PINNED_FROM` px), folded on a phone.
    """

    title: str
    controls: tuple
    collapsible: bool = False
    open: bool | str = "wide"


class LabStage(JSComponent):
    """A lab's region: the picture (plot, time bar, readout), its control panels, then the rest."""

    label = param.String(default="", doc="The region's accessible name, e.g. 'Queue lab'.")
    heading = param.String(default="", doc="An optional visible heading (h2); a lab page's own h1 names it there.")
    pinned = param.Boolean(
        default=False, doc="Keep the picture at the top of a lesson's lab pane on a wide screen (see PINNED_FROM)."
    )
    picture = Child(doc="The plot with its time bar and readout: what the student watches.")
    controls = Children(default=[], doc="Every control of every panel, panel after panel.")
    keys = param.List(default=[], item_type=str, doc="Each control's key (its model control name), in order.")
    groups = param.List(default=[], doc="Each panel as {title, count, collapsible, open}, in order.")
    more = Child(doc="What follows the panels: notes, secondary plots, the plots' data tables.")
    wide_from = param.Integer(
        default=PINNED_FROM, constant=True, doc="The window width (px) from which a 'wide' panel starts open."
    )

    _esm = STAGE_JS

    def __init__(self, groups: tuple[ControlGroup, ...] = (), **params):
        params.setdefault("stylesheets", [STAGE_CSS])
        params.setdefault("sizing_mode", "stretch_width")
        super().__init__(
            controls=[control for group in groups for _, control in group.controls],
            keys=[key for group in groups for key, _ in group.controls],
            groups=[
                {"title": g.title, "count": len(g.controls), "collapsible": g.collapsible, "open": g.open}
                for g in groups
            ],
            **params,
        )

    def spotlight(self, key: str) -> None:
        """Bring the control ``key`` into view in the page, opening its panel, and mark it briefly.

        Parameters
        ----------
        key : str
            A key of :attr:`keys`; any other is ignored by the page.
        """
        self._send_msg({"spotlight": key})

    def show_picture(self) -> None:
        """Bring the picture and its time bar into view in the page (the next step runs the lab)."""
        self._send_msg({"picture": True})
