"""Two BokehJS 3.9 widget-view problems, shown in headless Chromium on a static page (stock Bokeh).

A. A control's model changed after its view is built and connected but before it is drawn (what
   happens to a new layout's controls while the layout waits for another child's ``lazy_initialize``)
   throws a TypeError in the view's signal handler, and the rest of that change is lost.
B. A button's label change removes the label, then replaces the whole ``<button>`` element: the
   focused button is detached, so keyboard focus falls back to the document.

The page is ``bokeh.embed.file_html`` with inline resources (no network). Needs Playwright and a
Chromium (``/usr/bin/chromium`` if present, else Playwright's own). Run: python bokeh_fixes_js.py.
"""

import tempfile
from pathlib import Path

from bokeh.embed import file_html
from bokeh.models import Button, Column, Select, Slider, TextInput
from bokeh.resources import INLINE
from playwright.sync_api import sync_playwright

BUILT_NOT_DRAWN = """async ([kind, first, change]) => {
  const { build_view } = Bokeh.require("core/build_views")
  const model = new Bokeh.Widgets[kind](first)
  const view = await build_view(model, { parent: null })  // built and connected, not drawn
  try {
    model.setv(change)
    return "no error"
  } catch (error) {
    return String(error)
  }
}"""

LABEL_CHANGE = """async () => {
  const { build_view } = Bokeh.require("core/build_views")
  const model = new Bokeh.Widgets.Button({ label: "Play" })
  const view = await build_view(model, { parent: null })
  const box = document.createElement("div")
  document.body.append(box)
  view.render_to(box)
  const root = view.el.shadowRoot
  const button = root.querySelector("button")
  button.focus()
  const seen = { emptied: 0, removed: 0 }
  new MutationObserver(() => {
    if (!button.isConnected) seen.removed = 1
    if (button.textContent.trim() === "") seen.emptied = 1
  }).observe(root, { childList: true, subtree: true, characterData: true })
  model.label = "Pause"
  await new Promise((resolve) => setTimeout(resolve, 200))
  const now = root.querySelector("button")
  return {
    same_element: now === button,
    old_element_connected: button.isConnected,
    emptied_on_the_way: Boolean(seen.emptied),
    focus_in_button: root.activeElement === now,
    document_focus: document.activeElement.tagName,
    text: now.textContent.trim(),
  }
}"""

CASES = {
    "Button disabled -> enabled": ("Button", {"label": "Step", "disabled": True}, {"disabled": False}),
    "TextInput enabled + value": ("TextInput", {"value": "1", "disabled": True}, {"disabled": False, "value": "7"}),
    "Select new options + value": ("Select", {"options": ["a", "b"], "value": "a"}, {"options": ["b", "c"],
                                                                                    "value": "c"}),
    "Slider enabled + value": ("Slider", {"start": 0, "end": 10, "value": 1, "step": 1, "disabled": True},
                               {"disabled": False, "value": 4}),
}


def main() -> None:
    """Write the page, open it in Chromium and run both checks."""
    layout = Column(Button(label="b"), TextInput(), Select(options=["a"]), Slider(start=0, end=1, value=0))
    html = file_html(layout, INLINE, "BokehJS widget views")
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        page_file = Path(tmp) / "page.html"
        page_file.write_text(html)
        chromium = Path("/usr/bin/chromium")
        browser = p.chromium.launch(
            executable_path=str(chromium) if chromium.exists() else None,
            args=["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
        )
        page = browser.new_page()
        page.goto(page_file.as_uri())
        page.wait_for_function("() => window.Bokeh && Bokeh.index && Object.keys(Bokeh.index).length >= 0")
        print("Bokeh", page.evaluate("() => Bokeh.version"))
        print("A. a change between connect and draw:")
        for name, args in CASES.items():
            print(f"   {name:28s} {page.evaluate(BUILT_NOT_DRAWN, list(args))}")
        print("B. a focused button's label changed from Play to Pause:")
        for key, value in page.evaluate(LABEL_CHANGE).items():
            print(f"   {key:22s} {value}")
        browser.close()


if __name__ == "__main__":
    main()
