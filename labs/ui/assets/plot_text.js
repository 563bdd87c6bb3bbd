// Names each plot's event layer (role=img, its description from fig.tags) and keeps open data tables open
// across redraws. The CustomJS body of labs/ui/plot_text.py; args in scope: figures (the lab's plots) and
// tables (the Div of data tables). Runs once each plot is laid out and whenever the server sends new texts.
const open = tables._open ?? (tables._open = new Set())
figures.forEach((fig, i) => {
  const view = Bokeh.index.find_one(fig)
  if (view == null) return
  const layer = view.canvas_view.events_el
  layer.setAttribute("role", "img")
  layer.setAttribute("aria-label", fig.tags[0] ?? "")
})
const table_view = Bokeh.index.find_one(tables)
if (table_view == null) return
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
