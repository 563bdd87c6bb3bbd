// labs/ui/assets/plot_text.js with fake BokehJS objects: each plot is named on BokehJS 3.9's event layer where
// app/upstream's BokehJS fix finds one (window.overlapPlotTabStop), else through the plot's public
// html_attributes, and nothing throws where members or the fix are gone.
const test = require("node:test")
const assert = require("node:assert/strict")
const fs = require("node:fs")
const path = require("node:path")

const SOURCE = fs.readFileSync(path.join(__dirname, "..", "..", "labs", "ui", "assets", "plot_text.js"), "utf-8")

class FakeElement {
  constructor() {
    this.attributes = {}
  }
  setAttribute(name, value) {
    this.attributes[name] = value
  }
}

// The CustomJS body run as BokehJS runs it: a function of its args, here with fakes for what it reads.
const FIX = fs.readFileSync(path.join(__dirname, "..", "..", "app", "upstream", "assets", "bokeh_fixes.js"), "utf-8")

function run(figures, views, fixSent = true) {
  const tables = {}
  const Bokeh = views === null ? {} : { index: { find_one: (model) => views.get(model) ?? null } }
  const window = {}
  if (fixSent) new Function("window", "Element", FIX)(window, FakeElement)  // no Bokeh.Widgets: only the tab stop
  const body = new Function("figures", "tables", "Bokeh", "Element", "requestAnimationFrame", "window", SOURCE)
  body(figures, tables, Bokeh, FakeElement, () => undefined, window)
}

function plot(label) {
  return {
    tags: [label],
    html_attributes: {},
    setv(values, options) {
      assert.deepEqual(options, { sync: false })
      Object.assign(this, values)
    },
  }
}

test("a plot whose view has BokehJS 3.9's event layer is named there", () => {
  const fig = plot("Backlog plot: grows")
  const layer = new FakeElement()
  run([fig], new Map([[fig, { canvas_view: { events_el: layer } }]]))
  assert.deepEqual(layer.attributes, { role: "img", "aria-label": "Backlog plot: grows" })
  assert.deepEqual(fig.html_attributes, {})
})

test("where app/upstream's fix was not sent the plot's own element is named, even with the layer there", () => {
  const fig = plot("Backlog plot: grows")
  const layer = new FakeElement()
  run([fig], new Map([[fig, { canvas_view: { events_el: layer } }]]), false)
  assert.deepEqual(layer.attributes, {})
  assert.deepEqual(fig.html_attributes, { role: "img", "aria-label": "Backlog plot: grows" })
})

test("with the fix sent, a view not drawn yet is named later, and only once: on its layer", () => {
  const fig = plot("Backlog plot: grows")
  run([fig], new Map())  // the view is not there yet
  assert.deepEqual(fig.html_attributes, {})
  const layer = new FakeElement()
  run([fig], new Map([[fig, { canvas_view: { events_el: layer } }]]))
  assert.deepEqual(layer.attributes, { role: "img", "aria-label": "Backlog plot: grows" })
  assert.deepEqual(fig.html_attributes, {})
})

test("a name put on the plot's own element before is taken off once the layer is named", () => {
  const fig = plot("Backlog plot: grows")
  fig.html_attributes = { role: "img", "aria-label": "Backlog plot: old", title: "kept" }
  const layer = new FakeElement()
  run([fig], new Map([[fig, { canvas_view: { events_el: layer } }]]))
  assert.deepEqual(fig.html_attributes, { title: "kept" })
})

test("without the fix the plot's own element is named through html_attributes", () => {
  const fig = plot("Backlog plot: grows")
  run([fig], new Map([[fig, { el: new FakeElement() }]]), false)
  assert.deepEqual(fig.html_attributes, { role: "img", "aria-label": "Backlog plot: grows" })
})

test("without Bokeh.index nothing throws and, without the fix, every plot is still named", () => {
  const figs = [plot("A plot: one"), plot("B plot: two")]
  run(figs, null, false)
  assert.deepEqual(
    figs.map((fig) => fig.html_attributes["aria-label"]),
    ["A plot: one", "B plot: two"],
  )
})
