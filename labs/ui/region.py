"""A landmark region with an accessible name around any Panel object."""

from __future__ import annotations

import param
from panel.custom import Child, Children, JSComponent


class NamedRegion(JSComponent):
    """Render ``<section role="region" aria-label=label>`` around a lab: heading, controls, body.

    Panel has no ARIA parameters of its own; this is the wrapper design.md asks for, so that screen
    readers and role queries find each lab by its name. It also lays out the lab's heading and its
    row of controls (wrapping on a phone) itself: every Panel layout object would be one more model
    to build for every student.
    """

    label = param.String(default="", doc="The region's accessible name, e.g. 'Queue lab'.")
    role = param.Selector(
        default="region", objects=["region", "group"], doc="The landmark's role: a region, or a group of controls."
    )
    heading = param.String(default="", doc="An optional visible heading (h2) at the top of the region.")
    controls = Children(default=[], doc="Controls shown in a row under the heading, wrapping as needed.")
    object = Child(doc="The Panel object shown inside the region, under the controls.")

    _esm = """
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
    """
