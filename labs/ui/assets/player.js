// Browser-side playback shared by every lab: the one CustomJS callback of a Transport.
// Args in scope: state (PlaybackState, whose trajectory holds the breakpoints), play, step_button
// and reset_button (Button), speed_select (Select), reveal and marker (ColumnDataSource), status (Div),
// playing_note (Div), and for a lab with interval bars (a Gantt), bars (ColumnDataSource) and now (Span).
// cb_obj says what happened: a click on one of the buttons, or a server change to the state.
// During Play nothing below sends a message: every visual change uses setv(..., {sync: false}).
// The only synced write is send(), once per Pause, end, Step, Reset or edit-while-playing.
const P = state._player ?? (state._player = {
  playing: false, t: 0, last: 0, raf: 0, epoch: state.epoch, ask: state.ask_time,
})

function send(action, t) {
  const seq = ((state.command && state.command.seq) || 0) + 1
  state.command = {action: action, t: t, seq: seq}
}

function interp(ts, ys, t) {
  const n = ts.length
  if (n === 0) return 0
  if (t <= ts[0]) return ys[0]
  for (let i = 1; i < n; i++) {
    if (t <= ts[i]) {
      const span = ts[i] - ts[i - 1]
      const f = span > 0 ? (t - ts[i - 1]) / span : 1
      return ys[i - 1] + f * (ys[i] - ys[i - 1])
    }
  }
  return ys[n - 1]
}

// A figure with fixed decimals, by the rules of labs/numbers.py fixed(): never a negative zero,
// m × 10^e from 10^12 on, and words instead of NaN or an infinity.
function figure(value, digits) {
  const v = Number(value)
  if (Number.isNaN(v)) return "undefined"
  if (!Number.isFinite(v)) return v > 0 ? "unbounded" : "unbounded (negative)"
  if (Math.abs(v) >= 1e12) {
    const [mantissa, exponent] = v.toExponential(2).split("e")
    return `${mantissa} × 10^${Number(exponent)}`
  }
  const text = v.toFixed(digits)
  return /[1-9]/.test(text) ? text : text.replace("-", "")
}

function fill(template, values) {
  return template.replace(/\{(\w+)(?::(\d+))?\}/g, (whole, key, digits) =>
    key in values ? figure(values[key], digits === undefined ? 2 : Number(digits)) : whole)
}

function frame(t) {
  const data = state.trajectory
  const ts = Array.from(data.t)
  const keys = Object.keys(data)
  const values = {t: t}
  const revealed = {}
  for (const key of keys) {
    revealed[key] = []
    if (key !== "t") values[key] = interp(ts, Array.from(data[key]), t)
  }
  for (let i = 0; i < ts.length && ts[i] < t; i++) {
    for (const key of keys) revealed[key].push(data[key][i])
  }
  const point = {}
  for (const key of keys) {
    revealed[key].push(values[key])
    point[key] = [values[key]]
  }
  if (typeof bars !== "undefined") {  // interval bars, clipped at t exactly as playback.clipped() does
    const full = state.intervals
    const shown = {}
    for (const key of Object.keys(full)) shown[key] = Array.from(full[key])
    shown.end = full.start.map((start, i) => Math.max(start, Math.min(full.end[i], t)))
    shown.label = full.label.map((label, i) => t >= full.start[i] ? label : "")
    bars.setv({data: shown}, {sync: false})
    now.setv({location: t}, {sync: false})
  }
  reveal.setv({data: revealed}, {sync: false})
  marker.setv({data: point}, {sync: false})
  status.setv({text: fill(state.template, values)}, {sync: false})  // the template is the busy readout
}

// Bokeh rebuilds a button's <button> element when its label changes, which drops keyboard focus to
// <body>: a second Enter would then do nothing. A button that had focus gets it back once rebuilt.
function relabel(button, label) {
  const view = Bokeh.index.find_one(button)
  const focused = view != null && view.shadow_el.activeElement != null
  button.setv({label: label}, {sync: false})
  if (!focused) return
  const refocus = (tries) => {
    if (view.button_el.isConnected && view.button_el.textContent.trim() === label) view.button_el.focus()
    else if (tries > 0) requestAnimationFrame(() => refocus(tries - 1))
  }
  refocus(10)
}

function stop(report) {
  if (!P.playing) return
  P.playing = false
  cancelAnimationFrame(P.raf)
  relabel(play, "Play")
  step_button.setv({disabled: !state.allowed}, {sync: false})  // Step works again once paused
  playing_note.setv({visible: false}, {sync: false})
  state.setv({t: P.t}, {sync: false})
  if (report) send(report, P.t)
}

function limit(t) {
  return t < state.stop_at && state.stop_at < state.horizon ? state.stop_at : state.horizon
}

function start() {
  P.t = state.t >= state.horizon ? 0 : state.t
  P.playing = true
  P.last = performance.now()
  relabel(play, "Pause")
  step_button.setv({disabled: true}, {sync: false})
  playing_note.setv({visible: true}, {sync: false})
  const tick = (now) => {
    if (!P.playing) return
    const speed = parseFloat(speed_select.value) || 1
    const end = limit(P.t)  // every frame: an edit while playing can move the horizon
    P.t = Math.min(end, P.t + Math.max(0, now - P.last) / 1000 * speed)
    P.last = now
    frame(P.t)
    if (P.t >= end) {
      stop("end")
      P.ended = performance.now()
      return
    }
    P.raf = requestAnimationFrame(tick)
  }
  frame(P.t)
  P.raf = requestAnimationFrame(tick)
}

// A click arrives as a ButtonClick event whose origin is the button; a state change as the state.
const source = cb_obj.origin ?? cb_obj
if (source === play) {
  if (P.playing) {
    stop("pause")
  } else if (performance.now() - (P.ended ?? -1e9) < 400) {
    // A click meant for Pause that lands just after playback ended by itself: it is that Pause, not a
    // new Play from the start; the lab stays stopped at the end (one final state, no lost click).
  } else {
    start()
  }
} else if (source === step_button) {
  const at = P.playing ? P.t : null
  stop(null)
  send("step", at)
} else if (source === reset_button) {
  stop(null)
  send("reset", null)
} else if (source === state) {
  if (state.epoch !== P.epoch) {  // the server stops any playback (exercise gating)
    P.epoch = state.epoch
    stop(null)
  }
  if (state.ask_time !== P.ask) {  // a control was edited: a playing page reports its t once
    P.ask = state.ask_time
    if (P.playing) send("sync", P.t)
  }
}
