// A page's first paint (app/web/first_paint.py) gives way to the live page at once, in the task that
// draws the live page, so that the two are never on screen (nor in the page's tree) together: once
// every root of <main> is drawn and, where the first paint names one (data-until), the component
// that replaces it has said so (an "overlap-drawn" event on window with that name as its detail).
// Until then the live roots are laid out under it, unseen (#main.painting), out of the accessibility tree
// and out of reach of the keyboard (aria-hidden, inert). Without scripts the first paint simply stays.
(() => {
  const paint = document.getElementById("first-paint")
  if (!paint) return
  const main = paint.parentElement
  const until = paint.dataset.until || ""
  let heard = until === ""
  const SPARE_MS = 15000  // a component that never says so (its build failed): show what the server sent
  let spare = null
  const roots = () => [...main.querySelectorAll(":scope > [data-root-id]")]
  const drawn = () => roots().length > 0 && roots().every((root) => root.firstElementChild)
  const hide = (hidden) => {
    for (const root of roots()) {
      if (hidden) root.setAttribute("aria-hidden", "true")
      else root.removeAttribute("aria-hidden")
      root.inert = hidden
    }
  }
  const done = () => {
    if (!paint.isConnected) return
    hide(true)  // each root as the page's parser adds it
    if (!drawn()) return
    if (!heard) {
      if (spare === null) spare = setTimeout(() => { heard = true; done() }, SPARE_MS)
      return
    }
    paint.remove()
    main.classList.remove("painting")
    hide(false)
    watcher.disconnect()
    window.removeEventListener("overlap-drawn", hear)
    clearTimeout(spare)
  }
  const hear = (event) => {
    if (event.detail !== until) return
    heard = true
    done()
  }
  main.classList.add("painting")
  window.addEventListener("overlap-drawn", hear)
  const watcher = new MutationObserver(done)
  watcher.observe(main, { childList: true, subtree: true })
})()
