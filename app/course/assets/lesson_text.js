// A lesson's text (app/course/lesson_text.py): its prose and, between the paragraphs, each guided
// exercise as plain HTML (steps, Start, prediction, Lock, feedback), and the lesson's lab. One
// component for the whole text: the server sends each card's values (model.cards_json: JSON, in
// model.card_fields order) as the page was built, then at each change the cards changed since
// (model.card_updates: {index: values}); the page sends one message per click, {card, action, text}. A card with
// share paths ends with a Share button: shareWidget(), from app/web/assets/share.js, which the
// component's module starts with.
// On a wide screen the lab stands beside the text, pinned in a pane as high as the window; on a
// narrow one it follows the active exercise's card (or the text, while none is active), so the
// question and the picture are never a whole lesson apart.
let counter = 0

// A list (a card's choices) arrives as a new array with every message: compare what it holds.
const same = (a, b) =>
  a === b || (typeof a === "object" && typeof b === "object" && a !== null && b !== null && JSON.stringify(a) === JSON.stringify(b))

// An element of the card: a paragraph, or a plain button (type="button"), with its class and text.
function element(tag, className, text = "") {
  const made = document.createElement(tag)
  if (tag === "button") made.type = "button"
  made.className = className
  made.textContent = text
  return made
}

// The running exercise, kept for a reload: its id in the URL (the lesson's deep link, written with
// history.replaceState) and its state (card.resume: variant, retries, setup, locked prediction) in the
// tab's sessionStorage, which a phone keeps for a tab it discards. One entry per tab: the last exercise run.
const RUNNING_KEY = "overlap-lab-running-v1"
const lessonId = () => new URLSearchParams(window.location.search).get("id") || ""

function rememberRunning(state) {
  if (!state || !state.exercise) return
  try { window.sessionStorage.setItem(RUNNING_KEY, JSON.stringify({ ...state, lesson: lessonId() })) } catch (error) {}
  const url = new URL(window.location.href)
  if (url.searchParams.get("exercise") === state.exercise) return
  url.searchParams.set("exercise", state.exercise)
  try { window.history.replaceState(window.history.state, "", url) } catch (error) {}
}

// What this tab kept for ``state``'s exercise, if a reload interrupted more than its start (a variant,
// the setup, a lock); null otherwise.
function keptRunning(state) {
  let kept = null
  try { kept = JSON.parse(window.sessionStorage.getItem(RUNNING_KEY) || "null") } catch (error) {}
  if (!kept || typeof kept !== "object" || kept.lesson !== lessonId() || kept.exercise !== state.exercise) return null
  return kept.variant || kept.setup || kept.locked ? kept : null
}

