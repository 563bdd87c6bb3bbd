"""The queue lab's view without a browser: widgets, readout, commands from the page, gating."""

from __future__ import annotations

import pytest

from labs.queue.figures import nice_ceiling
from labs.queue.view import QueueLab
from labs.ui.playback import fill_template, readout_html, revealed, sample
from tests.headless import field, send, status_text


@pytest.fixture
def lab() -> QueueLab:
    view = QueueLab()
    view.__panel__()
    return view


def test_initial_readout_follows_the_contract(lab):
    text = status_text(lab)
    assert "t = 0.00 s" in text and "backlog = 4.00 units" in text
    assert lab.transport.status.html_attributes["role"] == "status"  # the Div's element: it stays
    assert 'class="readout"' in lab.transport.status.text and "role=" not in lab.transport.status.text
    assert "M/M/1" in lab.mm1_panel.text and "L = 1.00" in lab.mm1_panel.text


def test_inputs_are_named_for_the_contract(lab):
    names = [f.input.label for f in lab.fields]
    assert names == [
        "Arrival rate λ (units/s)",
        "Service rate μ (units/s)",
        "Initial backlog q0 (units)",
        "Arrivals stop at (s)",
    ]
    assert field(lab, "arrivals_stop").input.value == "never"


def test_typing_applies_and_redraws(lab):
    field(lab, "arrival_rate").input.value = "4"
    field(lab, "service_rate").input.value = "3"
    assert lab.model.arrival_rate == 4
    assert "net rate λ − μ = +1.00" in status_text(lab)
    assert "no steady state" in lab.mm1_panel.text
    assert lab.chart.mm1_line.visible is False


def test_a_refusal_keeps_the_typed_text_and_the_model_and_says_why(lab):
    f = field(lab, "arrival_rate")
    f.input.value = "banana"
    assert lab.model.arrival_rate == 1
    assert f.input.value == "banana"  # left for the student to correct
    assert "not a number" in f.error and "kept 1" in f.error
    assert f.input.error == f.error  # shown in the field's own alert line
    f.input.value = "2"
    assert f.error == "" and f.input.error == "" and f.input.value == "2"


def test_a_reset_replaces_a_refused_text_even_when_no_value_changes(lab):
    """Reset sets λ to 1 when it is 1 already: the refused text and its refusal still go."""
    f = field(lab, "arrival_rate")
    f.input.value = "-3"
    assert f.input.value == "-3" and "kept 1" in f.error
    send(lab, "reset")
    assert f.input.value == "1" and f.error == "" and lab.model.arrival_rate == 1


@pytest.mark.parametrize("typed", ["abc", "-1", "nan", "inf", "1e9", ""])
def test_every_refused_rate_keeps_the_model_the_field_and_the_readout(lab, typed):
    """The browser types one of these (tests/browser/test_queue_browser.py); each is refused the same way."""
    field(lab, "arrival_rate").input.value = "4"
    field(lab, "service_rate").input.value = "3"
    send(lab, "step")
    before = lab.transport.status.text
    f = field(lab, "arrival_rate")
    f.input.value = typed
    assert lab.model.arrival_rate == 4
    assert f.input.value == typed
    assert "Arrival rate λ" in f.error and "kept 4" in f.error and f.input.error == f.error
    assert lab.transport.status.text == before
    f.input.value = "5"
    assert f.error == "" and "backlog = 6.00" in status_text(lab)


@pytest.mark.smoke
def test_step_and_pause_commands_from_the_page(lab):
    field(lab, "arrival_rate").input.value = "4"
    field(lab, "service_rate").input.value = "3"
    send(lab, "step")
    assert lab.model.t == 1 and "backlog = 5.00" in status_text(lab)
    send(lab, "pause", 2.5)
    assert lab.model.t == 2.5 and "backlog = 6.50" in status_text(lab)
    assert lab.transport.state.t == 2.5
    assert lab.transport.marker.data["backlog"] == [6.5]
    send(lab, "step", 3.25)  # Step while playing: take the browser's t, then step
    assert lab.model.t == 4.25


