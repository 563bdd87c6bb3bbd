// Course progress mirrored to and from localStorage (app/course/progress.py), under the key model.storage_key.
function stored(key) {
  try {
    const value = JSON.parse(window.localStorage.getItem(key) || "{}")
    return value && typeof value === "object" && !Array.isArray(value) ? value : {}
  } catch (error) {
    return {}
  }
}
const STUDENT_KEY = "overlap-lab-student-v1"
function student() {
  // 16 random bytes, made once per browser: the class sees this id, never a name.
  let id = null
  try { id = window.localStorage.getItem(STUDENT_KEY) } catch (error) {}
  if (!/^[0-9a-f]{32}$/.test(id || "")) {
    const bytes = new Uint8Array(16)
    window.crypto.getRandomValues(bytes)
    id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")
    try { window.localStorage.setItem(STUDENT_KEY, id) } catch (error) {}
  }
  return id
}
function storable() {
  // A private window (and a browser blocking third-party cookies) refuses storage to a page that
  // another site frames: reading window.localStorage then throws.
  try { return window.localStorage !== null } catch (error) { return false }
}
export function render({ model }) {
  const key = model.storage_key
  if (!storable()) model.kept = false
  const merged = Object.assign(stored(key), model.completed)
  model.completed = merged
  if (model.class_on) model.student = student()  // no id is made or sent while no class is on
  model.loaded = true
  model.on("completed", () => {
    try { window.localStorage.setItem(key, JSON.stringify(model.completed)) } catch (e) {}
  })
  const el = document.createElement("span")
  el.hidden = true
  return el
}
