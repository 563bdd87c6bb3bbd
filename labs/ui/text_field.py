"""A labelled text field with its own error line, drawn as plain HTML by one light component.

Panel's ``TextInput`` with an error pane under it and a column around both costs three Panel
objects (and their Bokeh models) per field, built again for every student. This is one: a
``<label>`` naming an ``<input>``, and a ``role="alert"`` line under it that is empty while the
value is fine. Typing sends nothing; Enter or leaving the field sends ``value`` once, as Panel's
``TextInput`` does.

A refusal never moves anything: its line is laid over what is under the field (like a tooltip,
pointing at the field), not inserted between the field and its neighbours, and goes when the next
value is taken; a tap on it, or Escape in the field, puts it away sooner.
"""

from __future__ import annotations

import param
from panel.custom import JSComponent

from labs.ui import browser_code
from labs.ui.palette import inline

TEXT_FIELD_JS = browser_code("text_field.js")

FIELD_CSS = inline("""
:host { flex: 1 1 170px; min-width: 150px; position: relative; }
label { display: flex; flex-direction: column; gap: 3px; margin: 5px 10px; font-size: 0.9rem; }
input { font: inherit; font-size: 1rem; padding: 5px 8px; border: 1px solid var(--ol-input-edge); border-radius: 4px;
  min-width: 0; }
input:focus-visible { outline: 3px solid var(--ol-focus-orange); outline-offset: 1px; }
.field-error { position: absolute; left: 10px; right: 10px; top: calc(100% - 4px); z-index: 20; margin: 0;
  padding: 6px 8px; color: var(--ol-error-red); font-weight: 600; font-size: 0.9rem; background: var(--ol-white);
  border: 2px solid var(--ol-error-red); border-radius: 4px; box-shadow: 0 4px 10px rgba(0, 0, 0, 0.2);
  cursor: pointer; }
.field-error::before { content: ""; position: absolute; top: -8px; left: 14px; border: 6px solid transparent;
  border-top: 0; border-bottom: 6px solid var(--ol-error-red); }
.field-error:empty, .field-error.away { display: none; }
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
