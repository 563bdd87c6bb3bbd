"""What a student does in a lab, written once for the browser tests: find by role and name."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from tests.waiting import STUCK_AFTER_S, poll

NUMBER = r"(-?[\d.]+)"


def field_name(label: str) -> re.Pattern[str]:
    """A field's accessible name: its label, then its unit in brackets or nothing.

    "Ranks p" names its field and not "Ranks per machine"'s; "Bucket cap" not "First bucket cap"'s.
    """
    return re.compile("^" + re.escape(label) + r"(?: \(|$)")


def open_lab(page: Page, path: str, name: str) -> Locator:
    """Open ``path`` and return the lab region called ``name`` once it is ready."""
    page.goto(page.base_url + path)  # type: ignore[attr-defined]
    lab = page.get_by_role("region", name=name)
    expect(lab.get_by_role("status").first).to_contain_text("=")
    return lab


def type_value(lab: Locator, field: str | re.Pattern[str], value: str) -> None:
    """Type into the input whose accessible name contains ``field`` (or matches it) and press Enter."""
    box = lab.get_by_role("textbox", name=field)
    box.fill(value)
    box.press("Enter")


REACHED_AT_MIDDLE = """
  const r = el.getBoundingClientRect()
  const x = r.x + r.width / 2, y = r.y + r.height / 2
  let hit = document.elementFromPoint(x, y)
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y)
    if (!inner || inner === hit) break
    hit = inner
  }
"""
"""The body of a page function of ``el``: ``r`` its box and ``hit`` what a click at its middle reaches,
through shadow roots (a control covered by something else reaches that)."""

READ_THROUGH = "e => ((e.shadowRoot && e.shadowRoot.querySelector('.readout')) || e).innerText"
"""A lab's live region is a Bokeh ``Div``'s own element, its text in the ``Div``'s shadow root (where
the host's ``innerText`` does not reach); any other status element is read as it is."""


def shown_text(status: Locator) -> str:
    """What a status element shows, read through the shadow root of a lab's readout."""
    return status.evaluate(READ_THROUGH)


def readout(lab: Locator) -> str:
    """The text of the lab's status readout."""
    return shown_text(lab.get_by_role("status").first)


def readings(lab: Locator) -> dict[str, float]:
    """Every ``name = number`` in one read of the readout, e.g. ``{"t": 1.0, "backlog": 5.0}``."""
    text = readout(lab)
    return {name: float(value) for name, value in re.findall(r"(\w+) = " + NUMBER, text)}


def reading(lab: Locator, label: str) -> float:
    """The number after ``label =`` in the readout, e.g. ``reading(lab, "backlog")``."""
    text = readout(lab)
    match = re.search(re.escape(label) + r" = " + NUMBER, text)
    assert match, f"no '{label} = …' in readout {text!r}"
    return float(match.group(1))


def wait_for_reading(lab: Locator, label: str, expected: float) -> None:
    """Wait until ``label = expected`` (to two decimals) shows in the readout."""
    expect(lab.get_by_role("status").first).to_contain_text(f"{label} = {expected:.2f}")


def wait_until(predicate, timeout: float = STUCK_AFTER_S) -> None:
    """Poll ``predicate`` until it is true; fail after ``timeout`` seconds (a stuck page, not a slow one)."""
    poll(predicate, timeout)


def step_until(lab: Locator, until: float) -> None:
    """Press Step until the readout shows t at or past ``until``, each press once its answer shows."""
    while (now := reading(lab, "t")) < until:
        lab.get_by_role("button", name="Step").click()
        wait_until(lambda before=now: reading(lab, "t") > before)


def plots_laid_out(page: Page) -> None:
    """Wait until every plot canvas shown on the page has its size (Bokeh lays plots out after drawing them).

    A lab the page keeps hidden (a lesson's own lab while an exercise swaps in another) has canvases
    without a box at all; those are not waited for.
    """
    canvases = page.locator(".bk-Canvas")

    def sized() -> bool:
        shown = [box for box in (canvas.bounding_box() for canvas in canvases.all()) if box is not None]
        return bool(shown) and all(box["width"] > 0 and box["height"] > 0 for box in shown)

    poll(sized, page=page, what="the plots laid out")


STYLES_APPLIED_JS = """() => {
  // Every stylesheet the page links, in the document and in every shadow root, has loaded (a
  // <link>'s sheet is null until then), and every select a lab's stage draws has the corners its
  // stylesheet (labs/ui/assets/fields.css) gives it: the browser's own select has none.
  const waiting = []
  const look = (root) => {
    for (const link of root.querySelectorAll('link[rel="stylesheet"]')) {
      if (!link.sheet) waiting.push(link.href)
    }
    for (const select of root.querySelectorAll(".select-field select")) {
      if (select.getClientRects().length && getComputedStyle(select).borderTopLeftRadius === "0px") {
        waiting.push(`#${select.id} unstyled`)
      }
    }
    for (const el of root.querySelectorAll("*")) if (el.shadowRoot) look(el.shadowRoot)
  }
  look(document)
  return waiting
}"""


def styles_applied(page: Page) -> None:
    """Wait until the page's stylesheets have loaded and apply, before a test measures what they set.

    A component's stylesheets arrive in its shadow root with it, some as ``<link>`` elements the
    browser loads afterwards: until then a ``<select>`` has the browser's own 13.33 px text. A test
    that measures sizes or colours waits on this, never on time.
    """
    poll(lambda: page.evaluate(STYLES_APPLIED_JS) == [], page=page, what="the page's stylesheets applied")


def play_and_pause_checking_the_websocket(page: Page, lab: Locator, clock: str = "t") -> None:
    """Press Play, check nothing passes either way in steady Play, Pause, check the cycle's budget.

    design.md: no Bokeh message between page and server per frame while playing, and at most 2 each
    way per Play/Pause cycle. Steady Play is from the readout showing t past 0.5 s to it showing t past
    3.5 s (model time, at 1×): the page drew some 180 frames in between and may send or receive
    nothing. After Pause the page reports its t once; the cycle ends when the readout shows the
    server's answer to that report, and then nothing else may be on its way. Returns paused.
    ``clock`` names the readout's figure that Play advances (the roofline's is ``device time``).
    """
    log = page.websocket_log  # type: ignore[attr-defined]
    log.wait_for_quiet(page)
    before = log.count()
    lab.get_by_role("button", name="Play").click()
    poll(lambda: reading(lab, clock) > 0.5, page=page, what=f"{clock} past 0.5 while playing")
    steady = log.count()
    poll(lambda: reading(lab, clock) > 3.5, page=page, what=f"{clock} past 3.5 while playing")
    assert log.since(steady) == [], log.messages
    expect(lab.get_by_role("button", name="Pause")).to_be_visible()  # still playing: it was steady Play
    lab.get_by_role("button", name="Pause").click()
    expect(lab.get_by_role("button", name="Play")).to_be_visible()
    poll(lambda: log.since(before, "sent"), page=page, what="Pause reporting t to the server")
    log.wait_for_quiet(page)  # the server's answer has arrived and nothing else is on its way
    cycle = log.since(before)
    assert 1 <= sum(way == "sent" for way, _ in cycle) <= 2, log.messages
    assert sum(way == "received" for way, _ in cycle) <= 2, log.messages
