// What a page does when its websocket to the course server is lost (app/connection.py).
//
// Bokeh fires the document event "connection_lost" when the websocket closes (Panel turns off
// Bokeh's own reconnection and notice); a browser that reports itself offline for 3 s counts too
// (a dropped Wi-Fi can leave the websocket open and silent). Then, in the browser only: say so in
// a role="alert" message, disable every control inside the page's regions (labs, exercise cards),
// save the lab's controls and any prediction draft in sessionStorage, and ask the server's
// /healthz every few seconds. Once the server answers, offer a Reload button (focused). After the
// reload the saved values are typed back into the same controls, so the server checks them as it
// checks anything a student types. Nothing here runs, and nothing is sent, while connected.

const RESTORE_KEY = "overlap-lab-restore-v1"
const MAX_AGE_MS = 60 * 60 * 1000 // a snapshot older than an hour is not restored
const OFFLINE_GRACE_MS = 3000 // the browser says it is offline for this long: treat it as a loss
const CONTROLS = "button, input, select, textarea"
const BLOCKED = ["click", "dblclick", "keydown", "keypress", "beforeinput", "paste", "drop"]

const LOST_TEXT =
  "Connection to the course server lost. The lesson text still works; the lab and the exercises " +
  "are paused until this page reloads. Check your network: a Reload button appears here as soon as " +
  "the server answers."
const BACK_TEXT =
  "The course server is back. Press Reload to continue: your finished exercises and the lab's " +
  "settings come back."

const state = {
  lost: false,
  back: false,
  box: null,
  alert: null,
  reload: null,
  timer: null,
  repeat: null,
  offline: null,
  started: 0,
  documents: new WeakSet(),
  guarded: new WeakSet(),
}

// Every element under `root`, shadow trees included (Panel draws each component in a shadow root).
function deepElements(root) {
  const found = []
  const roots = [root]
  while (roots.length) {
    const node = roots.pop()
    for (const el of node.querySelectorAll("*")) {
      found.push(el)
      if (el.shadowRoot) roots.push(el.shadowRoot)
    }
  }
  return found
}

// The page's named regions: each lab ("Queue lab") and each exercise card ("Exercise: …").
function regions() {
  return deepElements(document).filter(
    (el) => el.getAttribute("role") === "region" && el.getAttribute("aria-label")
  )
}

function deepActiveElement() {
  let active = document.activeElement
  while (active && active.shadowRoot && active.shadowRoot.activeElement) {
    active = active.shadowRoot.activeElement
  }
  return active
}

function controlName(el) {
  const label = el.getAttribute("aria-label") || (el.labels && el.labels[0] ? el.labels[0].textContent : "")
  return (label || "").trim()
}

function isExercise(region) {
  return region.getAttribute("aria-label").startsWith("Exercise:")
}

// The lab's typed values and selections, and any unlocked prediction draft, by region and name.
function snapshot() {
  const controls = []
  for (const region of regions()) {
    const label = region.getAttribute("aria-label")
    const inside = deepElements(region)
    // An exercise with a verdict is finished (and kept in localStorage): its prediction stays behind.
    const finished = isExercise(region) && inside.some((el) => el.getAttribute("role") === "status" && el.textContent.trim())
    for (const el of inside) {
      const name = controlName(el)
      if (!name) continue
      if (el.tagName === "SELECT") {
        controls.push({ region: label, kind: "select", name, value: el.value })
      } else if (el.tagName === "INPUT" && el.type === "text") {
        if (!isExercise(region)) {
          controls.push({ region: label, kind: "field", name, value: el.value })
        } else if (!finished && el.value.trim()) { // typed or locked: it comes back unlocked
          controls.push({ region: label, kind: "draft", name, value: el.value })
        }
      }
    }
  }
  return { url: location.href, saved: Date.now(), controls }
}

function save() {
  try {
    sessionStorage.setItem(RESTORE_KEY, JSON.stringify(snapshot()))
  } catch (error) {
    // storage full or off: the reload still works, without the lab's settings
  }
}

function disableRegions() {
  const active = deepActiveElement()
  let dropped = false
  for (const region of regions()) {
    region.dataset.offline = "paused"
    const inside = deepElements(region)
    // "change" and "submit" do not leave a shadow root: stop them at each root, before the control
    // (the region's own root holds the region and may hold controls; roots inside it hold only its own).
    const roots = [[region.getRootNode(), block], ...inside.filter((el) => el.shadowRoot).map((el) => [el.shadowRoot, stop])]
    for (const [root, handler] of roots) {
      if (root !== document && !state.guarded.has(root)) {
        state.guarded.add(root)
        for (const type of [...BLOCKED, "change", "submit"]) root.addEventListener(type, handler, true)
      }
    }
    for (const el of inside) {
      if (el.matches(CONTROLS) && !el.disabled) {
        el.disabled = true
        el.dataset.offlineDisabled = "1"
        if (el === active) dropped = true
      }
    }
  }
  return dropped
}

