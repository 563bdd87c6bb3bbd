"""The queue lab in a real Chromium, doing what the seed exercises ask a student to do."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.student import (
    open_lab,
    play_and_pause_checking_the_websocket,
    reading,
    readings,
    readout,
    type_value,
    wait_for_reading,
    wait_until,
)

pytestmark = pytest.mark.browser


def set_rates(lab, arrival: str, service: str) -> None:
    type_value(lab, "Arrival rate λ", arrival)
    type_value(lab, "Service rate μ", service)
    expect(lab.get_by_role("status").first).to_contain_text(f"net rate λ − μ = {float(arrival) - float(service):+.2f}")


def test_index_links_to_the_queue_lab(page):
    page.goto(page.base_url + "/")
    page.get_by_role("link", name="Queue lab").click()
    expect(page.get_by_role("region", name="Queue lab")).to_be_visible()


def test_growth_exercise_by_stepping(page):
    lab = open_lab(page, "/queue", "Queue lab")
    lab.get_by_role("button", name="Reset").click()
    set_rates(lab, "4", "3")
    for t, backlog in [(1, 5), (2, 6), (3, 7)]:
        lab.get_by_role("button", name="Step").click()
        wait_for_reading(lab, "t", t)
        assert reading(lab, "backlog") == backlog
    expect(lab).to_contain_text("no steady state")


def test_drain_exercise_by_playing(page):
    lab = open_lab(page, "/queue", "Queue lab")
    lab.get_by_role("button", name="Reset").click()
    set_rates(lab, "2", "3")
    expect(lab).to_contain_text("L = 2.00")
    # At 1× the backlog falls for 4 s of wall time and stays drained for 6 s more: readings taken one
    # after another see both, on any machine that answers a read within seconds.
    lab.get_by_role("combobox", name="Speed").select_option("1×")
    lab.get_by_role("button", name="Play").click()
    expect(lab.get_by_role("button", name="Pause")).to_be_visible()
    seen: list[tuple[float, float]] = []

    def sample_until_done() -> bool:
        now = readings(lab)
        seen.append((now["t"], now["backlog"]))
        return seen[-1][0] >= 10

    wait_until(sample_until_done)
    for t, backlog in seen:
        assert backlog == pytest.approx(max(0.0, 4 - t), abs=0.011), (t, backlog)
    times = [t for t, _ in seen]
    assert any(0 < t < 4 for t in times) and any(4 < t < 10 for t in times), times  # drawn on the way
    assert [b for t, b in seen if t >= 4] and all(b == 0 for t, b in seen if t >= 4)
    expect(lab.get_by_role("button", name="Play")).to_be_visible()
    wait_for_reading(lab, "backlog", 0)


def test_steps_to_three_then_four_drain_to_one_then_zero(page):
    lab = open_lab(page, "/queue", "Queue lab")
    lab.get_by_role("button", name="Reset").click()
    set_rates(lab, "2", "3")
    expected = {1: 3, 2: 2, 3: 1, 4: 0, 5: 0}
    for t, backlog in expected.items():
        lab.get_by_role("button", name="Step").click()
        wait_for_reading(lab, "t", t)
        assert reading(lab, "backlog") == backlog


def test_edit_at_t2_keeps_time_and_restarts_formula_from_q0(page):
    lab = open_lab(page, "/queue", "Queue lab")
    lab.get_by_role("button", name="Reset").click()
    set_rates(lab, "2", "3")
    lab.get_by_role("button", name="Step").click()
    lab.get_by_role("button", name="Step").click()
    wait_for_reading(lab, "backlog", 2)
    type_value(lab, "Arrival rate λ", "4")
    wait_for_reading(lab, "backlog", 6)
    assert reading(lab, "t") == 2


def test_edit_while_playing_keeps_the_browser_time(page):
    lab = open_lab(page, "/queue", "Queue lab")
    lab.get_by_role("button", name="Reset").click()
    set_rates(lab, "2", "3")
    # The slowest speed: 20 s of wall time for the run, so a loaded machine's slow answer to the edit
    # still comes before the run's end and Pause is there to press.
    lab.get_by_role("combobox", name="Speed").select_option("0.5×")
    lab.get_by_role("button", name="Play").click()
    wait_until(lambda: reading(lab, "t") >= 1.0)
    type_value(lab, "Arrival rate λ", "4")
    wait_until(lambda: "+1.00" in readout(lab))
    first = reading(lab, "t")
    assert first >= 1.0
    lab.get_by_role("button", name="Pause").click()
    expect(lab.get_by_role("button", name="Play")).to_be_visible()
    page.websocket_log.wait_for_quiet(page)  # the server has taken the reported t and answered
    now = readings(lab)
    assert now["t"] >= first
    assert now["backlog"] == pytest.approx(4 + now["t"], abs=0.011)


def test_invalid_value_is_refused_and_changes_nothing(page):
    """One refusal in Chromium (the message under the field, the typed text kept); every value is refused headless."""
    typed = "abc"
    lab = open_lab(page, "/queue", "Queue lab")
    set_rates(lab, "4", "3")
    lab.get_by_role("button", name="Step").click()
    wait_for_reading(lab, "t", 1)
    before = readout(lab)
    type_value(lab, "Arrival rate λ", typed)
    alert = lab.get_by_role("alert")
    expect(alert).to_contain_text("Arrival rate λ")
    expect(alert).to_contain_text("kept 4")
    expect(lab.get_by_role("textbox", name="Arrival rate λ")).to_have_value(typed)  # there to correct
    assert readout(lab) == before
    type_value(lab, "Arrival rate λ", "5")
    expect(lab.get_by_role("alert")).to_have_count(0)
    wait_for_reading(lab, "backlog", 6)


def test_zero_service_rate_is_refused(page):
    lab = open_lab(page, "/queue", "Queue lab")
    type_value(lab, "Service rate μ", "0")
    expect(lab.get_by_role("alert")).to_contain_text("Service rate μ")
    expect(lab.get_by_role("alert")).to_contain_text("kept 2")
    expect(lab.get_by_role("textbox", name="Service rate μ")).to_have_value("0")  # what was typed, to correct


@pytest.mark.smoke
def test_play_exchanges_no_message_while_playing(page):
    lab = open_lab(page, "/queue", "Queue lab")
    set_rates(lab, "2", "3")
    play_and_pause_checking_the_websocket(page, lab)
    assert 3.5 < reading(lab, "t") < 10  # paused after the steady part, before the end


def test_two_browsers_do_not_share_state(page, browser):
    lab = open_lab(page, "/queue", "Queue lab")
    set_rates(lab, "4", "3")
    lab.get_by_role("button", name="Step").click()
    wait_for_reading(lab, "t", 1)
    other_context = browser.new_context()
    try:
        other = other_context.new_page()
        other.base_url = page.base_url
        other_lab = open_lab(other, "/queue", "Queue lab")
        assert reading(other_lab, "t") == 0
        assert reading(other_lab, "backlog") == 4
        expect(other_lab.get_by_role("textbox", name="Arrival rate λ")).to_have_value("1")
    finally:
        other_context.close()


def test_arrivals_stop_at_drains_the_tail_and_clears_back_to_never(page):
    lab = open_lab(page, "/queue", "Queue lab")
    stop = lab.get_by_role("textbox", name="Arrivals stop at")
    expect(stop).to_have_value("never")
    set_rates(lab, "4", "3")
    type_value(lab, "Arrivals stop at", "5")
    status = lab.get_by_role("status").first
    expect(status).to_contain_text("arrivals stop at 5 s")
    lab.get_by_role("combobox", name="Speed").select_option("1×")  # the tail drains for 3 s of wall time
    lab.get_by_role("button", name="Play").click()
    seen: list[tuple[float, float]] = []

    def sample_until_done() -> bool:
        now = readings(lab)
        seen.append((now["t"], now["backlog"]))
        return seen[-1][0] >= 10

    wait_until(sample_until_done)
    for t, backlog in seen:  # the browser interpolates between the model's breakpoints (5 s and 8 s)
        expected = 4 + t if t <= 5 else max(0.0, 9 - 3 * (t - 5))
        assert backlog == pytest.approx(expected, abs=0.011), (t, backlog)
    assert any(5 < t < 8 for t, _ in seen), seen
    expect(lab.get_by_role("button", name="Play")).to_be_visible()
    type_value(lab, "Arrivals stop at", "")
    expect(stop).to_have_value("never")
    wait_for_reading(lab, "backlog", 14)  # t kept at 10; arrivals never stop again
    expect(status).not_to_contain_text("arrivals stop")


def test_invalid_stop_time_is_refused_and_changes_nothing(page):
    """One refusal of the optional field in Chromium; every value is refused headless (test_queue_view.py)."""
    typed = "nan"
    lab = open_lab(page, "/queue", "Queue lab")
    type_value(lab, "Arrivals stop at", "3")
    expect(lab.get_by_role("status").first).to_contain_text("arrivals stop at 3 s")
    before = readout(lab)
    type_value(lab, "Arrivals stop at", typed)
    alert = lab.get_by_role("alert")
    expect(alert).to_contain_text("Arrivals stop at")
    expect(alert).to_contain_text("kept 3")
    expect(lab.get_by_role("textbox", name="Arrivals stop at")).to_have_value(typed)
    assert readout(lab) == before


def test_step_is_off_while_playing_and_back_once_paused(page):
    lab = open_lab(page, "/queue", "Queue lab")
    step = lab.get_by_role("button", name="Step")
    expect(step).to_be_enabled()
    lab.get_by_role("button", name="Play").click()
    expect(step).to_be_disabled()
    expect(lab.get_by_role("note")).to_contain_text("Step is off while playing")
    expect(lab.get_by_role("button", name="Reset")).to_be_enabled()
    lab.get_by_role("button", name="Pause").click()
    expect(step).to_be_enabled()
    expect(lab.get_by_role("note")).to_have_count(0)
    before = reading(lab, "t")
    step.click()
    wait_for_reading(lab, "t", before + 1)


def test_play_right_after_a_run_ended_and_a_reset_starts_a_new_run(page):
    # A click on Play within 400 ms of a run ending by itself is taken for the Pause it was meant to
    # be; once the lab has moved from that end (Reset here; an exercise's setup from the server),
    # a Play is a Play however soon it comes.
    lab = open_lab(page, "/queue", "Queue lab")
    lab.get_by_role("combobox", name="Speed").select_option("4×")
    lab.get_by_role("button", name="Play").click()
    expect(lab.get_by_role("button", name="Pause")).to_be_visible()
    expect(lab.get_by_role("button", name="Play")).to_be_visible()  # ended by itself
    lab.get_by_role("button", name="Reset").click()
    lab.get_by_role("button", name="Play").click()
    expect(lab.get_by_role("button", name="Pause")).to_be_visible()
