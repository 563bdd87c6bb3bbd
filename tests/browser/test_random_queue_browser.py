"""The queue lab's random (M/M/1) queue in a real Chromium: the switch, the seed, Reset and Play, by role and name."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from labs.queue.model import QueueModel
from tests.student import open_lab, play_and_pause_checking_the_websocket, readings, readout, type_value, wait_until

pytestmark = pytest.mark.browser


def at_the_end(seed: int) -> str:
    """What the readout shows of the random queue at t = 500 s with the defaults and this seed."""
    m = QueueModel(random_queue=True, seed=seed)
    m.t = m.horizon
    return f"random = {m.random_jobs:.0f} jobs · average = {m.random_average:.2f} jobs"


def test_the_switch_the_seed_reset_and_play(page):
    lab = open_lab(page, "/queue", "Queue lab")
    switch = lab.get_by_role("checkbox", name="Random queue (M/M/1)")
    seed = lab.get_by_role("textbox", name="Seed")
    status = lab.get_by_role("status").first
    expect(switch).not_to_be_checked()
    expect(seed).to_have_value("2026")
    assert "random" not in readout(lab) and "average" not in readout(lab)

    switch.check()
    expect(status).to_contain_text("random = 4 jobs · average = 4.00 jobs")
    expect(lab.get_by_role("combobox", name="Speed")).to_have_value("50×")  # 500 s in 10 s
    expect(lab.get_by_role("region", name="M/M/1 reference")).to_contain_text("approach L = 1.00 jobs")

    play_and_pause_checking_the_websocket(page, lab)  # the path came once; Play sends nothing per frame
    paused = readings(lab)
    assert 0 < paused["t"] < 500 and paused["random"].is_integer() and paused["average"] >= 0

    seen: list[dict[str, float]] = []
    lab.get_by_role("button", name="Play").click()

    def played_to_the_end() -> bool:
        seen.append(readings(lab))
        return seen[-1]["t"] >= 500

    wait_until(played_to_the_end)
    assert all(now["random"].is_integer() and now["random"] >= 0 for now in seen), seen
    expect(lab.get_by_role("button", name="Play")).to_be_visible()
    expect(status).to_contain_text("t = 500.00 s")
    expect(status).to_contain_text(at_the_end(2026))

    type_value(lab, "Seed", "7")
    expect(status).to_contain_text(at_the_end(7))  # another run, read at the same t

    lab.get_by_role("button", name="Reset").click()
    expect(switch).not_to_be_checked()
    expect(seed).to_have_value("2026")
    expect(status).not_to_contain_text("random")
    expect(lab.get_by_role("combobox", name="Speed")).to_have_value("2×")

    switch.check()
    expect(status).to_contain_text("random = 4 jobs")  # the page has the run and its 500 s horizon
    lab.get_by_role("button", name="To the end").click()
    expect(status).to_contain_text("t = 500.00 s")
    expect(status).to_contain_text(at_the_end(2026))  # the same seed after Reset: the same path


def test_switching_off_brings_the_fluid_queue_back(page):
    lab = open_lab(page, "/queue", "Queue lab")
    before = readout(lab)
    switch = lab.get_by_role("checkbox", name="Random queue (M/M/1)")
    switch.check()
    expect(lab.get_by_role("status").first).to_contain_text("random = 4 jobs")
    switch.uncheck()
    expect(lab.get_by_role("status").first).not_to_contain_text("random")
    assert readout(lab) == before
    expect(lab.get_by_role("combobox", name="Speed")).to_have_value("2×")
