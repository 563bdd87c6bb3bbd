// A lesson's text (app/lesson_text.py): its prose and, between the paragraphs, each guided
// exercise as plain HTML (steps, prediction, Lock, Start, feedback). One component for the whole
// text: the server sends each card's values (model.cards, in model.card_fields order); the page
// sends one message per click, {card, action, text}.
let counter = 0

function drawCard(send) {
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

  const card = {}
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    if (!card.locked) send({ action: "lock", text: input.value })
  })
  start.addEventListener("click", () => send({ action: "start" }))

  // Each value redraws only its own part: a new step list must never wipe what the student
  // is typing in the prediction field.
  const draw = {
    label: () => section.setAttribute("aria-label", card.label),
    steps_html: () => { steps.innerHTML = card.steps_html },
    prediction_label: () => { caption.textContent = card.prediction_label },
    prediction: () => { input.value = card.prediction },
    locked: () => {
      // Keep keyboard users in the card: a button that becomes disabled would drop focus to <body>.
      const focused = section.getRootNode().activeElement
      input.disabled = card.locked
      lock.disabled = card.locked
      if (card.locked && (focused === lock || focused === input)) start.focus()
    },
    start_label: () => { start.textContent = card.start_label },
    feedback_html: () => { feedback.innerHTML = card.feedback_html },
    verdict: () => { feedback.className = card.verdict ? `feedback ${card.verdict}` : "" },
    explanation_html: () => {
      why.innerHTML = card.explanation_html
      why.hidden = !card.explanation_html
    },
    class_html: () => {
      classLine.innerHTML = card.class_html
      classLine.hidden = !card.class_html
    },
    scroll_into_view: () => {},
  }
  // Draw what changed since last time, in the server's field order.
  const show = (fields, values) => {
    fields.forEach((name, i) => {
      if (name in card && card[name] === values[i]) return
      card[name] = values[i]
      const redraw = draw[name]
      if (redraw) redraw()
    })
  }
  return { section, show, card }
}

function scrollWhenSettled(target) {
  // Once the page has laid out, jump (no animation) to the target, unless the student has
  // already pressed, typed or scrolled: a page that moves under a click loses the click (a
  // Reset pressed in the lab as the old smooth scroll ran never reached the server).
  let acted = false
  const act = () => { acted = true }
  for (const type of ["pointerdown", "keydown", "wheel", "touchstart"]) {
    window.addEventListener(type, act, { capture: true, once: true })
  }
  setTimeout(() => { if (!acted) target.scrollIntoView({ block: "start" }) }, 600)
}

export function render({ model }) {
  const root = document.createElement("div")
  root.className = "lesson-parts"
  const cards = []
  for (const [kind, index] of model.order) {
    if (kind === "prose") {
      const prose = document.createElement("div")
      prose.className = "prose"
      prose.innerHTML = model.prose[index]
      root.append(prose)
    } else {
      const card = drawCard((msg) => model.send_msg({ card: index, ...msg }))
      cards[index] = card
      root.append(card.section)
    }
  }
  const update = () => model.cards.forEach((values, i) => { if (cards[i]) cards[i].show(model.card_fields, values) })
  update()
  model.on("cards", update)

  // In-page links (a heading's ¶ anchor) point into this shadow root, which the browser does not search.
  root.addEventListener("click", (event) => {
    const link = event.target.closest ? event.target.closest('a[href^="#"]') : null
    const found = link ? root.querySelector(`[id="${CSS.escape(decodeURIComponent(link.hash.slice(1)))}"]`) : null
    if (found) {
      event.preventDefault()
      found.scrollIntoView()
    }
  })
  const deepLinked = cards.find((card) => card && card.card.scroll_into_view)
  if (deepLinked) scrollWhenSettled(deepLinked.section)
  return root
}