function drawCard(send, shareBase) {
  const id = `prediction-${Date.now().toString(36)}-${counter++}`
  const section = document.createElement("section")
  section.className = "exercise"
  section.setAttribute("role", "region")
  const steps = document.createElement("div")
  const begin = document.createElement("div")
  begin.className = "begin"
  const start = document.createElement("button")
  start.type = "button"
  // After a verdict, an exercise that varies its numbers asks again with new ones.
  const retry = document.createElement("button")
  retry.type = "button"
  retry.className = "primary"
  retry.hidden = true
  begin.append(retry, start)
  const form = document.createElement("form")
  form.className = "predict"
  form.hidden = true
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
  // A choice exercise asks with radio buttons in a fieldset instead: its legend is the label.
  const fieldset = document.createElement("fieldset")
  const legend = document.createElement("legend")
  fieldset.append(legend)
  fieldset.hidden = true
  const lock = document.createElement("button")
  lock.type = "submit"
  lock.className = "primary"
  lock.textContent = "Lock prediction"
  form.append(label, fieldset, lock)
  const radios = () => Array.from(fieldset.querySelectorAll("input"))
  // "Set up the lab": the exercise's Reset and settings in one press, while they are not done.
  const setup = document.createElement("button")
  setup.type = "button"
  setup.className = "setup"
  setup.hidden = true
  setup.addEventListener("click", () => send({ action: "setup" }))
  // The dock: on a phone, while the exercise runs, the question in short, the next step, the setup
  // and the prediction stay at the bottom of the screen, so the lab's picture and time bar share the
  // screen with them (dockCard). Elsewhere it is the card's ordinary prediction row. Its head repeats
  // what the card says above, so screen readers skip it.
  const dock = document.createElement("div")
  dock.className = "dock"
  const head = document.createElement("div")
  head.className = "dock-head"
  head.setAttribute("aria-hidden", "true")
  const headTitle = element("p", "dock-title")
  // The question in the dock: the sentence that asks, always whole; the rest of the prompt (its
  // situation) behind "Show the whole question", a disclosure button with its state.
  const headPrompt = element("p", "dock-prompt")
  headPrompt.hidden = true
  const headAsk = element("p", "dock-ask")
  const wholeQuestion = element("button", "whole-question", "Show the whole question")
  wholeQuestion.setAttribute("aria-expanded", "false")
  const showWhole = (open) => {
    wholeQuestion.setAttribute("aria-expanded", String(open))
    headPrompt.hidden = !open
    headAsk.hidden = open
  }
  wholeQuestion.addEventListener("click", () => showWhole(wholeQuestion.getAttribute("aria-expanded") !== "true"))
  const headNext = element("p", "dock-next")
  // A refused prediction's reason, next to the field it is about: the card's own line is above the
  // screen while docked (its role="alert" is what a screen reader hears; this copy is for the eye).
  const headNotice = element("p", "dock-notice field-error")
  // What the class did (a reveal, a new round), on the docked student's screen: the card's class line,
  // a polite live region, is above the screen then (a screen reader hears that one; this copy is for the eye).
  const headClass = element("p", "dock-class")
  const classResult = element("button", "whole-question", "Show the class's result")
  classResult.addEventListener("click", () => classLine.scrollIntoView({ block: "center" }))
  // A verdict on a phone: the card stays docked with the verdict in a line, so the finished picture
  // above keeps the screen; "Read why" gives the card back to the page at its verdict and explanation.
  const headVerdict = element("p", "dock-verdict")
  const readWhy = element("button", "read-why", "Read why")
  readWhy.addEventListener("click", () => {
    self.readWhy = true
    section.dispatchEvent(new CustomEvent("overlap-read-why", { bubbles: true, composed: true }))
    requestAnimationFrame(() => {
      feedback.scrollIntoView({ block: "start" })
      feedback.focus({ preventScroll: true })
    })
  })
  const tail = document.createElement("div")
  tail.className = "dock-head"
  tail.setAttribute("aria-hidden", "true")
  head.append(headTitle, headPrompt, headAsk)
  tail.append(headVerdict, headClass, headNext, headNotice)
  dock.append(head, wholeQuestion, tail, readWhy, classResult, setup, form)
  // The head repeats the card's words only while docked: no second copy of the question otherwise.
  const fillHead = () => {
    const docked = section.classList.contains("docked")
    const title = docked && steps.querySelector("h2, h3")
    const prompt = docked && steps.querySelector("h2 + p, h3 + p")
    const next = docked && steps.querySelector("li.current")
    const notice = docked && steps.querySelector('p[role="alert"]')
    // What differs from the exercise's setup says more than the next step: the same line beside Play
    // is under the dock on a phone, so the dock carries it.
    const advice = docked && steps.querySelector("p.setup-note")
    headNotice.textContent = notice ? notice.textContent : ""
    headNotice.hidden = !notice
    headTitle.textContent = title ? title.textContent : ""
    const whole = prompt ? prompt.textContent : ""
    if (whole !== headPrompt.textContent) {
      const [asking, rest] = askingSentence(whole)
      headPrompt.textContent = whole
      headAsk.textContent = asking
      wholeQuestion.hidden = !rest
      showWhole(false)  // another question: its situation folded again
    }
    if (advice) headNext.textContent = advice.textContent
    else headNext.textContent = next && next.firstChild ? `Next: ${next.firstChild.textContent}` : ""
    headNext.classList.toggle("setup-note", !!advice)
    const judged = docked && !!card.feedback_html
    section.classList.toggle("judged", judged)
    headVerdict.textContent = judged ? feedback.textContent.trim() : ""
    headVerdict.className = judged ? `dock-verdict ${card.verdict}` : "dock-verdict"
    headVerdict.hidden = readWhy.hidden = !judged
  }
  const feedback = document.createElement("div")
  feedback.setAttribute("role", "status")
  const why = document.createElement("p")
  why.className = "explanation"
  const classLine = document.createElement("div")
  classLine.className = "class-line"
  classLine.setAttribute("role", "status")
  section.append(steps, begin, dock, feedback, why, classLine)

  const card = {}
  let shareBox = null
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    if (card.locked) return
    const chosen = radios().find((radio) => radio.checked)
    send({ action: "lock", text: card.choices.length ? (chosen ? chosen.value : "") : input.value })
  })
  start.addEventListener("click", () => send({ action: "start" }))
  retry.addEventListener("click", () => send({ action: "retry", seed: variantSeed() }))

  // Start comes first; once the exercise is judged, "Try again" comes after the verdict. The
  // button keeps keyboard focus when it moves, and a started exercise hands focus to its field.
  const placeStart = () => {
    const focused = section.getRootNode().activeElement === start
    if (card.active) classLine.after(begin)
    else steps.after(begin)
    begin.hidden = !card.start_label
    start.className = card.active ? "" : "primary"
    if (focused && !begin.hidden) start.focus()
  }
  // Each value redraws only its own part: a new step list must never wipe what the student
  // is typing in the prediction field.
  const draw = {
    label: () => section.setAttribute("aria-label", card.label),
    active: () => {
      const starting = card.active && form.hidden
      const focused = section.getRootNode().activeElement === start
      form.hidden = !card.active
      placeStart()
      if (starting) {
        form.scrollIntoView({ block: "nearest" })
        // The focused Start button is gone: keep keyboard focus in the card, without the phone's keyboard.
        if (focused) section.focus({ preventScroll: true })
      }
    },
    steps_html: () => {
      steps.innerHTML = card.steps_html
      fillHead()
    },
    setup_label: () => {
      const focused = section.getRootNode().activeElement === setup
      setup.textContent = card.setup_label
      setup.hidden = !card.setup_label
      if (focused && setup.hidden) {  // done: on to the prediction, or back to the card
        if (!card.locked && !card.choices.length) input.focus({ preventScroll: true })
        else section.focus({ preventScroll: true })
      }
    },
    prediction_label: () => {
      caption.textContent = card.prediction_label
      legend.textContent = card.prediction_label
    },
    choices: () => {
      fieldset.replaceChildren(legend)
      for (const text of card.choices) {
        const option = document.createElement("label")
        option.className = "choice"
        const radio = document.createElement("input")
        radio.type = "radio"
        radio.name = id
        radio.value = text
        option.append(radio, text)
        fieldset.append(option)
      }
      fieldset.hidden = !card.choices.length
      label.hidden = !!card.choices.length
    },
    prediction: () => {
      input.value = card.prediction
      for (const radio of radios()) radio.checked = radio.value === card.prediction
    },
    locked: () => {
      // Keep keyboard users in the card: a button that becomes disabled would drop focus to <body>.
      const focused = section.getRootNode().activeElement
      input.disabled = card.locked
      fieldset.disabled = card.locked
      lock.disabled = card.locked
      const inForm = focused === lock || focused === input || radios().includes(focused)
      if (card.locked && inForm) section.focus({ preventScroll: true })
    },
    start_label: () => {
      start.textContent = card.start_label
      placeStart()
    },
    retry_label: () => {
      const focused = section.getRootNode().activeElement === retry
      retry.textContent = card.retry_label
      retry.hidden = !card.retry_label
      // The new question's field takes focus (the button is gone), without the phone's keyboard popping up.
      if (focused && retry.hidden) section.focus({ preventScroll: true })
    },
    feedback_html: () => {
      const verdict = !feedback.innerHTML && card.feedback_html && drawn
      feedback.innerHTML = card.feedback_html
      if (!card.feedback_html) self.readWhy = false  // a new run: its verdict docks again
      fillHead()
      // A verdict that arrives after a run is brought into view and focused, once the page has
      // laid out (the dock gives its place back first): on a phone the card is above the lab.
      // Where it is already on screen (beside the lab on a laptop) nothing moves. Focus moves to it
      // only from nowhere (the page's body): a control the student is using keeps it (Step, Play).
      if (verdict) requestAnimationFrame(() => {
        if (section.classList.contains("docked")) return  // on a phone the dock shows it, over the picture
        const box = feedback.getBoundingClientRect()
        const [top, bottom] = visibleArea(section.getRootNode())
        if (box.top < top || box.bottom > bottom) feedback.scrollIntoView({ block: "nearest" })
        const active = document.activeElement
        if (!active || active === document.body) feedback.focus({ preventScroll: true })
      })
    },
    verdict: () => {
      feedback.className = card.verdict ? `feedback ${card.verdict}` : ""
      fillHead()  // the dock's copy of the verdict takes its colour
    },
    explanation_html: () => {
      why.innerHTML = card.explanation_html
      why.hidden = !card.explanation_html
    },
    class_html: () => {
      classLine.innerHTML = card.class_html
      classLine.hidden = !card.class_html
    },
    class_news: () => {
      headClass.textContent = card.class_news
      headClass.hidden = classResult.hidden = !card.class_news
    },
    scroll_into_view: () => {},
    resume: () => { if (drawn) rememberRunning(card.resume) },  // the first values: see show()
    share: () => {
      if (shareBox) shareBox.remove()
      shareBox = null
      if (!card.share.length) return
      const [link, embed] = card.share
      shareBox = shareWidget({ link, embed, title: card.label, base: shareBase })
      section.append(shareBox)
    },
  }
  section.tabIndex = -1  // where focus goes when the focused Lock button is disabled
  feedback.tabIndex = -1  // where focus goes when a verdict arrives
  let drawn = false  // a verdict already there when the page opens is not brought into view
  // Draw what changed since last time, in the server's field order.
  const show = (fields, values) => {
    fields.forEach((name, i) => {
      if (name in card && same(card[name], values[i])) return
      card[name] = values[i]
      const redraw = draw[name]
      if (redraw) redraw()
    })
    if (!drawn && card.resume && card.resume.exercise) {
      // The page opened on a running exercise (a reload, or a tab the phone discarded): ask the
      // server to bring back what this tab kept of it, or keep what the server says it is now.
      const kept = !card.locked && keptRunning(card.resume)
      if (kept) send({ action: "resume", state: kept })
      else rememberRunning(card.resume)
    }
    drawn = true
  }
  const self = { section, show, card, dock, fillHead, readWhy: false }
  return self
}

