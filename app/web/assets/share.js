// The "Share" button (app/web/share.py): a lab page's ShareButton (shareHeading) and every exercise
// card of the lesson text (app/course/assets/lesson_text.js) draw it with shareWidget(). Plain functions, no
// export: the file is put in front of each component's module, so its top-level names start with
// "share". Under Node (tests/js/share.test.js) it exports the pure part.
//
// The addresses are made here, in the browser: relative to the public URL when the server has one
// (--public-url), else to the page's own address, so the host is the one the student's browser
// used and a proxy serving the course under a path of its own keeps its path.

let shareCounter = 0

// Text for an HTML attribute value between double quotes.
function shareEscape(text) {
  return String(text)
    .replace(/&/g, "&amp;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#x27;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
}

// The link, the embed address and the <iframe> snippet for `link` and `embed` (paths relative to
// the course's root, e.g. "queue" and "embed/queue"; embed "" when this server has no embed pages)
// against `base` (an absolute URL ending in "/", or the page's own address).
function shareAddresses(base, link, embed, title) {
  const absolute = (path) => new URL(path, base).href
  const embedUrl = embed ? absolute(embed) : ""
  const snippet = embedUrl
    ? `<iframe src="${shareEscape(embedUrl)}" title="${shareEscape(title)}" width="100%" height="720" ` +
      'style="border:0" loading="lazy"></iframe>'
    : ""
  return { link: absolute(link), embed: embedUrl, snippet }
}

// Copy `field`'s text: the Clipboard API where the browser offers it (https or localhost), else the
// selected text and execCommand("copy"); if both are refused, the text is left selected and the
// status says to copy it by hand. Never throws.
async function shareCopy(field, status, copied) {
  status.textContent = ""
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(field.value)
      status.textContent = copied
      return
    }
  } catch (error) {
    // refused (no permission, page not focused): fall through to the older way
  }
  let done = false
  try {
    field.focus()
    field.select()
    done = document.execCommand("copy")
  } catch (error) {
    done = false
  }
  status.textContent = done ? copied : "Select the text and copy it (the browser refused to copy)"
}

function shareField(kind, labelText, value, copyName, copied, status) {
  const row = document.createElement("div")
  row.className = "share-field"
  const id = `share-${kind}-${Date.now().toString(36)}-${shareCounter++}`
  const label = document.createElement("label")
  label.htmlFor = id
  label.textContent = labelText
  const field = document.createElement(kind === "embed" ? "textarea" : "input")
  field.id = id
  field.readOnly = true
  field.value = value
  if (kind === "embed") field.rows = 4
  else field.type = "text"
  field.spellcheck = false
  const copy = document.createElement("button")
  copy.type = "button"
  copy.textContent = copyName
  copy.addEventListener("click", () => { shareCopy(field, status, copied) })
  row.append(label, field, copy)
  return row
}

// One Share button and the panel it opens. `options`: link and embed (paths relative to the course's
// root; embed "" when this server cannot serve embed pages), title (the <iframe>'s title), base (the
// public URL, or "" for the page's own address). The panel is built when first opened.
function shareWidget(options) {
  const box = document.createElement("div")
  box.className = "share"
  const toggle = document.createElement("button")
  toggle.type = "button"
  toggle.className = "share-toggle"
  toggle.textContent = "Share"
  toggle.setAttribute("aria-expanded", "false")
  const panel = document.createElement("div")
  panel.className = "share-panel"
  panel.id = `share-panel-${Date.now().toString(36)}-${shareCounter++}`
  panel.hidden = true
  toggle.setAttribute("aria-controls", panel.id)
  box.append(toggle, panel)

  const now = (value) => (typeof value === "function" ? value() : value)  // a lab's link follows its settings
  const fill = () => {
    const shared = shareAddresses(options.base || window.location.href, now(options.link), now(options.embed), options.title)
    const status = document.createElement("p")
    status.className = "share-status"
    status.setAttribute("role", "status")
    const rows = [shareField("link", "Link", shared.link, "Copy link", "Link copied", status)]
    if (shared.snippet) {
      rows.push(shareField("embed", "Embed code", shared.snippet, "Copy embed code", "Embed code copied", status))
    } else {
      const note = document.createElement("p")
      note.className = "share-note"
      note.textContent = "Embedding in another site needs the course's own server (make serve, or python -m app)."
      rows.push(note)
    }
    panel.replaceChildren(...rows, status)
  }
  const open = (show) => {
    if (show) fill()  // the addresses as they are now: a lab's settings may have changed since
    panel.hidden = !show
    toggle.setAttribute("aria-expanded", String(show))
  }
  toggle.addEventListener("click", () => open(panel.hidden))
  box.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || panel.hidden) return
    event.stopPropagation()
    open(false)
    toggle.focus()
  })
  return box
}

// A lab page's heading (trusted HTML from the server) with its Share button under it: ShareButton's view.
// Its panel opens over the page (the lab's picture under it does not move) and carries the lab's
// settings as they are when it opens (model.link and model.embed follow them on the server).
function shareHeading(model) {
  const box = document.createElement("div")
  box.innerHTML = model.heading_html
  const widget = shareWidget({ link: () => model.link, embed: () => model.embed, title: model.frame_title, base: model.base })
  widget.classList.add("over")
  box.append(widget)
  return box
}

// Under Node only (the page has a window, and no module of its own here):
if (typeof window === "undefined" && typeof module !== "undefined") module.exports = { shareAddresses, shareEscape }
