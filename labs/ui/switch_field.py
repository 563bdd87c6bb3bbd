"""A checkbox with a real ``<label>``: an accessible name for screen readers and role queries.

Bokeh's ``Checkbox`` (and so Panel's) puts its text in a ``<div>`` beside the ``<input>``, which
gives the checkbox no accessible name. This light component draws ``<label><input> text</label>``
(``assets/switch_field.js``); ``value`` is sent once per click.
"""

from __future__ import annotations

from pathlib import Path

import param
from panel.custom import JSComponent

from labs.ui.palette import inline

SWITCH_CSS = inline("""
:host { flex: 1 1 240px; }
label { display: flex; align-items: center; gap: 6px; margin: 8px 10px; font-size: 0.9rem; cursor: pointer; }
input { width: 1.1rem; height: 1.1rem; margin: 0; font-size: inherit; }
input:focus-visible { outline: 3px solid var(--ol-focus-orange); outline-offset: 2px; }
""")


class SwitchField(JSComponent):
    """``<label><input type=checkbox> label</label>``; ``value`` follows the box both ways."""

    label = param.String(default="", doc="The checkbox's visible label and accessible name.")
    value = param.Boolean(default=False, doc="Whether the box is checked: set by the server or by a click.")

    _esm = Path(__file__).parent / "assets" / "switch_field.js"

    def __init__(self, **params):
        params.setdefault("stylesheets", [SWITCH_CSS])
        super().__init__(**params)
