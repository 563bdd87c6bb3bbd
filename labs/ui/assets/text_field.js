// A labelled text field with its own error line (labs/ui/text_field.py): value is sent on Enter or blur.
// A refusal is a line of the layout under the field (never over a neighbour); what was typed stays.
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
  error.id = "field-error"  // unique where it counts: this shadow root holds one field
  error.setAttribute("role", "alert")
  input.setAttribute("aria-describedby", error.id)
  wrapper.append(label, error)
  let editing = false  // typed into since the last Enter or blur
  const commit = () => {
    editing = false
    if (input.value !== model.value) model.value = input.value
  }
  // The room a refusal that went away took stays until the student is back in this field, so
  // nothing below moves while a pointer may be on its way to it (see labs/ui/text_field.py).
  const release = () => { if (!model.error) error.style.minHeight = "" }
  input.addEventListener("focus", release)
  input.addEventListener("input", () => { editing = true; release() })
  input.addEventListener("change", commit)
  input.addEventListener("keydown", (event) => { if (event.key === "Enter") commit() })
  const draw = {
    label: () => { caption.textContent = model.label },
    value: () => {  // never on other changes: the student may be typing
      // Nor while they are typing in it: a server change sent before their edit arrived (a Reset,
      // a preset) must not wipe it; Enter or leaving the field sends it, and the server answers.
      if (editing && input.matches(":focus")) return
      // A field whose whole text is selected (about to be typed over) stays selected, and so does
      // an empty one in focus: otherwise the server's value lands with the caret at its end and the
      // typing is appended to it (the fuzz saw "4" + "8.6" shown as 48.6 after a Reset; a late
      // reply on a busy server put "-8:2" in an emptied field just before "8:nan" was typed).
      const all = input.matches(":focus") &&
        input.selectionStart === 0 && input.selectionEnd === input.value.length
      input.value = model.value
      if (all) input.select()
    },
    error: () => {
      const height = error.getBoundingClientRect().height  // 0 where not laid out (a folded panel)
      if (!model.error && error.textContent && height > 0) error.style.minHeight = `${height}px`  // held: see release
      error.textContent = model.error
      input.setAttribute("aria-invalid", model.error ? "true" : "false")
      // A refusal for the field the student is in is brought on screen with it: on a phone a field
      // reached by Tab or the keyboard's arrows lands just above the docked exercise card, which
      // would hide the line under it (the page's scroll-padding keeps what is scrolled to above it).
      if (model.error && input.matches(":focus")) {
        requestAnimationFrame(() => error.scrollIntoView({ block: "nearest" }))
      }
    },
  }
  for (const [name, redraw] of Object.entries(draw)) {
    redraw()
    model.on(name, redraw)
  }
  return wrapper
}
