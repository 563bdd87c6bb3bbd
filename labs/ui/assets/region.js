// A named landmark around a lab (labs/ui/region.py): <section role=region aria-label=...>, heading, controls.
export function render({ model }) {
  const section = document.createElement("section")
  section.setAttribute("role", model.role)
  section.setAttribute("aria-label", model.label)
  section.style.width = "100%"
  if (model.heading) {
    const heading = document.createElement("h2")
    heading.textContent = model.heading
    heading.style.cssText = "margin: 4px 10px; font-size: 1.3rem; font-weight: 700"
    section.append(heading)
  }
  const controls = model.get_child("controls")
  if (controls.length) {
    const row = document.createElement("div")
    row.style.cssText = "display: flex; flex-wrap: wrap; align-items: flex-end; width: 100%"
    row.append(...controls)
    section.append(row)
  }
  section.append(model.get_child("object"))
  model.on("label", () => section.setAttribute("aria-label", model.label))
  return section
}
