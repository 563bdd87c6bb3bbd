"""The bucket timeline lab in a real Chromium: defaults, Step, Play in the browser, presets, refusals."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from labs.timeline.model import EMBEDDING_FIRST, TimelineModel
from tests.student import open_lab, play_and_pause_checking_the_websocket, reading, type_value, wait_until

pytestmark = pytest.mark.browser


def figures(model: TimelineModel) -> str:
    return f"buckets = {model.bucket_count} · step = {model.step_time:.2f} ms · exposed = {model.exposed:.2f} ms"


def test_index_links_to_the_timeline_lab(page):
    page.goto(page.base_url + "/")
    page.get_by_role("link", name="Bucket timeline lab").click()
    expect(page.get_by_role("region", name="Bucket timeline lab")).to_be_visible(timeout=20_000)


def test_defaults_step_and_the_bucket_table(page):
    lab = open_lab(page, "/timeline", "Bucket timeline lab")
    model = TimelineModel()
    expect(lab.get_by_role("status").first).to_contain_text(figures(model))
    assert reading(lab, "t") == 0
    lab.get_by_role("button", name="Step").click()
    expect(lab.get_by_role("status").first).to_contain_text(f"t = {model.step_size:.2f} ms")
    table = lab.get_by_role("table")
    expect(table.get_by_role("row")).to_have_count(model.bucket_count + 1)  # a header row, then each bucket
    expect(table).to_contain_text(f"exposed {model.exposed:.2f} ms")


def test_play_runs_in_the_browser_and_reaches_the_step_end(page):
    lab = open_lab(page, "/timeline", "Bucket timeline lab")
    lab.get_by_role("combobox", name="Speed").select_option("4×")
    play_and_pause_checking_the_websocket(page, lab)
    paused_at = reading(lab, "t")
    assert 0 < paused_at < TimelineModel().step_time
    lab.get_by_role("button", name="Play").click()
    wait_until(lambda: reading(lab, "t") >= round(TimelineModel().step_time, 2), timeout=30)  # shown to 2 decimals
    expect(lab.get_by_role("button", name="Play")).to_be_visible()


def test_a_preset_the_layers_field_and_refusals(page):
    lab = open_lab(page, "/timeline", "Bucket timeline lab")
    lab.get_by_role("combobox", name="Model").select_option(EMBEDDING_FIRST)
    embedding = TimelineModel()
    embedding.apply("preset", EMBEDDING_FIRST)
    expect(lab.get_by_role("status").first).to_contain_text(figures(embedding))
    expect(lab.get_by_role("textbox", name="Layers")).to_have_value(embedding.layers)
    for bad, said in [("8:2, x", "no colon"), ("-8:2", "Layers"), ("", "Layers"), ("8:nan", "Layers")]:
        type_value(lab, "Layers", bad)
        expect(lab.get_by_role("alert").first).to_contain_text(said)
        expect(lab.get_by_role("textbox", name="Layers")).to_have_value(embedding.layers)
        expect(lab.get_by_role("status").first).to_contain_text(figures(embedding))
    type_value(lab, "Layers", "8:2, 8:2")
    two = TimelineModel()
    two.apply("layers", "8:2, 8:2")
    expect(lab.get_by_role("status").first).to_contain_text(figures(two))
    expect(lab.get_by_role("combobox", name="Model")).to_have_value("Custom")
    box = lab.get_by_role("textbox", name="Bucket cap (MiB)", exact=True)
    box.fill("abc")
    box.press("Enter")
    expect(lab.get_by_role("alert").first).to_contain_text("Bucket cap")
    expect(box).to_have_value("25")
