// Names each plot's event layer (role=img, its description from fig.tags) and keeps open data tables open
// across redraws. The CustomJS body of labs/ui/plot_text.py; args in scope: figures (the lab's plots) and
// tables (the Div of data tables). Runs once each plot is laid out and whenever the server sends new texts.
const open = tables._open ?? (tables._open = new Set())
// The name goes on the plot's tab stop, where a keyboard user lands: BokehJS 3.9's event layer, found by
// window.overlapPlotTabStop, which the BokehJS fix of app/upstream defines (assets/bokeh_fixes.js) where
// it was checked on this Bokeh. Without it, on the plot's own element through Bokeh's public
// html_attributes (no plot has a toolbar or tools): every plot is still named and nothing throws.
const tabStop = window.overlapPlotTabStop
figures.forEach((fig) => {
  const label = fig.tags[0] ?? ""
  const attributes = fig.html_attributes ?? {}
  if (tabStop) {
    // One named image per plot: the layer alone (a view not drawn yet is named when this runs again,
    // once it is laid out); a name put on the plot's own element before is taken off.
    const layer = tabStop(Bokeh.index?.find_one?.(fig))
    if (!layer) return
    layer.setAttribute("role", "img")
    layer.setAttribute("aria-label", label)
    if (attributes.role === "img") {
      const { role, "aria-label": name, ...rest } = attributes
      fig.setv({html_attributes: rest}, {sync: false})
    }
    return
  }
  if (attributes.role === "img" && attributes["aria-label"] === label) return
  fig.setv({html_attributes: {...attributes, role: "img", "aria-label": label}}, {sync: false})
})
const table_view = Bokeh.index?.find_one?.(tables)
if (!(table_view?.el instanceof Element)) return
requestAnimationFrame(() => {
  table_view.el.shadowRoot?.querySelectorAll("details[data-plot]").forEach((details) => {
    if (open.has(details.dataset.plot)) details.open = true
    if (!details._watched) {
      details._watched = true
      details.addEventListener("toggle", () => {
        if (details.open) open.add(details.dataset.plot)
        else open.delete(details.dataset.plot)
      })
    }
  })
})