def test_pause_at_the_same_time_still_resends_the_readout(lab):
    lab.transport.status.text = "stale text drawn by the browser"
    send(lab, "pause", 0.0)
    assert "t = 0.00 s" in status_text(lab)


def test_reset_command_restores_defaults(lab):
    field(lab, "arrival_rate").input.value = "4"
    send(lab, "pause", 3)
    send(lab, "reset")
    assert (lab.model.t, lab.model.arrival_rate) == (0, 1)
    assert field(lab, "arrival_rate").input.value == "1"


@pytest.mark.parametrize("command", [None, "nope", {"action": "explode"}, {"action": "pause", "t": "soon"}, {"t": 3}])
def test_malformed_commands_change_nothing(lab, command):
    lab.model.t = 2
    lab.transport.state.command = command if isinstance(command, dict) else {"junk": command}
    assert lab.model.t == 2


def test_gating_disables_play_and_step_stops_playback_and_ignores_step(lab):
    epoch = lab.transport.state.epoch
    lab.transport.allowed = False
    assert lab.transport.play_button.disabled and lab.transport.step_button.disabled
    assert lab.transport.state.epoch == epoch + 1
    send(lab, "step")
    assert lab.model.t == 0
    lab.transport.allowed = True
    assert not lab.transport.play_button.disabled
    send(lab, "step")
    assert lab.model.t == 1


def test_axes_hold_still_while_time_moves(lab):
    field(lab, "arrival_rate").input.value = "4"
    field(lab, "service_rate").input.value = "3"
    y_end = lab.figure.y_range.end
    for t in (1, 2, 5, 10):
        send(lab, "pause", t)
        assert lab.figure.y_range.end == y_end
        assert lab.figure.x_range.end == 10
    assert y_end >= 14


def test_two_views_share_nothing():
    one, two = QueueLab(), QueueLab()
    field(one, "arrival_rate").input.value = "9"
    assert two.model.arrival_rate == 1
    assert one.transport.state is not two.transport.state


def test_python_and_browser_readouts_use_the_same_format():
    values = {"t": 1.005, "backlog": 5.0}
    assert fill_template("t = {t} s, q = {backlog:1}, x = {missing}", values) == ("t = 1.00 s, q = 5.0, x = {missing}")
    assert readout_html("x").startswith('<div role="status" aria-live="polite"')


def test_reveal_and_sample_interpolate_breakpoints():
    import numpy as np

    traj = {"t": np.array([0.0, 4.0, 10.0]), "backlog": np.array([4.0, 0.0, 0.0])}
    assert sample(traj, 3)["backlog"] == pytest.approx(1)
    assert revealed(traj, 5) == {"t": [0.0, 4.0, 5.0], "backlog": [4.0, 0.0, 0.0]}
    assert revealed(traj, 0) == {"t": [0.0], "backlog": [4.0]}


@pytest.mark.parametrize(("value", "ceiling"), [(0, 1), (4.4, 5), (11, 20), (14.3, 20), (230, 250)])
def test_nice_ceiling(value, ceiling):
    assert nice_ceiling(value) == ceiling


