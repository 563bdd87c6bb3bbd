// Two fixes to BokehJS 3.9's widget views, each patching a class found by name among a Button
// view's ancestors; neither applies where the class or the members it replaces are missing.
//
// BokehJS 3.9 connects a new layout's views to their models before it draws them, and a layout
// holding a JS component waits for that component's module in between. The controls' views
// (buttons, selects, inputs, sliders) update their elements from the moment they are connected:
// a change that arrives in that wait (Step turned on as the student locks a prediction while the
// lab arrives) finds no element yet and throws, for example "Cannot read properties of undefined
// (reading 'removeAttribute')", and the rest of that message is never applied.
// Here, while a control's elements do not exist yet, its views' updates that fail for that reason
// (a TypeError) are dropped: the view draws its elements from the model's state once it renders.
// Once drawn, every update runs and fails as before.
//
// BokehJS 3.9 answers a button's label change by removing the label's view, building a new one
// (an await), and then drawing a new <button> (AbstractButtonView.connect_signals). In between
// the old button is empty and shrinks, and then it is replaced: a click aimed at Pause as Play
// becomes Pause lands on the page behind it, keyboard focus falls to <body>, and a screen reader
// loses its place. Here a label that is text and stays text is changed in place: the label's Text
// model takes the new words, its view writes them into the same text node, and the redraw that
// BokehJS asks for next is skipped while the button is drawn and up to date. Any other label
// (a DOM node, the first build, a button not drawn) takes BokehJS's own way.
(function () {
  const widgets = window.Bokeh && window.Bokeh.Widgets
  if (!widgets || !widgets.Button) return
  const ancestor = (name) => {
    let view = widgets.Button.prototype.default_view
    while (view && !(Object.hasOwn(view, "__name__") && view.__name__ === name)) view = Object.getPrototypeOf(view)
    return view
  }

  function guardUntilDrawn(control) {
    if (!control || Object.hasOwn(control.prototype, "connect")) return
    const { connect, disconnect } = control.prototype
    const drawn = (view) => {
      try {
        for (const el of view.controls()) {
          if (el == null) return false
        }
        return true
      } catch (error) {
        return false
      }
    }
    control.prototype.connect = function (signal, slot) {
      this.__beforeDrawn ??= new WeakMap()
      let guarded = this.__beforeDrawn.get(slot)
      if (guarded == null) {
        const view = this
        guarded = function (...args) {
          if (drawn(view)) return slot.apply(this, args)
          try {
            return slot.apply(this, args)
          } catch (error) {
            if (!(error instanceof TypeError)) throw error
          }
        }
        this.__beforeDrawn.set(slot, guarded)
      }
      return connect.call(this, signal, guarded)
    }
    control.prototype.disconnect = function (signal, slot) {
      return disconnect.call(this, signal, this.__beforeDrawn?.get(slot) ?? slot)
    }
  }

  function changeLabelsInPlace(button) {
    if (!button || Object.hasOwn(button.prototype, "rerender")) return
    const { _rebuild_label: rebuild, rerender } = button.prototype
    if (typeof rebuild !== "function" || typeof rerender !== "function") return
    const drawnText = (view) => {
      const text = view.label_view
      return text != null && typeof text.model?.content === "string" && text.el instanceof Text &&
        view.button_el instanceof Element && view.button_el.isConnected && view.button_el.contains(text.el)
    }
    button.prototype._rebuild_label = async function () {
      const { label } = this.model
      if (typeof label === "string" && drawnText(this)) {
        this.label_view.model.content = label
        this.__labelInPlace = true
        return
      }
      return rebuild.call(this)
    }
    button.prototype.rerender = function () {
      if (this.__labelInPlace) {
        this.__labelInPlace = false
        const el = this.button_el
        if (drawnText(this) && el.disabled === Boolean(this.model.disabled)) return
      }
      return rerender.call(this)
    }
  }

  guardUntilDrawn(ancestor("ControlView"))
  changeLabelsInPlace(ancestor("AbstractButtonView"))
})()

// A plot's keyboard stop in BokehJS 3.9 is its canvas's event layer (a div with tabindex 0), not
// the plot's own element: a keyboard user lands there. The labs' plot descriptions
// (labs/ui/assets/plot_text.js) name that layer through this function, the one place a page reads
// the member; where this script is not sent (another BokehJS) they name the plot's own element.
window.overlapPlotTabStop = (view) => {
  const layer = view && view.canvas_view && view.canvas_view.events_el
  return typeof Element !== "undefined" && layer instanceof Element ? layer : null
}
