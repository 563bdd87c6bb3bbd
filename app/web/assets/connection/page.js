// Finding the page's named regions and their controls, through every shadow tree.

// Every element under `root`, shadow trees included (Panel draws each component in a shadow root).
function deepElements(root) {
  const found = []
  const roots = [root]
  while (roots.length) {
    const node = roots.pop()
    for (const el of node.querySelectorAll("*")) {
      found.push(el)
      if (el.shadowRoot) roots.push(el.shadowRoot)
    }
  }
  return found
}

// The page's named regions: each lab ("Queue lab") and each exercise card ("Exercise: …").
function regions() {
  return deepElements(document).filter(
    (el) => el.getAttribute("role") === "region" && el.getAttribute("aria-label")
  )
}

function deepActiveElement() {
  let active = document.activeElement
  while (active && active.shadowRoot && active.shadowRoot.activeElement) {
    active = active.shadowRoot.activeElement
  }
  return active
}

function controlName(el) {
  const label = el.getAttribute("aria-label") || (el.labels && el.labels[0] ? el.labels[0].textContent : "")
  return (label || "").trim()
}

function isExercise(region) {
  return region.getAttribute("aria-label").startsWith("Exercise:")
}
