"""A lab laid out like a simulation: the picture and its time bar first, the parameters in panels.

PhET's sims are the model: the picture dominates, the time controls sit right under it, the
parameters are grouped in titled panels beside it, the rarely used ones folded away. One light
component draws that layout around a lab's Panel objects (every Panel layout object would be one
more model to build for every student), inside ``<section role="region" aria-label=...>`` so that
screen readers and role queries find the lab by its name (design.md's UI contract).

It also draws the lab's typed fields, on/off switches and selects itself (:class:`~labs.ui.text_field.TextField`,
:class:`~labs.ui.switch_field.SwitchField`, :class:`~labs.ui.select_field.SelectField`: ``param`` objects,
no components): their values go to
the page together, as one JSON text (``fields_json``, sent again when one of them changes; the page
redraws only what changed), and a value typed or ticked comes back as one message,
``{"field": i, "value": ...}``. The text also counts the messages taken, so that it changes with each
one: a value the server puts back as it was (a refused tick, "-0.0" read as the "0" the field held)
still reaches the page, which shows what it typed until the server says otherwise. A component per
field cost each session of the queue lab six components and twelve Bokeh models more.

The layout follows the lab's own width, not the window's: beside a lesson the lab is narrow and
puts its panels under the picture even on a wide screen; alone on a wide page the panels stand
beside it. In a lesson on a wide screen (``pinned``) the picture and its time bar stay at the top
of the lab's pane while the panels scroll under them, so the exercise and the picture are in one
view.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import panel as pn
import param
from panel.custom import Child, Children, JSComponent

from labs.ui import ASSETS, browser_code, stylesheet
from labs.ui.number_field import NumberField
from labs.ui.select_field import SelectField
from labs.ui.switch_field import SwitchField
from labs.ui.text_field import ERROR_LINE_EM, TextField

STAGE_JS = browser_code("fields.js", "stage.js")

FIELDS_CSS = stylesheet(ASSETS / "fields.css", ERROR_LINE_EM=ERROR_LINE_EM)
"""The look of the fields and switches the stage draws."""

DrawnField = TextField | SwitchField | SelectField

WIDE = 880
"""The lab's own width (px) from which its panels stand beside the picture."""

PINNED_FROM = 900
"""The window width (px) from which a lesson puts its lab beside the text, the picture pinned."""

PANELS_MAX = 380
"""The panels' column's width (px) beside the picture, at most (and at least 300)."""

PANELS_GAP = 16
"""The gap (px) between the picture and the panels beside it."""

STAGE_CSS = stylesheet(
    ASSETS / "stage.css", WIDE=WIDE, PINNED_FROM=PINNED_FROM, PANELS_MAX=PANELS_MAX, PANELS_GAP=PANELS_GAP
)


@dataclass(frozen=True)
class ControlGroup:
    """One titled panel of a lab's controls.

    Attributes
    ----------
    title : str
        The panel's heading, which also names it for screen readers.
    controls : tuple
        ``(key, control)`` pairs in reading order; the key (the model's control name) is what
        :meth:`LabStage.spotlight` is given. A control is a Panel object, or a field the stage
        draws itself: a :class:`~labs.ui.text_field.TextField`, a
        :class:`~labs.ui.switch_field.SwitchField`, or a :class:`~labs.ui.number_field.NumberField` (its field).
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
    controls = Children(default=[], doc="The panels' controls that are Panel objects, panel after panel.")
    keys = param.List(default=[], item_type=str, doc="Each control's key (its model control name), in order.")
    places = param.List(
        default=[],
        item_type=list,
        doc="Where each control of ``keys`` is: ['field', i] (of ``fields_json``) or ['child', j] (of ``controls``).",
    )
    fields_json = param.String(
        default='{"taken": 0, "fields": []}',
        doc="What each field and switch the stage draws shows (TextField.shown, SwitchField.shown), in order, "
        "with how many of the page's messages were taken, as JSON: what the page draws the fields from.",
    )
    groups = param.List(default=[], doc="Each panel as {title, count, collapsible, open}, in order.")
    more = Child(doc="What follows the panels: notes, secondary plots, the plots' data tables.")
    wide_from = param.Integer(
        default=PINNED_FROM, constant=True, doc="The window width (px) from which a 'wide' panel starts open."
    )

    _esm = STAGE_JS

    def __init__(self, groups: tuple[ControlGroup, ...] = (), **params):
        params.setdefault("stylesheets", [STAGE_CSS, FIELDS_CSS])
        params.setdefault("sizing_mode", "stretch_width")
        children: list = []
        places: list[list] = []
        self._fields: list[DrawnField] = []
        self._taken = 0  # the page's messages taken: part of fields_json
        for group in groups:
            for _, control in group.controls:
                drawn = drawn_field(control)
                if drawn is None:
                    places.append(["child", len(children)])
                    children.append(control)
                else:
                    places.append(["field", len(self._fields)])
                    self._fields.append(drawn)
        super().__init__(
            controls=children,
            keys=[key for group in groups for key, _ in group.controls],
            places=places,
            fields_json=fields_json(self._fields, taken=0),
            groups=[
                {"title": g.title, "count": len(g.controls), "collapsible": g.collapsible, "open": g.open}
                for g in groups
            ],
            **params,
        )
        for field in self._fields:
            field.param.watch(self._send_fields, [name for name in field.param if name != "name"])

    def _send_fields(self, *_events: param.parameterized.Event) -> None:
        """Send the page every field's state, with the count of messages taken."""
        self.fields_json = fields_json(self._fields, self._taken)

    def _handle_msg(self, msg: object) -> None:
        """A value typed (Enter or blur) or ticked in the page: ``{"field": i, "value": ...}``."""
        if not isinstance(msg, dict):
            return
        index = msg.get("field")
        if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(self._fields):
            with pn.io.hold():  # the field, the lab's redraw and the exercise's card: one message
                self._taken += 1
                self._fields[index].take(msg.get("value"))
                self._send_fields()  # sent even when the value was put back as it was

    def control(self, key: str) -> object:
        """The control placed under ``key``: a Panel object, or a field or switch the stage draws.

        Parameters
        ----------
        key : str
            A key of :attr:`keys`.

        Returns
        -------
        object
            The Panel object, :class:`~labs.ui.text_field.TextField` or :class:`~labs.ui.switch_field.SwitchField`.
        """
        kind, index = self.places[self.keys.index(key)]
        return self.controls[index] if kind == "child" else self._fields[index]

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


def fields_json(fields: list[DrawnField], taken: int) -> str:
    """What the page draws the stage's fields from: each one's state, and the messages taken so far."""
    return json.dumps({"taken": taken, "fields": [field.shown() for field in fields]})


def drawn_field(control: object) -> DrawnField | None:
    """The field or switch the stage draws for ``control``, or None for a Panel object it places.

    Parameters
    ----------
    control : object
        A control of a :class:`ControlGroup`.

    Returns
    -------
    TextField or SwitchField or SelectField or None
        ``control`` itself, or a ``NumberField``'s field.
    """
    if isinstance(control, NumberField):
        control = control.input
    return control if isinstance(control, (TextField, SwitchField, SelectField)) else None
