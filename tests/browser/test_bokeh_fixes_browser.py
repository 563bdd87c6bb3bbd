"""In Chromium: a control changed before Bokeh has drawn it is drawn with the change
(``app/upstream/assets/bokeh_fixes.js``).

Bokeh connects a new layout's views before it draws them, and a lab's layout waits for its JS
components' modules in between. A change in that moment made BokehJS 3.9 throw "Cannot read
properties of undefined (reading 'removeAttribute')" and drop the rest of the message: the CI
failure of stop 26 in ``test_slow_server_browser.py``, where the student locks a prediction as the
lab arrives and Step is turned on. This test puts a control in that moment on purpose, on a real
course page: its view built and connected, not drawn. Without the fix every case below throws.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

BUILT_NOT_DRAWN = """async ([kind, first, change]) => {
  const { build_view } = Bokeh.require("core/build_views")
  const makers = {
    Button: () => new Bokeh.Widgets.Button({ label: "Later" }),
    TextInput: () => new Bokeh.Widgets.TextInput({ value: "1" }),
    Select: () => new Bokeh.Widgets.Select({ options: ["a", "b"], value: "a" }),
    Slider: () => new Bokeh.Widgets.Slider({ start: 0, end: 10, value: 1, step: 1 }),
  }
  const model = makers[kind]()
  model.setv(first)
  const view = await build_view(model, { parent: null })
  let error = null
  try {
    model.setv(change)
  } catch (thrown) {
    error = String(thrown)
  }
  const box = document.createElement("div")
  document.body.append(box)
  view.render_to(box)
  const control = [...view.controls()][0]
  const state = (el) => ({
    disabled: el.hasAttribute("disabled"),
    value: kind == "Select" || kind == "TextInput" ? el.value : null,
    options: kind == "Select" ? [...el.options].map((option) => option.value) : null,
  })
  const drawn = state(control)
  model.setv(first)  // once drawn, a change reaches the element as it always did
  const redrawn = state([...view.controls()][0])
  view.remove()
  box.remove()
  return { error, drawn, redrawn }
}"""

CASES = {
    "button-turned-on": ("Button", {"disabled": True}, {"disabled": False}),
    "button-turned-off": ("Button", {"disabled": False}, {"disabled": True}),
    "input-turned-on-and-typed": ("TextInput", {"disabled": True}, {"disabled": False, "value": "7"}),
    "select-new-options-and-value": ("Select", {"disabled": True}, {"options": ["b", "c"], "value": "c"}),
    "select-turned-on": ("Select", {"disabled": True}, {"disabled": False}),
    "slider-turned-on": ("Slider", {"disabled": True}, {"disabled": False, "value": 4}),
}


@pytest.mark.parametrize(("kind", "first", "change"), CASES.values(), ids=CASES.keys())
def test_a_control_changed_before_it_is_drawn_is_drawn_with_the_change(page, kind, first, change):
    page.goto(page.base_url + "/lesson?id=hidden")
    page.get_by_role("region", name="Roofline lab").get_by_role("button", name="Reset").wait_for()
    outcome = page.evaluate(BUILT_NOT_DRAWN, [kind, first, change])
    assert outcome["error"] is None, outcome["error"]
    drawn, redrawn = outcome["drawn"], outcome["redrawn"]
    assert drawn["disabled"] == change.get("disabled", first["disabled"]), outcome
    assert redrawn["disabled"] == first["disabled"], outcome
    if "value" in change and kind in ("TextInput", "Select"):
        assert drawn["value"] == change["value"], outcome
    if "options" in change:
        assert drawn["options"] == change["options"], outcome


WATCH_THE_BUTTON = """(button) => {
  // Every time the Play/Pause <button> leaves its shadow root or shows no text, noted.
  const root = button.getRootNode()
  const seen = { removed: 0, empty: 0 }
  const observer = new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.removedNodes) {
        if (node === button || (node instanceof Element && node.contains(button))) seen.removed += 1
      }
    }
    if (button.textContent.trim() === "") seen.empty += 1
  })
  observer.observe(root, { childList: true, subtree: true, characterData: true })
  window.__playButtonSeen = seen
}"""


def test_play_becomes_pause_in_the_same_button(page):
    """Play ↔ Pause changes the words of the one <button>: never removed, never empty, focus kept.

    BokehJS 3.9 alone rebuilds the label and then the element (the fuzz's intercepted Pause clicks).
    """
    page.goto(page.base_url + "/queue")
    lab = page.get_by_role("region", name="Queue lab")
    lab.get_by_role("combobox", name="Speed").select_option("0.5×")
    play = lab.get_by_role("button", name="Play")
    handle = play.element_handle()
    page.evaluate(WATCH_THE_BUTTON, handle)
    play.focus()
    page.keyboard.press("Enter")
    expect(lab.get_by_role("button", name="Pause")).to_be_visible()
    page.keyboard.press("Enter")
    expect(lab.get_by_role("button", name="Play")).to_be_visible()
    assert handle.evaluate("(button) => button.isConnected && button.getRootNode().activeElement === button")
    assert page.evaluate("() => window.__playButtonSeen") == {"removed": 0, "empty": 0}
    assert handle.evaluate("(button) => button.textContent.trim()") == "Play"
