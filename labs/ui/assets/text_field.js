// A labelled text field with its own error line (labs/ui/text_field.py): value is sent on Enter or blur.
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
    error.classList.remove("away")  // the same refusal again shows again
    if (input.value !== model.value) model.value = input.value
  }
  input.addEventListener("input", () => { editing = true })
  input.addEventListener("change", commit)
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") commit()
    if (event.key === "Escape") error.classList.add("away")
  })
  // The refusal lies over what is under the field (nothing moves); a tap puts it away.
  error.addEventListener("click", () => error.classList.add("away"))
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
      error.classList.remove("away")
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