function enableRegions() {
  for (const region of regions()) {
    delete region.dataset.offline
    for (const el of deepElements(region)) {
      if (el.dataset.offlineDisabled) {
        el.disabled = false
        delete el.dataset.offlineDisabled
      }
    }
  }
}

// A control Bokeh draws again while the page is offline (Play ending in the browser, say) comes
// back enabled: events on anything inside a paused region are stopped before they reach it.
function stop(event) {
  if (!state.lost || (event.type === "keydown" && (event.key === "Tab" || event.key === "Shift"))) return
  event.preventDefault()
  event.stopImmediatePropagation()
}

function block(event) {
  if (event.composedPath().some((node) => node.dataset && node.dataset.offline)) stop(event)
}

async function serverAnswers() {
  try {
    const health = await fetch(new URL("healthz", location.href), { cache: "no-store" })
    if (health.status === 200) return true
    if (health.status !== 404) return false // 503: still starting; 502/504: the proxy has no server
    // `panel serve` has no /healthz, but a 404 came from something: ask for the page itself.
    const page = await fetch(location.href, { method: "HEAD", cache: "no-store" })
    return page.status < 500
  } catch (error) {
    return false
  }
}

function schedule() {
  clearTimeout(state.timer)
  const elapsed = Date.now() - state.started
  const base = elapsed < 30_000 ? 2000 : 5000
  state.timer = setTimeout(check, base + Math.random() * 1000) // a class restarting together spreads out
}

async function check() {
  if (!state.lost || state.back) return
  if (await serverAnswers()) {
    showBack()
  } else {
    schedule()
  }
}

function showLost() {
  const dropped = disableRegions()
  save()
  state.alert.textContent = LOST_TEXT
  state.box.hidden = false
  document.body.style.paddingBottom = `${state.box.offsetHeight + 8}px`
  if (dropped) state.box.focus() // focus was on a control now disabled: keep it near the news
  state.repeat = setInterval(disableRegions, 1000) // controls drawn again while offline
  state.started = Date.now()
  schedule()
}

function showBack() {
  if (state.back) return
  state.back = true
  state.alert.textContent = BACK_TEXT
  state.reload.hidden = false
  document.body.style.paddingBottom = `${state.box.offsetHeight + 8}px`
  state.reload.focus()
}

function lost() {
  if (state.lost) return
  state.lost = true
  showLost()
}

// Only if Panel's own reconnection is ever turned on: the same session is back, nothing to reload.
function reconnected() {
  if (!state.lost) return
  state.lost = false
  state.back = false
  clearTimeout(state.timer)
  clearInterval(state.repeat)
  enableRegions()
  state.box.hidden = true
  state.reload.hidden = true
  state.alert.textContent = ""
  document.body.style.paddingBottom = ""
  try { sessionStorage.removeItem(RESTORE_KEY) } catch (error) {}
}

function findControl(region, saved) {
  const tag = saved.kind === "select" ? "SELECT" : "INPUT"
  return deepElements(region).find((el) => el.tagName === tag && controlName(el) === saved.name) || null
}

function typeBack(saved, el) {
  if (el.disabled) return
  if (saved.kind === "draft") {
    if (!el.value) el.value = saved.value // filled, never locked: locking stays the student's act
  } else if (el.value !== saved.value) {
    if (saved.kind === "select" && ![...el.options].some((option) => option.value === saved.value)) return
    el.value = saved.value
    el.dispatchEvent(new Event("change")) // the control sends it; the server applies or refuses it
  }
}

// Type the saved values back in, region by region as each appears (the lab on a lesson page
// arrives a moment after the page): selections first (a preset may set fields), then fields,
// then prediction drafts. A region that never appears (the lesson now shows another lab) is let go.
function restore() {
  let stored
  try {
    stored = JSON.parse(sessionStorage.getItem(RESTORE_KEY) || "null")
  } catch (error) {
    stored = null
  }
  if (!stored || stored.url !== location.href || !(Date.now() - stored.saved < MAX_AGE_MS)) return
  if (!Array.isArray(stored.controls)) return
  const order = { select: 0, field: 1, draft: 2 }
  const pending = new Map()
  for (const saved of [...stored.controls].sort((a, b) => order[a.kind] - order[b.kind])) {
    pending.set(saved.region, [...(pending.get(saved.region) || []), saved])
  }
  const deadline = Date.now() + 30_000
  const attempt = () => {
    if (state.lost) return
    for (const region of regions()) {
      const saved = pending.get(region.getAttribute("aria-label"))
      if (!saved) continue
      const found = saved.map((item) => [item, findControl(region, item)])
      if (found.some(([, el]) => !el)) continue // still being drawn
      for (const [item, el] of found) typeBack(item, el)
      pending.delete(region.getAttribute("aria-label"))
    }
    if (pending.size && Date.now() < deadline) {
      setTimeout(attempt, 300)
    } else {
      try { sessionStorage.removeItem(RESTORE_KEY) } catch (error) {}
    }
  }
  setTimeout(attempt, 300)
}

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
