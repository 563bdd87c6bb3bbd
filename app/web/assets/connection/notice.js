// The notice: the alert, the server's /healthz asked every few seconds, and the Reload button once it answers.

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
