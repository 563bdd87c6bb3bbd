"""The roofline lab in a real Chromium, doing what the seed 004 exercises ask a student to do."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import expect

from labs.roofline.figures import NAMES
from tests.browser.test_conceal_browser import drawn
from tests.conftest import watched_page
from tests.student import (
    open_lab,
    play_and_pause_checking_the_websocket,
    plots_laid_out,
    reading,
    readout,
    type_value,
    wait_until,
)
from tests.waiting import poll

pytestmark = pytest.mark.browser

H100 = "NVIDIA H100 SXM (989 TFLOP/s, 3.35 TB/s)"
H200 = "NVIDIA H200 SXM (989 TFLOP/s, 4.8 TB/s)"
TEACHING = "Teaching device (1000 GFLOP/s)"
PROGRESS = re.compile(r"device time = ([\d.]+) of [\d.]+ ms · bytes moved (\d+)% · FLOPs done (\d+)%")


def set_kernel(lab, intensity: str, bandwidth: str, attainable: str) -> None:
    type_value(lab, "Arithmetic intensity I", intensity)
    type_value(lab, "Memory bandwidth B", bandwidth)
    expect(lab.get_by_role("status").first).to_contain_text(f"attainable = {attainable} GFLOP/s")


def play_to_the_end(lab, speed: str = "4×") -> list[tuple[float, int, int]]:
    """Press Play and read the readout until playback ends: (device time, bytes %, FLOPs %)."""
    lab.get_by_role("combobox", name="Speed").select_option(speed)
    lab.get_by_role("button", name="Play").click()
    expect(lab.get_by_role("button", name="Pause")).to_be_visible()
    seen: list[tuple[float, int, int]] = []

    def ended() -> bool:
        match = PROGRESS.search(readout(lab))
        if match:
            seen.append((float(match.group(1)), int(match.group(2)), int(match.group(3))))
        return lab.get_by_role("button", name="Play").is_visible()

    wait_until(ended)
    return seen


def test_index_links_to_the_roofline_lab(page):
    page.goto(page.base_url + "/")
    page.get_by_role("link", name="Roofline lab").click()
    lab = page.get_by_role("region", name="Roofline lab")
    expect(lab).to_be_visible()
    expect(lab.get_by_role("status").first).to_contain_text("attainable = 400 GFLOP/s")


def test_below_the_ridge_exercise(page):
    lab = open_lab(page, "/roofline", "Roofline lab")
    lab.get_by_role("button", name="Reset").click()
    set_kernel(lab, "8", "100", "800")
    status = lab.get_by_role("status").first
    expect(status).to_contain_text("memory-bound")
    expect(status).to_contain_text("ridge = 10 FLOP/byte")
    seen = play_to_the_end(lab, "1×")  # 10 s of wall time: readings one after another see the race
    expect(status).to_contain_text("device time = 10.00 of 10 ms")
    times = [t for t, _, _ in seen]
    assert any(2 < t < 8 for t in times), times  # the race was drawn on the way, not only at the end
    assert times == sorted(times)
    assert all(abs(b - f) <= 1 for _, b, f in seen), seen  # the arithmetic waits for its bytes
    text = readout(lab)
    assert "attainable = 800 GFLOP/s" in text and "memory-bound" in text and "compute-bound" not in text
    assert "ridge = 10 FLOP/byte" in text
    assert "bytes moved 100% · FLOPs done 100%" in text
    expect(lab.get_by_role("textbox", name="Arithmetic intensity I")).to_have_value("8")
    expect(lab.get_by_role("textbox", name="Memory bandwidth B")).to_have_value("100")


def test_compute_roof_exercise(page):
    lab = open_lab(page, "/roofline", "Roofline lab")
    lab.get_by_role("button", name="Reset").click()
    set_kernel(lab, "16", "100", "1000")
    status = lab.get_by_role("status").first
    expect(status).to_contain_text("compute-bound")
    expect(status).to_contain_text("ridge = 10 FLOP/byte")
    seen = play_to_the_end(lab, "1×")  # the arithmetic alone for the last 3 s of wall time
    expect(status).to_contain_text("device time = 8.00 of 8 ms")
    assert all(b >= f for _, b, f in seen), seen
    assert any(b == 100 and f < 100 for _, b, f in seen), seen  # bytes in first, arithmetic sets the end
    text = readout(lab)
    assert "attainable = 1000 GFLOP/s" in text and "compute-bound" in text and "memory-bound" not in text
    expect(lab.get_by_role("textbox", name="Arithmetic intensity I")).to_have_value("16")
    expect(lab.get_by_role("textbox", name="Memory bandwidth B")).to_have_value("100")


def test_both_exercises_one_after_the_other(page):
    lab = open_lab(page, "/roofline", "Roofline lab")
    lab.get_by_role("button", name="Reset").click()
    set_kernel(lab, "8", "100", "800")
    play_to_the_end(lab)
    lab.get_by_role("button", name="Reset").click()
    expect(lab.get_by_role("textbox", name="Arithmetic intensity I")).to_have_value("2")
    expect(lab.get_by_role("status").first).to_contain_text("attainable = 400 GFLOP/s")
    set_kernel(lab, "16", "100", "1000")
    expect(lab.get_by_role("status").first).to_contain_text("compute-bound")
    expect(lab.get_by_role("status").first).to_contain_text("device time = 0.00 of 8 ms")


def test_step_advances_one_millisecond_of_device_time(page):
    lab = open_lab(page, "/roofline", "Roofline lab")
    set_kernel(lab, "8", "100", "800")
    for t in (1, 2, 3):
        lab.get_by_role("button", name="Step").click()
        expect(lab.get_by_role("status").first).to_contain_text(f"device time = {t}.00 of 10 ms")
    assert "bytes moved 30% · FLOPs done 30%" in readout(lab)


def test_invalid_value_is_refused_and_changes_nothing(page):
    """One refusal in Chromium (an emptied field); every value is refused headless (labs/test_roofline_view.py)."""
    control, typed = "Arithmetic intensity I", ""
    lab = open_lab(page, "/roofline", "Roofline lab")
    set_kernel(lab, "8", "100", "800")
    kept = "8" if control.startswith("Arithmetic") else "100"
    before = readout(lab)
    type_value(lab, control, typed)
    alert = lab.get_by_role("alert")
    expect(alert).to_contain_text(control)
    expect(alert).to_contain_text(f"kept {kept}")
    expect(lab.get_by_role("textbox", name=control)).to_have_value(typed)  # what was typed, to correct
    assert readout(lab) == before
    type_value(lab, control, "16" if kept == "8" else "200")
    expect(lab.get_by_role("alert")).to_have_count(0)
    expect(lab.get_by_role("status").first).to_contain_text("compute-bound")


def test_choosing_a_device_sets_p_and_b(page):
    lab = open_lab(page, "/roofline", "Roofline lab")
    set_kernel(lab, "8", "100", "800")
    device = lab.get_by_role("combobox", name="Device")
    expect(device).to_have_value(TEACHING)
    device.select_option(H100)
    expect(lab.get_by_role("textbox", name="Compute roof P")).to_have_value("989000")
    expect(lab.get_by_role("textbox", name="Memory bandwidth B")).to_have_value("3350")
    status = lab.get_by_role("status").first
    expect(status).to_contain_text("attainable = 26800 GFLOP/s (26.8 TFLOP/s)")
    expect(status).to_contain_text("memory-bound")
    expect(status).to_contain_text("ridge = 295.2 FLOP/byte")
    expect(lab.get_by_role("textbox", name="Arithmetic intensity I")).to_have_value("8")
    expect(lab).to_contain_text("H100 Tensor Core GPU datasheet")
    device.select_option(H200)
    expect(lab.get_by_role("textbox", name="Memory bandwidth B")).to_have_value("4800")
    expect(status).to_contain_text("attainable = 38400 GFLOP/s (38.4 TFLOP/s)")
    lab.get_by_role("button", name="Reset").click()
    expect(device).to_have_value(TEACHING)
    expect(lab.get_by_role("textbox", name="Compute roof P")).to_have_value("1000")
    expect(status).to_contain_text("attainable = 400 GFLOP/s")


def test_play_exchanges_no_message_while_playing(page):
    lab = open_lab(page, "/roofline", "Roofline lab")
    set_kernel(lab, "8", "100", "800")  # 10 s of playback at 1×
    play_and_pause_checking_the_websocket(page, lab, clock="device time")
    assert 3.5 < reading(lab, "time") < 10  # device ms, one per second at 1×
    expect(lab.get_by_role("textbox", name="Arithmetic intensity I")).to_have_value("8")
    assert "attainable = 800 GFLOP/s" in readout(lab)


# ----- issue 43: Play plays the first picture; its axes never move -----------------------------

SCREENS = {
    "laptop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}


@pytest.fixture(params=list(SCREENS))
def screen(request, browser, live_server):
    """A watched page on a laptop (1280 × 800) or a phone's mobile browser (390 × 844, touch)."""
    yield from watched_page(browser, live_server, request, **SCREENS[request.param])


