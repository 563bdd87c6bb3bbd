// Browser-side playback shared by every lab: the one CustomJS callback of a Transport.
// Args in scope: state (PlaybackState, whose trajectory holds the breakpoints), play, step_button,
// end_button and reset_button (Button), speed_select (Select), reveal and marker (ColumnDataSource), status (Div),
// playing_note and gate (Div: one line under the time bar, the note shown only while the gate's is empty),
// and for a lab with interval bars (a Gantt), bars (ColumnDataSource) and now (Span).
// cb_obj says what happened: a click on one of the buttons, or a server change to the state.
// During Play nothing below sends a message: every visual change uses setv(..., {sync: false}).
// The only synced write is send(), once per Pause, end, To the end, Step, Reset or edit-while-playing,
// and once when Play starts while the server asks to hear of it (state.report_play: an exercise that
// judges as soon as Play is pressed).
// labs/ui/playback.py runs formats.js and sampling.js before this file, in the same body.
const P = state._player ?? (state._player = {
  playing: false, t: 0, last: 0, raf: 0, epoch: state.epoch, ask: state.ask_time,
})

function send(action, t) {
  const seq = ((state.command && state.command.seq) || 0) + 1
  state.command = {action: action, t: t, seq: seq}
}

// One frame at t, drawn in the browser only: sample(), revealed() and clipped() are sampling.js,
// fill() is formats.js (the page runs both files before this one, in the same body).
function frame(t) {
  const data = state.trajectory
  const values = sample(data, t)
  const point = {}
  for (const key of Object.keys(data)) point[key] = [values[key]]
  if (typeof bars !== "undefined") {  // interval bars, clipped at t exactly as playback.clipped() does
    bars.setv({data: clipped(state.intervals, t)}, {sync: false})
    now.setv({location: t}, {sync: false})
  }
  reveal.setv({data: revealed(data, t, values)}, {sync: false})
  marker.setv({data: point}, {sync: false})
  status.setv({text: fill(state.template, values)}, {sync: false})  // the readout as it reads while playing
}

// Bokeh rebuilds a button's <button> element when its label changes, which drops keyboard focus to
// <body>: a second Enter would then do nothing. A button that had focus gets it back once rebuilt.
// Only public parts are read: the view from Bokeh.index, its host element (view.el) and the host's
// open shadow root, as the DOM gives it. Where any is missing the label changes and focus is left alone.
function relabel(button, label) {
  const view = Bokeh.index?.find_one?.(button)
  const root = view?.el instanceof Element ? view.el.shadowRoot : null
  const focused = root != null && root.activeElement != null
  button.setv({label: label}, {sync: false})
  if (!focused) return
  const refocus = (tries) => {
    const element = root.querySelector("button")
    if (element != null && element.isConnected && element.textContent.trim() === label) element.focus()
    else if (tries > 0) requestAnimationFrame(() => refocus(tries - 1))
  }
  refocus(10)
}

// The readout's live region is the status Div's own element (it stays across re-renders): busy while
// playing, so that a screen reader reads the figures once playback stops, not every frame.
function busy(on) {
  status.setv({html_attributes: {...status.html_attributes, "aria-busy": on ? "true" : "false"}}, {sync: false})
}

// keep: the page's played t becomes its copy of t (a Pause, Step, To the end or Reset, which the server
// answers). A stop the server asks for (its epoch) keeps the server's t: the server sends its t, readout
// and marker with the epoch, and Bokeh may put them ahead of the epoch in that one message (its hold
// combines a property's changes at the first one's place), so writing the played t here would leave
// the page at a t the server never had: the next Play jumped from it, and the readout disagreed.
function stop(report, keep = true) {
  if (!P.playing) return
  P.playing = false
  busy(false)
  cancelAnimationFrame(P.raf)
  relabel(play, "Play")
  step_button.setv({disabled: !state.allowed}, {sync: false})  // Step works again once paused
  playing_note.setv({visible: false}, {sync: false})
  if (keep) state.setv({t: P.t}, {sync: false})
  if (report) send(report, P.t)
}

function limit(t) {
  return t < state.stop_at && state.stop_at < state.horizon ? state.stop_at : state.horizon
}

function start() {
  P.t = state.t >= state.horizon ? 0 : state.t
  P.playing = true
  busy(true)
  P.last = performance.now()
  relabel(play, "Pause")
  step_button.setv({disabled: true}, {sync: false})
  playing_note.setv({visible: !gate.text}, {sync: false})
  if (state.report_play) send("play", null)
  const tick = (now) => {
    if (!P.playing) return
    // Model time per second: the chosen speed times the model's own pace (state.rate).
    const speed = (parseFloat(speed_select.value) || 1) * (state.rate > 0 ? state.rate : 1)
    const end = limit(P.t)  // every frame: an edit while playing can move the horizon
    P.t = Math.min(end, P.t + Math.max(0, now - P.last) / 1000 * speed)
    P.last = now
    frame(P.t)
    if (P.t >= end) {
      stop("end")
      P.ended = performance.now()
      P.endedT = P.t
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
  P.ended = null
  const at = P.playing ? P.t : null
  stop(null)
  send("step", at)
} else if (source === end_button) {
  // To the end: where Play would stop (an exercise's pause or the horizon), in one message.
  const from = P.playing ? P.t : state.t
  P.ended = null
  stop(null)
  send("end", limit(from))
} else if (source === reset_button) {
  P.ended = null
  stop(null)
  send("reset", null)
} else if (source === gate) {  // the server's line for the gate takes the note's place while playing
  playing_note.setv({visible: P.playing && !gate.text}, {sync: false})
} else if (source === state) {
  // The lab is no longer at the end of the run that just ended (a Reset, an exercise's setup, a Step,
  // perhaps from the server): a Play now starts a run, however soon after that end it comes.
  if (P.ended != null && Math.abs(state.t - P.endedT) > 1e-9 * Math.max(1, Math.abs(P.endedT))) P.ended = null
  if (state.epoch !== P.epoch) {  // the server stops any playback (exercise gating), at its own t
    P.epoch = state.epoch
    stop(null, false)
  }
  if (state.ask_time !== P.ask) {  // a control was edited: a playing page reports its t once
    P.ask = state.ask_time
    if (P.playing) send("sync", P.t)
  }
}
