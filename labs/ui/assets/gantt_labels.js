// The CustomJSTransform of the Gantt's bar labels (labs/timeline/figures.py): xs is the label column.
// A bar keeps its label if it fits inside the bar at the plot's width now, else its short form
// (a layer's number) if that fits, else nothing; a tick mark (▲ ▼) is always drawn.
// Args in scope: source (the bars' ColumnDataSource), fig (the Gantt).
const data = source.data
const range = fig.x_range
let inner = 0
try { inner = fig.inner_width } catch (unset) {}  // Bokeh sets it once the plot is laid out (then refits)
const px = inner > 0 && range.end > range.start ? inner / (range.end - range.start) : 0
const measure = globalThis._olLabelWidth ?? (globalThis._olLabelWidth = (() => {
  const context = document.createElement("canvas").getContext("2d")
  return (text, font) => {
    context.font = `${font} helvetica, arial, sans-serif`
    return context.measureText(text).width
  }
})())
return xs.map((text, i) => {
  if (!text || data.kind[i] === "tick") return text
  const width = (data.end[i] - data.start[i]) * px - 6  // the label starts 3 px in and keeps 3 px clear
  if (measure(text, data.font[i]) <= width) return text
  const short = data.short ? data.short[i] : ""
  return short && measure(short, data.font[i]) <= width ? short : ""
})
