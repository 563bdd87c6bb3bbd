// What Play draws at time t, by the rules of labs/ui/playback.py: sample(), revealed() and clipped()
// are its functions of the same names. The page runs this file in player.js's body; Node's tests
// require() it.

// np.interp for increasing ts: the first value before ts[0], the last after the end.
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

// Every column of a trajectory (breakpoints by column, with "t") at time t, and t itself.
function sample(data, t) {
  const ts = Array.from(data.t)
  const values = {t: t}
  for (const key of Object.keys(data)) {
    if (key !== "t") values[key] = interp(ts, Array.from(data[key]), t)
  }
  return values
}

// The trajectory from 0 up to t: the breakpoints before t, then the point at t (values: sample(data, t)).
function revealed(data, t, values = sample(data, t)) {
  const ts = data.t
  const keys = Object.keys(data)
  const shown = {}
  for (const key of keys) shown[key] = []
  for (let i = 0; i < ts.length && ts[i] < t; i++) {
    for (const key of keys) shown[key].push(data[key][i])
  }
  for (const key of keys) shown[key].push(values[key])
  return shown
}

// Interval bars as drawn at t: a bar ends at t until it is finished, and has no label and no outline
// (edge 0) until it starts.
function clipped(intervals, t) {
  const shown = {}
  for (const key of Object.keys(intervals)) shown[key] = Array.from(intervals[key])
  shown.end = intervals.start.map((start, i) => Math.max(start, Math.min(intervals.end[i], t)))
  shown.label = intervals.label.map((label, i) => t >= intervals.start[i] ? label : "")
  shown.edge = intervals.start.map((start) => t >= start ? 1 : 0)
  return shown
}

// Under Node only (the page has a window, and no module of its own here):
if (typeof window === "undefined" && typeof module !== "undefined") module.exports = { interp, sample, revealed, clipped }
