"""What a student does in a lab, written once for the browser tests: find by role and name."""

from __future__ import annotations

import re
import time

from playwright.sync_api import Locator, Page, expect

NUMBER = r"(-?[\d.]+)"


def open_lab(page: Page, path: str, name: str) -> Locator:
    """Open ``path`` and return the lab region called ``name`` once it is ready."""
    page.goto(page.base_url + path)  # type: ignore[attr-defined]
    lab = page.get_by_role("region", name=name)
    expect(lab.get_by_role("status").first).to_contain_text("=", timeout=20_000)
    return lab


def type_value(lab: Locator, field: str | re.Pattern[str], value: str) -> None:
    """Type into the input whose accessible name contains ``field`` (or matches it) and press Enter."""
    box = lab.get_by_role("textbox", name=field)
    box.fill(value)
    box.press("Enter")


def readout(lab: Locator) -> str:
    """The text of the lab's status readout."""
    return lab.get_by_role("status").first.inner_text()


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


def wait_for_reading(lab: Locator, label: str, expected: float, timeout: float = 10.0) -> None:
    """Wait until ``label = expected`` (to two decimals) shows in the readout."""
    expect(lab.get_by_role("status").first).to_contain_text(
        f"{label} = {expected:.2f}", timeout=timeout * 1000
    )


def wait_until(predicate, timeout: float = 15.0, interval: float = 0.05) -> None:
    """Poll ``predicate`` until it is true or fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(interval)


def play_and_pause_checking_the_websocket(page: Page, lab: Locator) -> None:
    """Press Play, check nothing passes either way in steady Play, Pause, check the cycle's budget.

    design.md: no Bokeh message between page and server from 0.5 s to 3.5 s after pressing Play,
    and at most 2 each way over the whole Play/Pause cycle. Returns with the lab paused.
    """
    log = page.websocket_log  # type: ignore[attr-defined]
    log.wait_for_quiet(page)
    pressed = time.monotonic()
    lab.get_by_role("button", name="Play").click()
    page.wait_for_timeout(3600)
    steady = (pressed + 0.5, pressed + 3.5)
    assert log.between(*steady, "sent") == [], log.messages
    assert log.between(*steady, "received") == [], log.messages
    lab.get_by_role("button", name="Pause").click()
    expect(lab.get_by_role("button", name="Play")).to_be_visible()
    page.wait_for_timeout(1000)
    cycle = (pressed - 0.01, time.monotonic())
    assert 1 <= len(log.between(*cycle, "sent")) <= 2, log.messages
    assert len(log.between(*cycle, "received")) <= 2, log.messages
