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

from labs.ui.palette import inline

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

    _esm = """
    export function render({ model }) {
      const wrapper = document.createElement("div")
      const label = document.createElement("label")
      const caption = document.createElement("span")
      const input = document.createElement("input")
      input.type = "text"
      input.inputMode = "decimal"
      input.autocomplete = "off"
      input.spellcheck = false
      label.append(caption, input)
      const error = document.createElement("p")
      error.className = "field-error"
      error.setAttribute("role", "alert")
      wrapper.append(label, error)
      let editing = false  // typed into since the last Enter or blur
      const commit = () => {
        editing = false
        if (input.value !== model.value) model.value = input.value
      }
      input.addEventListener("input", () => { editing = true })
      input.addEventListener("change", commit)
      input.addEventListener("keydown", (event) => { if (event.key === "Enter") commit() })
      const draw = {
        label: () => { caption.textContent = model.label },
        value: () => {  // never on other changes: the student may be typing
          // Nor while they are typing in it: a server change sent before their edit arrived (a Reset,
          // a preset) must not wipe it; Enter or leaving the field sends it, and the server answers.
          if (editing && input.matches(":focus")) return
          // A field whose whole text is selected (about to be typed over) stays selected: otherwise
          // the server's value lands with the caret at its end and the typing is appended to it
          // (the fuzz saw "4" + "8.6" shown as 48.6 after a Reset).
          const all = input.matches(":focus") && input.value.length > 0 &&
            input.selectionStart === 0 && input.selectionEnd === input.value.length
          input.value = model.value
          if (all) input.select()
        },
        error: () => {
          error.textContent = model.error
          input.setAttribute("aria-invalid", model.error ? "true" : "false")
        },
      }
      for (const [name, redraw] of Object.entries(draw)) {
        redraw()
        model.on(name, redraw)
      }
      return wrapper
    }
    """

    def __init__(self, **params):
        params.setdefault("stylesheets", [FIELD_CSS])
        super().__init__(**params)
