// The connection watch's shared constants and state (see connection.js, which runs this file first).

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
