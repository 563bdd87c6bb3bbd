"""What a concealed exercise draws, read from the page's own Bokeh document in Chromium.

Issue 34: nothing gives an answer away before the lock. The roofline's pieces carry names
(``labs.roofline.figures.NAMES``); the page's BokehJS models are read by those names, so this is what
the browser itself holds and draws, not what the server meant to send.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from labs.roofline.figures import NAMES
from labs.roofline.text import X_RANGE
from tests.student import type_value
from tests.waiting import poll

pytestmark = pytest.mark.browser

READ_MODELS = """(names) => {
  // Every model of the page's Bokeh documents whose name is one of ``names``: what it draws.
  const plain = (value) => {
    if (value === null || value === undefined) return null
    if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [k, plain(v)]))
    if (ArrayBuffer.isView(value)) return Array.from(value)
    if (Array.isArray(value)) return value.map(plain)
    if (typeof value !== "object") return value
    if ("id" in value && "type" in value) return String(value.type)  // a model, e.g. a frame's edge
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]))
  }
  const found = {}
  for (const doc of (window.Bokeh && Bokeh.documents) || []) {
    for (const model of doc.all_models) {
      if (!names.includes(model.name)) continue
      const piece = {type: model.type, visible: model.visible}
      if (model.data_source) piece.data = plain(model.data_source.data)
      if (model.glyph && "line_dash" in model.glyph) {
        piece.line_dash = plain(model.glyph.line_dash)
        piece.line_alpha = plain(model.glyph.line_alpha)
      }
      for (const key of ["location", "text", "left", "right"]) {
        if (key in model) piece[key] = plain(model[key])
      }
      (found[model.name] ??= []).push(piece)
    }
  }
  return found
}"""

RIDGE = 10.0
"""The ridge at the exercise's settings: P / B = 1000 / 100 FLOP/byte."""


def drawn(page: Page) -> dict[str, dict]:
    """The roofline's named pieces as the page holds them, by their name in :data:`NAMES`."""
    found = page.evaluate(READ_MODELS, list(NAMES.values()))
    assert all(len(pieces) == 1 for pieces in found.values()), found  # one roofline on the page
    return {name: pieces[0] for name, pieces in found.items()}


def value(spec: object) -> object:
    """A glyph property's value: BokehJS holds ``{"value": ...}`` for one not read from a column."""
    return spec["value"] if isinstance(spec, dict) and "value" in spec else spec


def xs(piece: dict) -> list[float]:
    return list(piece["data"]["x"])


def concealed_as_two_ceilings(page: Page) -> list[str]:
    """What the roofline draws beyond its two ceilings, or where they are not two straight lines (empty: fine)."""
    pieces = drawn(page)
    if set(pieces) != set(NAMES.values()):
        return [f"missing from the page: {sorted(set(NAMES.values()) - set(pieces))}"]
    wrong = []
    roof = pieces[NAMES["roof_line"]]
    memory, compute = pieces[NAMES["memory_ceiling"]], pieces[NAMES["compute_ceiling"]]
    if roof["visible"] or xs(roof):
        wrong.append(f"the bent roof at {xs(roof)}")
    for name in ("ridge_line", "ridge_label", "memory_area", "compute_area", "memory_name", "compute_name"):
        if pieces[NAMES[name]]["visible"]:
            wrong.append(f"the {NAMES[name]}")
    if pieces[NAMES["ridge_label"]]["text"]:
        wrong.append(f"the ridge label's text {pieces[NAMES['ridge_label']]['text']!r}")
    for name in ("ridge_point", "kernel"):
        if xs(pieces[NAMES[name]]):
            wrong.append(f"the {NAMES[name]}")
    ceilings = ((memory, "slope", [X_RANGE[0] * 100, X_RANGE[1] * 100]), (compute, "roof", [1000, 1000]))
    for ceiling, column, ys in ceilings:
        if not ceiling["visible"] or xs(ceiling) != list(X_RANGE) or list(ceiling["data"][column]) != ys:
            wrong.append(f"a ceiling that is not one straight line across the plot: {ceiling}")
        if value(ceiling["line_dash"]) != [] or value(ceiling["line_alpha"]) < 0.8:
            wrong.append(f"a ceiling drawn as a faint guide: {ceiling}")
    if any(x == RIDGE for piece in (roof, memory, compute) for x in xs(piece)):
        wrong.append("a line with a vertex at the ridge")
    return wrong


def ridge_and_regions_drawn(page: Page) -> bool:
    """Whether the roof bends at the ridge again, with its line, its label and both regions named."""
    pieces = drawn(page)
    return (
        xs(pieces[NAMES["roof_line"]]) == [X_RANGE[0], RIDGE, X_RANGE[1]]
        and pieces[NAMES["ridge_line"]]["visible"]
        and pieces[NAMES["ridge_line"]]["location"] == RIDGE
        and xs(pieces[NAMES["ridge_point"]]) == [RIDGE]
        and pieces[NAMES["ridge_label"]]["text"] == "ridge = 10 FLOP/byte"
        and all(pieces[NAMES[name]]["visible"] for name in ("memory_area", "compute_area"))
        and all(pieces[NAMES[name]]["visible"] for name in ("memory_name", "compute_name"))
        and xs(pieces[NAMES["kernel"]]) == [8]
    )


def test_a_concealed_roofline_draws_two_ceilings_and_nothing_where_they_cross(page: Page):
    page.goto(page.base_url + "/lesson?id=hidden")  # type: ignore[attr-defined]
    card = page.get_by_role("region", name="Exercise: A kernel at 8 FLOP/byte")
    card.get_by_role("button", name="Start this exercise").click()
    prediction = card.get_by_role("textbox", name="Your prediction")
    expect(prediction).to_be_visible()
    lab = page.get_by_role("region", name="Roofline lab")
    lab.get_by_role("button", name="Reset").click()
    type_value(lab, "Arithmetic intensity I", "8")
    type_value(lab, "Memory bandwidth B", "100")
    status = lab.get_by_role("status").first
    expect(status).to_contain_text("attainable = ? GFLOP/s")
    expect(status).to_contain_text("ridge = ? FLOP/byte")
    expect(lab.get_by_role("button", name="Play")).to_be_disabled()
    # The readout and the chart come in one message; the chart is read once it holds B = 100.
    poll(
        lambda: list(drawn(page).get(NAMES["memory_ceiling"], {}).get("data", {}).get("slope", [])) == [6.25, 409600],
        page=page,
        what="the memory ceiling drawn for B = 100 GB/s",
    )
    assert concealed_as_two_ceilings(page) == []
    roofline = lab.get_by_role("img", name="Roofline plot")
    expect(roofline).to_have_accessible_name(re.compile(r"Two ceilings, each a straight line"))
    assert not re.search(r"ridge|bound", roofline.get_attribute("aria-label") or "")

    prediction.fill("800")
    card.get_by_role("button", name="Lock prediction").click()
    expect(lab.get_by_role("button", name="Play")).to_be_enabled()
    assert concealed_as_two_ceilings(page) == [], "locked, not yet run: still concealed"
    lab.get_by_role("button", name="Play").click()
    expect(card.get_by_role("status")).to_contain_text("Correct")
    expect(status).to_contain_text("ridge = 10 FLOP/byte")
    poll(lambda: ridge_and_regions_drawn(page), page=page, what="the ridge, the bent roof and both regions back")