def test_stop_time_field_takes_a_time_and_clears_back_to_never(lab):
    stop = field(lab, "arrivals_stop")
    field(lab, "arrival_rate").input.value = "4"
    field(lab, "service_rate").input.value = "3"
    assert not lab.chart.stop_line.visible and not lab.chart.stop_label.visible
    stop.input.value = "5"
    assert lab.model.arrivals_stop == 5 and stop.input.value == "5"
    assert lab.chart.stop_line.visible and lab.chart.stop_line.location == 5
    assert lab.chart.stop_label.visible and lab.chart.stop_label.text == "arrivals stop at 5 s"
    assert "arrivals stop" in lab.figure.title.text
    text = status_text(lab)
    assert "arrivals stop at 5 s" in text and "net rate λ − μ = +1.00" in text and "−3.00 units/s after" in text
    assert lab.transport.state.trajectory == {"t": [0, 5, 8, 10], "backlog": [4, 9, 0, 0]}
    send(lab, "pause", 7)
    assert "t = 7.00 s" in status_text(lab) and "backlog = 3.00 units" in status_text(lab)
    stop.input.value = ""
    assert lab.model.arrivals_stop is None and stop.input.value == "never"
    assert not lab.chart.stop_line.visible and not lab.chart.stop_label.visible
    assert "arrivals stop" not in status_text(lab) and "arrivals stop" not in lab.figure.title.text
    assert lab.model.t == 7  # an edit keeps the clock
    stop.input.value = "2,5"
    assert lab.model.arrivals_stop == 2.5 and stop.input.value == "2.5"
    stop.input.value = "Never"
    assert lab.model.arrivals_stop is None and stop.input.value == "never"


@pytest.mark.parametrize("typed", ["abc", "-1", "nan", "inf", "1e9"])
def test_stop_time_refusal_keeps_the_text_and_says_why(lab, typed):
    stop = field(lab, "arrivals_stop")
    stop.input.value = "6"
    before = lab.transport.status.text
    stop.input.value = typed
    assert lab.model.arrivals_stop == 6 and stop.input.value == typed
    assert "Arrivals stop at" in stop.error and "kept 6" in stop.error and stop.input.error == stop.error
    assert lab.transport.status.text == before
    stop.input.value = ""
    assert stop.error == "" and stop.input.value == "never"
    stop.input.value = "x"
    assert "kept never" in stop.error and lab.model.arrivals_stop is None


def test_reset_clears_the_stop_time(lab):
    field(lab, "arrivals_stop").input.value = "3"
    send(lab, "reset")
    assert lab.model.arrivals_stop is None and field(lab, "arrivals_stop").input.value == "never"
    assert not lab.chart.stop_line.visible


def test_a_stop_past_the_horizon_is_not_drawn(lab):
    field(lab, "arrivals_stop").input.value = "50"
    assert lab.model.arrivals_stop == 50 and not lab.chart.stop_line.visible and not lab.chart.stop_label.visible


def test_conceal_hides_the_rates_and_the_axis_is_the_one_the_reveal_shows(lab):
    field(lab, "arrival_rate").input.value = "4"
    field(lab, "service_rate").input.value = "3"
    field(lab, "arrivals_stop").input.value = "5"
    assert lab.figure.y_range.end == 20  # scaled as if arrivals went on: 4 + 1 × 10 = 14, not the peak 9
    lab.conceal = True
    text = status_text(lab)
    assert "net rate" not in text and "3.00" not in text and "arrivals stop at 5 s" in text
    assert lab.figure.y_range.end == 20  # the same axis: it says nothing of the height left at the stop
    assert lab.transport.reveal.data == {"t": [0.0], "backlog": [4.0]}  # nothing of the path ahead
    send(lab, "end", 10.0)
    lab.conceal = False
    assert lab.figure.y_range.end == 20 and lab.figure.x_range.end == 10 and "net rate" in status_text(lab)


def test_a_huge_mm1_mean_is_named_above_the_chart_not_drawn():
    lab = QueueLab()
    lab.model.apply("service_rate", "100")
    lab.model.apply("arrival_rate", "99.99999999999999")  # ρ = 1 − 10^-16: L ≈ 7 × 10^15
    assert lab.figure.y_range.end <= 10, "the backlog keeps its scale"
    assert not lab.chart.mm1_line.visible
    assert lab.chart.mm1_label.text == "M/M/1 mean L = 7.04 × 10^15 (above the chart)"
    assert "above the chart" in lab.figure.tags[0]
    lab.model.apply("arrival_rate", "2")
    lab.model.apply("service_rate", "3")
    assert (
        lab.chart.mm1_line.visible
        and lab.chart.mm1_line.location == 2
        and lab.chart.mm1_label.text == "M/M/1 mean L = 2.00"
    )
