// The line that answers "Open in the bucket timeline lab" (app/trace/page/beside.py's AnswerLine): drawn
// as the server gives it, and brought into view with focus once per press of the button (``opened``).
export function render({ model }) {
  const box = document.createElement("div")
  let seen = model.opened
  let shown = null
  const draw = () => {
    if (model.html !== shown) box.innerHTML = shown = model.html  // the same line stays the same element
    if (model.opened === seen || !box.firstElementChild) return
    seen = model.opened
    requestAnimationFrame(() => {
      const line = box.firstElementChild  // as drawn by then
      if (!line) return
      line.tabIndex = -1
      line.scrollIntoView({ block: "start" })
      line.focus({ preventScroll: true })
    })
  }
  draw()
  model.on("html", draw)
  // A press whose answer reads as the last one did; after the rest of its message (the new line) is in.
  model.on("opened", () => Promise.resolve().then(draw))
  return box
}
