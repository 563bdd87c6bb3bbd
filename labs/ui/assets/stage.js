// A lab laid out like a simulation (labs/ui/stage.py): the picture with its time bar first, the
// parameters in titled panels beside it (a wide lab) or under it (a narrow one), then the rest.
// <section role=region aria-label=...> holds it all, so screen readers and role queries find the lab.
let counter = 0

function panel(group, children, level, wideFrom) {
  // A group the student rarely needs is a <details> (a named disclosure, keyboard operable); the
  // others are a named group with a heading.
  const id = `panel-${Date.now().toString(36)}-${counter++}`
  const box = document.createElement(group.collapsible ? "details" : "div")
  box.className = "panel"
  const heading = document.createElement(level)  // under the lab's h2 in a lesson, under the page's h1 alone
  heading.id = id
  heading.textContent = group.title
  if (group.collapsible) {
    const summary = document.createElement("summary")
    summary.append(heading)
    box.append(summary)
    // "wide": open where there is room for it (a laptop), folded on a phone.
    box.open = group.open === "wide" ? window.matchMedia(`(min-width: ${wideFrom}px)`).matches : Boolean(group.open)
  } else {
    box.setAttribute("role", "group")
    box.setAttribute("aria-labelledby", id)
    box.append(heading)
  }
  const fields = document.createElement("div")
  fields.className = "fields"
  fields.append(...children)
  box.append(fields)
  return box
}

export function render({ model }) {
  const section = document.createElement("section")
  section.setAttribute("role", "region")
  section.setAttribute("aria-label", model.label)
  section.className = model.pinned ? "stage pinned" : "stage"
  if (model.heading) {
    const heading = document.createElement("h2")
    heading.textContent = model.heading
    section.append(heading)
  }
  const picture = document.createElement("div")
  picture.className = "picture"
  picture.append(model.get_child("picture"))
  const panels = document.createElement("div")
  panels.className = "panels"
  // Each control is a Panel object's element (controls) or a field the stage draws (fields.js).
  const children = model.get_child("controls")
  const fields = []
  const send = (msg) => model.send_msg(msg)
  const states = JSON.parse(model.fields_json).fields
  const elements = model.places.map(([kind, index]) => {
    if (kind !== "field") return children[index]
    const field = FIELD_KINDS[states[index].kind](index, send)
    field.update(states[index])
    fields[index] = field
    return field.element
  })
  const byKey = new Map(model.keys.map((key, i) => [key, elements[i]]))
  let next = 0
  for (const group of model.groups) {
    panels.append(panel(group, elements.slice(next, next + group.count), model.heading ? "h3" : "h2", model.wide_from))
    next += group.count
  }
  // Sent again after each message the page sent (its count changes): a value the server put back as it
  // was is drawn over what the page typed.
  model.on("fields_json", () => JSON.parse(model.fields_json).fields.forEach((state, i) => fields[i].update(state)))
  const more = document.createElement("div")
  more.className = "more"
  more.append(model.get_child("more"))
  const layout = document.createElement("div")
  layout.className = "layout"
  layout.append(picture, panels, more)
  section.append(layout)

  // The nearest box the stage scrolls in (the lesson's lab pane), scrolling now or, with `any`, able to.
  const scroller = (any = false) => {
    for (let el = section; el; el = el.parentElement || (el.getRootNode() && el.getRootNode().host)) {
      const overflow = getComputedStyle(el).overflowY
      if ((overflow === "auto" || overflow === "scroll") && (any || el.scrollHeight > el.clientHeight)) return el
    }
    return document.scrollingElement
  }

  // A pinned picture stays at the top of the lesson's lab pane while the panels scroll under it, but
  // only where the pane leaves room under it for a field with its label and a refusal (ROOM px, give
  // or take SWAY so a note under Play coming and going does not pin and unpin it): on a short laptop
  // screen a pinned picture would leave the panels a slot too thin to correct a field in. A control
  // brought into view must then land below the picture, not behind it (--pinned, its scroll margin).
  const ROOM = 180
  const SWAY = 20
  const pinnedHeight = () => {
    const area = scroller(true)
    const height = Math.min(window.innerHeight, area === document.scrollingElement ? window.innerHeight : area.clientHeight)
    const room = height - picture.offsetHeight
    const roomy = section.classList.contains("roomy")
    if (roomy ? room < ROOM - SWAY : room >= ROOM + SWAY) section.classList.toggle("roomy", !roomy)
    const sticky = getComputedStyle(picture).position === "sticky"
    section.style.setProperty("--pinned", sticky ? `${picture.offsetHeight + 8}px` : "0px")
  }
  if (model.pinned && typeof ResizeObserver !== "undefined") {
    new ResizeObserver(pinnedHeight).observe(picture)
    window.addEventListener("resize", pinnedHeight)
  }

  // A field under the pinned picture (the browser scrolls only the control itself, or its refusal,
  // into the pane, where the picture lies over it): scroll the pane back until the whole field, its
  // label first, is below the picture, so no control being used or corrected is hidden.
  const uncover = (field) => {
    if (getComputedStyle(picture).position !== "sticky") return
    const covered = picture.getBoundingClientRect().bottom + 8 - field.getBoundingClientRect().top
    if (covered > 0) scroller().scrollBy(0, -covered)
  }
  section.addEventListener("focusin", (event) => {
    const path = event.composedPath()
    if (path.includes(picture)) return
    const field = path.find((el) => el.parentElement && el.parentElement.classList.contains("fields")) || path[0]
    requestAnimationFrame(() => uncover(field))  // after the browser's own scroll to the control
  })
  section.addEventListener("overlap-uncover", (event) => uncover(event.target))  // a refusal brought on screen

  // An exercise step that sets a control brings it into view (opening its panel) and marks it.
  model.on("msg:custom", (msg) => {
    // The next step is a run: bring the picture and its time bar back into view (after a control far
    // below), its top first: a note under Play may still be going away (the lab set up), and a
    // picture lined up by its bottom would keep its top above the screen once it has.
    if (msg && msg.picture) return requestAnimationFrame(() => {
      const box = picture.getBoundingClientRect()
      const area = scroller()
      const view = area === document.scrollingElement ? { top: 0, bottom: window.innerHeight } : area.getBoundingClientRect()
      const below = parseFloat(getComputedStyle(area).scrollPaddingBottom) || 0  // a docked exercise
      if (box.top < view.top || box.bottom > view.bottom - below) picture.scrollIntoView({ block: "start" })
    })
    const child = msg && byKey.get(msg.spotlight)
    if (!child) return
    const details = child.closest("details")
    if (details) details.open = true
    pinnedHeight()
    child.classList.remove("spotlight")
    void child.offsetWidth  // restart the mark's animation
    child.classList.add("spotlight")
    child.scrollIntoView({ block: "nearest", inline: "nearest" })
    uncover(child)  // a control taller than the room under a pinned picture: its top first
  })
  model.on("label", () => section.setAttribute("aria-label", model.label))
  // The page's first paint (app/web/first_paint.py) gives way once the lab is in the page: Panel
  // puts it there right after this function returns, in the same task.
  queueMicrotask(() => window.dispatchEvent(new CustomEvent("overlap-drawn", { detail: "lab" })))
  return section
}