def pixels(canvas) -> np.ndarray:
    """What a plot's canvas shows now, as an array of RGB pixels."""
    return np.asarray(Image.open(io.BytesIO(canvas.screenshot())).convert("RGB"), dtype=np.int16)


def changed(before: np.ndarray, after: np.ndarray) -> int:
    """How many pixels differ between two shots of the same canvas."""
    assert before.shape == after.shape, "the plot changed size"
    return int(np.count_nonzero(np.abs(before - after).sum(axis=2) > 30))


def test_play_moves_the_first_picture_without_a_message_per_frame(screen):
    """Play animates the roofline itself: above the time bar, on the first screen, all in the browser."""
    page = screen
    lab = open_lab(page, "/roofline", "Roofline lab")  # Reset's defaults: 20 ms played in 10 s at 1×
    plots_laid_out(page)
    canvas = lab.locator(".bk-Canvas").first
    plot, play = canvas.bounding_box(), lab.get_by_role("button", name="Play").bounding_box()
    viewport = page.viewport_size
    assert plot and play and viewport
    assert plot["y"] + plot["height"] <= play["y"], "the first plot sits above the time bar"
    assert play["y"] + play["height"] <= viewport["height"], "plot and Play on the first screen, unscrolled"
    expect(lab.get_by_role("img").first).to_have_accessible_name(re.compile("^Roofline plot"))
    still = pixels(canvas)
    assert changed(still, pixels(canvas)) == 0  # nothing moves before Play
    log = page.websocket_log  # type: ignore[attr-defined]
    log.wait_for_quiet(page)
    before = log.count()
    lab.get_by_role("button", name="Play").click()
    poll(lambda: reading(lab, "time") > 2, page=page, what="device time past 2 ms while playing")
    steady = log.count()
    early = pixels(canvas)
    poll(lambda: reading(lab, "time") > 6, page=page, what="device time past 6 ms while playing")
    later = pixels(canvas)
    assert log.since(steady) == [], log.messages  # frames drawn in between, no message either way
    expect(lab.get_by_role("button", name="Pause")).to_be_visible()  # still playing
    assert changed(still, early) > 100 and changed(early, later) > 100  # the pace line fell, twice
    lab.get_by_role("button", name="Pause").click()
    expect(lab.get_by_role("button", name="Play")).to_be_visible()
    poll(lambda: log.since(before, "sent"), page=page, what="Pause reporting t to the server")
    log.wait_for_quiet(page)
    assert 1 <= sum(way == "sent" for way, _ in log.since(before)) <= 2, log.messages


