"""A checkbox with a real ``<label>``: an accessible name for screen readers and role queries.

Bokeh's ``Checkbox`` (and so Panel's) puts its text in a ``<div>`` beside the ``<input>``, which
gives the checkbox no accessible name. This light component draws ``<label><input> text</label>``
(``assets/switch_field.js``); ``value`` is sent once per click.
"""

from __future__ import annotations

from pathlib import Path

import param
from panel.custom import JSComponent

from labs.ui import ASSETS, stylesheet

SWITCH_CSS = stylesheet(ASSETS / "switch_field.css")


class SwitchField(JSComponent):
    """``<label><input type=checkbox> label</label>``; ``value`` follows the box both ways."""

    label = param.String(default="", doc="The checkbox's visible label and accessible name.")
    value = param.Boolean(default=False, doc="Whether the box is checked: set by the server or by a click.")

    _esm = Path(__file__).parent / "assets" / "switch_field.js"

    def __init__(self, **params):
        params.setdefault("stylesheets", [SWITCH_CSS])
        super().__init__(**params)
