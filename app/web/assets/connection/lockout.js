// While the connection is lost: every control inside the page's regions disabled, and events on them stopped.

function disableRegions() {
  const active = deepActiveElement()
  let dropped = false
  for (const region of regions()) {
    region.dataset.offline = "paused"
    const inside = deepElements(region)
    // "change" and "submit" do not leave a shadow root: stop them at each root, before the control
    // (the region's own root holds the region and may hold controls; roots inside it hold only its own).
    const roots = [[region.getRootNode(), block], ...inside.filter((el) => el.shadowRoot).map((el) => [el.shadowRoot, stop])]
    for (const [root, handler] of roots) {
      if (root !== document && !state.guarded.has(root)) {
        state.guarded.add(root)
        for (const type of [...BLOCKED, "change", "submit"]) root.addEventListener(type, handler, true)
      }
    }
    for (const el of inside) {
      if (el.matches(CONTROLS) && !el.disabled) {
        el.disabled = true
        el.dataset.offlineDisabled = "1"
        if (el === active) dropped = true
      }
    }
  }
  return dropped
}

function enableRegions() {
  for (const region of regions()) {
    delete region.dataset.offline
    for (const el of deepElements(region)) {
      if (el.dataset.offlineDisabled) {
        el.disabled = false
        delete el.dataset.offlineDisabled
      }
    }
  }
}

// A control Bokeh draws again while the page is offline (Play ending in the browser, say) comes
// back enabled: events on anything inside a paused region are stopped before they reach it.
function stop(event) {
  if (!state.lost || (event.type === "keydown" && (event.key === "Tab" || event.key === "Shift"))) return
  event.preventDefault()
  event.stopImmediatePropagation()
}

function block(event) {
  if (event.composedPath().some((node) => node.dataset && node.dataset.offline)) stop(event)
}
