// The lab's typed fields and on/off switches (labs/ui/text_field.py, labs/ui/switch_field.py), drawn by
// the stage in its own element. Each is made by textField or switchField, given its index and send(msg),
// and redrawn by update(state) with what the server holds for it (an entry of the stage's fields_json).
// A field's text goes to the server as one message on Enter or blur; a box's state on each click.

// `value` is the value the page and the server last agreed on: the server's, or the one this page sent
// since. As with a property the page sets, the server's next value is drawn only where it differs.
function textField(index, send) {
  const wrapper = document.createElement("div")
  wrapper.className = "text-field"
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
  error.id = `field-error-${index}`
  error.setAttribute("role", "alert")
  input.setAttribute("aria-describedby", error.id)
  wrapper.append(label, error)
  let value = null
  let refusal = ""
  let last = {}  // the server's last state for this field
  let editing = false  // typed into since the last Enter or blur
  const commit = () => {
    editing = false
    if (input.value !== value) {
      value = input.value
      send({ field: index, value })
    }
  }
  // The room a refusal that went away took stays until the student is back in this field, so
  // nothing below moves while a pointer may be on its way to it (see labs/ui/text_field.py).
  const release = () => { if (!refusal) error.style.minHeight = "" }
  input.addEventListener("focus", release)
  input.addEventListener("input", () => { editing = true; release() })
  input.addEventListener("change", commit)
  input.addEventListener("keydown", (event) => { if (event.key === "Enter") commit() })
  const showValue = () => {  // never on other changes: the student may be typing
    // Nor while they are typing in it: a server change sent before their edit arrived (a Reset,
    // a preset) must not wipe it; Enter or leaving the field sends it, and the server answers.
    if (editing && input.matches(":focus")) return
    // A field whose whole text is selected (about to be typed over) stays selected, and so does
    // an empty one in focus: otherwise the server's value lands with the caret at its end and the
    // typing is appended to it (the fuzz saw "4" + "8.6" shown as 48.6 after a Reset; a late
    // reply on a busy server put "-8:2" in an emptied field just before "8:nan" was typed).
    const all = input.matches(":focus") &&
      input.selectionStart === 0 && input.selectionEnd === input.value.length
    input.value = value
    if (all) input.select()
  }
  const showError = () => {
    const height = error.getBoundingClientRect().height  // 0 where not laid out (a folded panel)
    if (!refusal && error.textContent && height > 0) error.style.minHeight = `${height}px`  // held: see release
    error.textContent = refusal
    input.setAttribute("aria-invalid", refusal ? "true" : "false")
    // A refusal for the field the student is in is brought on screen with it: on a phone a field
    // reached by Tab or the keyboard's arrows lands just above the docked exercise card, which
    // would hide the line under it (the page's scroll-padding keeps what is scrolled to above it).
    // In a lesson the stage then lifts the field's label out from under its pinned picture.
    if (refusal && input.matches(":focus")) {
      requestAnimationFrame(() => {
        error.scrollIntoView({ block: "nearest" })
        wrapper.dispatchEvent(new CustomEvent("overlap-uncover", { bubbles: true, composed: true }))
      })
    }
  }
  const update = (state) => {
    if (state.label !== last.label) caption.textContent = state.label
    if (JSON.stringify(state.styles) !== JSON.stringify(last.styles)) {
      for (const [name, setting] of Object.entries(state.styles || {})) wrapper.style.setProperty(name, setting)
    }
    if (state.value !== value) {
      value = state.value
      showValue()
    }
    if (state.error !== last.error) {
      refusal = state.error
      showError()
    }
    last = state
  }
  return { element: wrapper, update }
}

// A checkbox named by its own <label>: Bokeh's Checkbox writes its text in a <div>, which names nothing.
function switchField(index, send) {
  const wrapper = document.createElement("div")
  wrapper.className = "switch-field"
  const label = document.createElement("label")
  const box = document.createElement("input")
  box.type = "checkbox"
  const caption = document.createElement("span")
  label.append(box, caption)
  wrapper.append(label)
  let value = null
  let last = {}
  box.addEventListener("change", () => {
    value = box.checked
    send({ field: index, value })
  })
  const update = (state) => {
    if (state.label !== last.label) caption.textContent = state.label
    if (state.value !== value) {
      value = state.value
      box.checked = value
    }
    last = state
  }
  return { element: wrapper, update }
}

// A choice from a list: the page sends the option picked; the server's value is drawn where it differs
// from the one this page last sent or drew (see labs/ui/select_field.py for the race this closes).
function selectField(index, send) {
  const wrapper = document.createElement("div")
  wrapper.className = "select-field"
  // The label names the select by its id, beside it, not around it: a label around a <select> reads all
  // its options as its text (el.labels[0].textContent), and its accessible name repeats the choice.
  const label = document.createElement("label")
  const caption = document.createElement("span")
  const select = document.createElement("select")
  select.id = `select-field-${index}`
  label.htmlFor = select.id
  label.append(caption)
  wrapper.append(label, select)
  let value = null
  let last = {}
  select.addEventListener("change", () => {
    value = select.value
    send({ field: index, value })
  })
  const update = (state) => {
    if (state.label !== last.label) caption.textContent = state.label
    if (JSON.stringify(state.options) !== JSON.stringify(last.options)) {
      select.replaceChildren(...state.options.map((text) => new Option(text, text)))
      value = null  // drawn again below
    }
    if (state.value !== value) {
      value = state.value
      select.value = value
    }
    last = state
  }
  return { element: wrapper, update }
}

const FIELD_KINDS = { text: textField, switch: switchField, select: selectField }
