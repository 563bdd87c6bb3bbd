// A checkbox named by its own <label>: Bokeh's Checkbox writes its text in a <div>, which names nothing.
export function render({ model }) {
  const label = document.createElement("label")
  const box = document.createElement("input")
  box.type = "checkbox"
  const caption = document.createElement("span")
  label.append(box, caption)
  box.addEventListener("change", () => { model.value = box.checked })
  const draw = {
    label: () => { caption.textContent = model.label },
    value: () => { box.checked = model.value },
    disabled: () => { box.disabled = model.disabled },
  }
  for (const [name, redraw] of Object.entries(draw)) {
    redraw()
    model.on(name, redraw)
  }
  return label
}
