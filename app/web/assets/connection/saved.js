// Saving the lab's values and prediction drafts before a reload, and typing them back in after it.

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
      if (!name || el.readOnly) continue // read-only (a Share panel's Link): nothing the student typed
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