// The part of the window the student sees: below the course's fixed top bar (the top of the scrolling
// area, #main) and above a docked card. A line above the bar's bottom edge is under the bar, not on screen.
function visibleArea(root = document) {
  const main = document.getElementById("main")
  const area = main ? main.getBoundingClientRect() : null
  let top = area ? Math.max(0, area.top) : 0
  let bottom = area ? Math.min(window.innerHeight, area.bottom) : window.innerHeight
  const dock = root.querySelector("section.docked .dock")  // the cards share the lesson's shadow root
  if (dock) bottom = Math.min(bottom, dock.getBoundingClientRect().top)
  if (bottom <= top) [top, bottom] = [0, window.innerHeight]
  return [top, bottom]
}

// The sentence of a prompt that asks (the last with a question mark, else the last), and whether any
// other sentence is left: the dock shows that sentence whole and folds the rest.
function askingSentence(text) {
  const sentences = text.trim().split(/(?<=[.?!])\s+(?=[^a-z])/).filter((s) => s.length > 0)
  const asking = [...sentences].reverse().find((s) => s.includes("?")) ?? sentences[sentences.length - 1] ?? ""
  return [asking, sentences.length > 1]
}

// On a narrow screen the running exercise's dock stays at the bottom of the window; the page keeps
// room for it under its end, and a control scrolled into view lands above it, not behind it.
function dockCards(cards, wide) {
  const scroller = document.getElementById("main")
  let docked = null
  let seen = 0  // the docked card's height when last laid out
  const room = new ResizeObserver(() => {
    const height = docked ? docked.dock.offsetHeight : 0
    if (scroller) scroller.style.scrollPaddingBottom = height ? `${height + 8}px` : ""
    if (docked) docked.section.getRootNode().host?.style.setProperty("padding-bottom", `${height}px`)
    // The dock grew over the page (a line, a button, a field back in it): what was just above it
    // stays above it, as a phone's keyboard pushes the page up (new numbers brought "Set up the lab"
    // back and hid the line saying why Play is off).
    if (scroller && seen && height > seen) scroller.scrollBy(0, height - seen)
    seen = height
  })
  return () => {
    // The running exercise stays docked through its verdict until the student asks to read why.
    const running = wide.matches ? null : cards.find((c) => c && c.card.active && !(c.card.feedback_html && c.readWhy))
    if (running === docked) return false
    if (docked) {
      docked.section.classList.remove("docked")
      docked.fillHead()
      room.unobserve(docked.dock)
      docked.section.getRootNode().host?.style.removeProperty("padding-bottom")
      if (scroller) scroller.style.scrollPaddingBottom = ""
    }
    docked = running || null
    seen = 0
    if (docked) {
      docked.section.classList.add("docked")
      docked.fillHead()
      room.observe(docked.dock)
    }
    return Boolean(docked)
  }
}

