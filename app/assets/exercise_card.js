// One guided exercise as plain HTML (app/exercise_card.py): steps, prediction, Lock, Start, feedback.
let counter = 0
export function render({ model }) {
  const id = `prediction-${Date.now().toString(36)}-${counter++}`
  const section = document.createElement("section")
  section.className = "exercise"
  section.setAttribute("role", "region")
  const steps = document.createElement("div")
  const form = document.createElement("form")
  form.className = "predict"
  const label = document.createElement("label")
  label.htmlFor = id
  const caption = document.createElement("span")
  const input = document.createElement("input")
  input.id = id
  input.type = "text"
  input.inputMode = "decimal"
  input.autocomplete = "off"
  input.placeholder = "a number, e.g. 2.5 or 2,5"  // labs/numbers.py NUMBER_HINT: the server parses
  label.append(caption, input)
  const lock = document.createElement("button")
  lock.type = "submit"
  lock.className = "primary"
  lock.textContent = "Lock prediction"
  const start = document.createElement("button")
  start.type = "button"
  form.append(label, lock, start)
  const feedback = document.createElement("div")
  feedback.setAttribute("role", "status")
  const why = document.createElement("p")
  why.className = "explanation"
  const classLine = document.createElement("div")
  classLine.className = "class-line"
  classLine.setAttribute("role", "status")
  section.append(steps, form, feedback, why, classLine)

  form.addEventListener("submit", (event) => {
    event.preventDefault()
    if (!model.locked) model.send_msg({ action: "lock", text: input.value })
  })
  start.addEventListener("click", () => model.send_msg({ action: "start" }))

  // Each property redraws only its own part: a new step list must never wipe what the student
  // is typing in the prediction field.
  const draw = {
    label: () => section.setAttribute("aria-label", model.label),
    steps_html: () => { steps.innerHTML = model.steps_html },
    prediction_label: () => { caption.textContent = model.prediction_label },
    prediction: () => { input.value = model.prediction },
    locked: () => {
      // Keep keyboard users in the card: a button that becomes disabled would drop focus to <body>.
      const focused = section.getRootNode().activeElement
      input.disabled = model.locked
      lock.disabled = model.locked
      if (model.locked && (focused === lock || focused === input)) start.focus()
    },
    start_label: () => { start.textContent = model.start_label },
    feedback_html: () => { feedback.innerHTML = model.feedback_html },
    verdict: () => { feedback.className = model.verdict ? `feedback ${model.verdict}` : "" },
    explanation_html: () => {
      why.innerHTML = model.explanation_html
      why.hidden = !model.explanation_html
    },
    class_html: () => {
      classLine.innerHTML = model.class_html
      classLine.hidden = !model.class_html
    },
  }
  for (const [name, redraw] of Object.entries(draw)) {
    redraw()
    model.on(name, redraw)
  }
  if (model.scroll_into_view) {
    // Once the page has laid out, jump (no animation) to the card, unless the student has
    // already pressed, typed or scrolled: a page that moves under a click loses the click (a
    // Reset pressed in the lab as the old smooth scroll ran never reached the server).
    let acted = false
    const act = () => { acted = true }
    for (const type of ["pointerdown", "keydown", "wheel", "touchstart"]) {
      window.addEventListener(type, act, { capture: true, once: true })
    }
    setTimeout(() => { if (!acted) section.scrollIntoView({ block: "start" }) }, 600)
  }
  return section
}
