"""A labelled text field with its own error line, drawn as plain HTML by one light component.

Panel's ``TextInput`` with an error pane under it and a column around both costs three Panel
objects (and their Bokeh models) per field, built again for every student. This is one: a
``<label>`` naming an ``<input>``, and a ``role="alert"`` line under it that is empty while the
value is fine. Typing sends nothing; Enter or leaving the field sends ``value`` once, as Panel's
``TextInput`` does.
"""

from __future__ import annotations

import param
from panel.custom import JSComponent

from labs.ui import browser_code
from labs.ui.palette import inline

TEXT_FIELD_JS = browser_code("text_field.js")

FIELD_CSS = inline("""
:host { flex: 1 1 170px; min-width: 150px; }
label { display: flex; flex-direction: column; gap: 3px; margin: 5px 10px; font-size: 0.9rem; }
input { font: inherit; font-size: 1rem; padding: 5px 8px; border: 1px solid var(--ol-input-edge); border-radius: 4px;
  min-width: 0; }
input:focus-visible { outline: 3px solid var(--ol-focus-orange); outline-offset: 1px; }
.field-error { color: var(--ol-error-red); font-weight: 600; margin: 0 10px 4px; }
.field-error:empty { display: none; }
""")


class TextField(JSComponent):
    """``<label>label <input></label>`` plus an alert line; ``value`` changes on Enter or blur."""

    label = param.String(default="", doc="The field's visible label and accessible name.")
    value = param.String(default="", doc="The text: set by the server, or sent by the page on Enter or blur.")
    error = param.String(default="", doc="Why the last typed value was refused; empty when it was fine.")

    _esm = TEXT_FIELD_JS

    def __init__(self, **params):
        params.setdefault("stylesheets", [FIELD_CSS])
        super().__init__(**params)