// The order in which this browser meets an exercise's variants: one whole number, made once and kept.
const SEED_KEY = "overlap-lab-variant-seed-v1"
function variantSeed() {
  let seed = null
  try { seed = Number(window.localStorage.getItem(SEED_KEY)) } catch (error) {}
  if (!Number.isSafeInteger(seed) || seed <= 0) {
    const words = new Uint32Array(1)
    window.crypto.getRandomValues(words)
    seed = words[0] + 1
    try { window.localStorage.setItem(SEED_KEY, String(seed)) } catch (error) {}
  }
  return seed
}

// Bring ``target`` to the top of the screen and keep it there while the page settles around it (the
// lab moved under the card, the dock taken out of the flow, the lab's plots laid out again), for a
// second at most and only until the student presses, types or scrolls.
function bringToTop(target, watched) {
  let acted = false
  const act = () => { acted = true }
  const events = ["pointerdown", "keydown", "wheel", "touchstart"]
  for (const type of events) window.addEventListener(type, act, { capture: true, once: true })
  const place = () => { if (!acted) target.scrollIntoView({ block: "start" }) }
  const settling = new ResizeObserver(place)
  settling.observe(watched)
  settling.observe(target)
  requestAnimationFrame(place)
  setTimeout(() => {
    settling.disconnect()
    for (const type of events) window.removeEventListener(type, act, { capture: true })
  }, 1000)
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

// The lab's pane: beside the text on a wide screen (as high as the page's scrolling area inside its
// padding, where the pane is pinned, so the picture at its top, the active card and the pane's last
// line are in one view), after the active card on a narrow one.
function placeLab(root, parts, footer, pane, cards, from) {
  const wide = window.matchMedia(`(min-width: ${from}px)`)
  const scroller = document.getElementById("main")
  const fit = () => {
    if (!wide.matches || !scroller) return void (pane.style.maxHeight = "")
    const style = getComputedStyle(scroller)
    const room = scroller.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom)
    pane.style.maxHeight = `${Math.max(200, room)}px`
  }
  const place = () => {
    if (wide.matches) {
      if (pane.parentNode !== root) root.append(pane)
    } else {
      const active = cards.find((card) => card && card.card.active)
      const anchor = active ? active.section : null
      if (anchor && anchor.nextSibling !== pane) anchor.after(pane)
      else if (!anchor && pane.nextSibling !== footer) parts.insertBefore(pane, footer)
    }
    fit()
  }
  wide.addEventListener("change", place)
  window.addEventListener("resize", fit)
  return place
}

