// What a page does when its websocket to the course server is lost (app/web/connection.py).
//
// Bokeh fires the document event "connection_lost" when the websocket closes (Panel turns off
// Bokeh's own reconnection and notice); a browser that reports itself offline for 3 s counts too
// (a dropped Wi-Fi can leave the websocket open and silent). Then, in the browser only: say so in
// a role="alert" message, disable every control inside the page's regions (labs, exercise cards),
// save the lab's controls and any prediction draft in sessionStorage, and ask the server's
// /healthz every few seconds. Once the server answers, offer a Reload button (focused). After the
// reload the saved values are typed back into the same controls, so the server checks them as it
// checks anything a student types. Nothing here runs, and nothing is sent, while connected.
//
// The parts, joined in this order by app/web/connection.py: state.js, page.js, lockout.js, saved.js,
// notice.js, then this file.

export function render({ model }) {
  const box = document.createElement("div")
  box.className = "connection"
  box.setAttribute("role", "group")
  box.setAttribute("aria-label", "Connection to the course server")
  box.tabIndex = -1
  box.hidden = true
  const alert = document.createElement("p")
  alert.setAttribute("role", "alert")
  const reload = document.createElement("button")
  reload.type = "button"
  reload.textContent = "Reload"
  reload.hidden = true
  reload.addEventListener("click", () => {
    save()
    location.reload()
  })
  box.append(alert, reload)
  if (state.box) { // drawn again: carry the current state over
    box.hidden = state.box.hidden
    alert.textContent = state.alert.textContent
    reload.hidden = state.reload.hidden
  }
  Object.assign(state, { box, alert, reload })

  const doc = model.document
  if (doc && !state.documents.has(doc)) {
    state.documents.add(doc)
    doc.on_event("connection_lost", lost)
    doc.on_event("client_reconnected", reconnected)
    for (const type of BLOCKED) window.addEventListener(type, block, true)
    window.addEventListener("online", () => {
      clearTimeout(state.offline)
      if (state.lost && !state.back) check()
    })
    // A dropped Wi-Fi may leave the websocket open and silent for minutes: the browser's own word
    // that it has no network, for longer than a blip, counts as a loss too.
    window.addEventListener("offline", () => {
      clearTimeout(state.offline)
      state.offline = setTimeout(() => { if (!navigator.onLine) lost() }, OFFLINE_GRACE_MS)
    })
    restore()
  }
  return box
}