READ_AXES = """() => {
  // The roofline's axes as the page holds them: each range and the performance axis's ticks.
  for (const doc of (window.Bokeh && Bokeh.documents) || []) {
    for (const model of doc.all_models) {
      if (model.title && model.title.text && model.title.text.startsWith("Roofline")) {
        const ticker = model.left[0].ticker
        return [model.x_range.start, model.x_range.end, model.y_range.start, model.y_range.end,
                Array.from(ticker.ticks), model.inner_height]
      }
    }
  }
  return null
}"""


def test_the_axes_stay_from_concealed_to_the_verdict_and_the_end_of_the_run(page):
    """Issue 43: a concealed axis is the one the reveal and the whole run use."""
    page.goto(page.base_url + "/lesson?id=hidden")  # type: ignore[attr-defined]
    card = page.get_by_role("region", name="Exercise: A kernel at 8 FLOP/byte")
    card.get_by_role("button", name="Start this exercise").click()
    lab = page.get_by_role("region", name="Roofline lab")
    lab.get_by_role("button", name="Reset").click()
    type_value(lab, "Arithmetic intensity I", "8")
    type_value(lab, "Memory bandwidth B", "100")
    status = lab.get_by_role("status").first
    expect(status).to_contain_text("attainable = ? GFLOP/s")
    plots_laid_out(page)
    concealed = page.evaluate(READ_AXES)
    assert concealed[:4] == [1 / 16, 4096, 0.01, 10_000], concealed
    pieces = drawn(page)  # where Play's line comes to rest is the answer: hidden, as is the faster side
    assert not pieces[NAMES["pace_line"]]["visible"] and pieces[NAMES["faster_point"]]["data"]["x"] == []
    card.get_by_role("textbox", name="Your prediction").fill("800")
    card.get_by_role("button", name="Lock prediction").click()
    lab.get_by_role("button", name="Play").click()
    expect(card.get_by_role("status")).to_contain_text("Correct")
    expect(status).to_contain_text("attainable = 800 GFLOP/s")
    assert page.evaluate(READ_AXES) == concealed  # revealed, while playing
    poll(lambda: drawn(page)[NAMES["pace_line"]]["visible"], page=page, what="the pace line shown once revealed")
    lab.get_by_role("button", name="To the end").click()
    expect(status).to_contain_text("device time = 10.00 of 10 ms")
    assert page.evaluate(READ_AXES) == concealed  # at the end of the run