// A lesson page's prose travels once, in the page's first paint (app/course/lesson_first_paint.py),
// not again in the session's document: copied from there the first time, by its digest, and kept for a
// later drawing of the text (the first paint is gone by then). Null when the page does not hold it.
const proseInPage = new Map()
function proseFromPage(key, count) {
  if (!proseInPage.has(key)) {
    const parts = []
    for (const element of document.querySelectorAll(`[data-prose-key="${CSS.escape(key)}"]`)) {
      parts[Number(element.dataset.prose)] = element.innerHTML
    }
    const whole = parts.length === count && Array.from(parts).every((part) => typeof part === "string")
    if (!whole) return null
    proseInPage.set(key, parts)
  }
  return proseInPage.get(key)
}

export function render({ model }) {
  const root = document.createElement("div")
  root.className = "lesson"
  const parts = document.createElement("div")
  parts.className = "lesson-parts"
  root.append(parts)
  const cards = []
  let footer = null
  let texts = model.prose
  if (model.prose_key && !model.prose.some(Boolean)) {
    texts = proseFromPage(model.prose_key, model.prose.length)
    if (texts === null) {  // not in this page (served by another version): the server sends it
      texts = model.prose
      model.send_msg({ prose: "wanted" })
    }
  }
  const proseBoxes = []
  model.on("prose", () => {
    for (const [index, box] of proseBoxes.entries()) if (box) box.innerHTML = model.prose[index]
  })
  for (const [kind, index] of model.order) {
    if (kind === "prose") {
      const prose = document.createElement("div")
      prose.className = "prose"
      prose.innerHTML = texts[index]
      proseBoxes[index] = prose
      parts.append(prose)
      footer = prose
    } else {
      const card = drawCard((msg) => model.send_msg({ card: index, ...msg }), model.share_base)
      cards[index] = card
      parts.append(card.section)
      footer = null
    }
  }
  // A code block or table wider than the text scrolls in its own box; a keyboard user must be able
  // to reach it to scroll it (WCAG 2.1.1), so such a box takes a tab stop, and only while it scrolls.
  const reachable = () => {
    for (const box of parts.querySelectorAll(".prose pre, .prose table")) {
      if (box.scrollWidth > box.clientWidth + 1) box.tabIndex = 0
      else box.removeAttribute("tabindex")
    }
  }
  new ResizeObserver(reachable).observe(parts)
  let place = () => {}
  let pane = null
  const lab = model.get_child("lab")
  if (lab) {
    pane = document.createElement("div")
    pane.className = "lesson-lab"
    pane.append(lab)
    root.classList.add("with-lab")
    const end = document.createElement("div")  // where the lab goes on a narrow screen with no exercise active
    parts.insertBefore(end, footer)
    place = placeLab(root, parts, end, pane, cards, model.side_by_side_from)
  }
  const wide = window.matchMedia(`(min-width: ${model.side_by_side_from}px)`)
  const dockRunning = dockCards(cards, wide)
  wide.addEventListener("change", () => dockRunning())
  root.addEventListener("overlap-read-why", () => {
    dockRunning()
    place()
  })
  let opened = false
  let judged = new Set()  // the cards showing a verdict
  const draw = (entries) => {
    for (const [i, values] of entries) if (cards[i]) cards[i].show(model.card_fields, values)
  }
  draw(JSON.parse(model.cards_json).entries())
  const update = () => {
    draw(Object.entries(JSON.parse(model.card_updates)).map(([i, values]) => [Number(i), values]))
    place()
    const docking = dockRunning()
    const verdict = cards.find((card, i) => card && card.card.feedback_html && !judged.has(i))
    judged = new Set(cards.flatMap((card, i) => (card && card.card.feedback_html ? [i] : [])))
    // A run starting on a phone: its question and prediction are in the dock, so the lab's picture
    // and time bar come to the top of the screen above it (not when the page opens: a deep link
    // shows its card first). So again when its verdict comes into the dock: the explanation drawn in
    // the card above the lab would push the finished picture down where the browser's scroll
    // anchoring cannot hold it (the sample trace's lab redrawn as it loads).
    const docked = verdict && verdict.section.classList.contains("docked")
    if ((docking || docked) && opened && pane) bringToTop(pane, root)
    opened = true
  }
  update()
  model.on("card_updates", update)

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
  // The page's first paint (app/web/first_paint.py) gives way once this text is in the page: Panel
  // puts it there right after this function returns, in the same task.
  queueMicrotask(() => window.dispatchEvent(new CustomEvent("overlap-drawn", { detail: "lesson" })))
  return root
}
