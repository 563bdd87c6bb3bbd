"""A lab's settings in its link: written as the fields show them, read back as if typed, refused with a reason."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.site.lab_link import MAX_SETTING_TEXT, apply_link_settings, link_settings, with_settings
from labs.queue.model import QueueModel
from labs.roofline.model import RooflineModel
from labs.timeline.model import TimelineModel


def args_of(link: str) -> dict[str, list[bytes]]:
    """The query of ``link`` as a session's arguments (Tornado gives bytes)."""
    return {name: [v.encode() for v in values] for name, values in parse_qs(urlsplit(link).query).items()}


@pytest.mark.parametrize("model_class", [QueueModel, RooflineModel, TimelineModel])
def test_a_fresh_lab_shares_its_plain_link(model_class):
    assert link_settings(model_class()) == {} and with_settings("lab?id=x", model_class()) == "lab?id=x"


def test_only_the_changed_controls_are_written_as_their_fields_show_them():
    queue = QueueModel()
    queue.apply("arrival_rate", "3")
    queue.apply("random_queue", "on")
    queue.apply("arrivals_stop", "5")
    assert with_settings("queue", queue) == "queue?arrival_rate=3&arrivals_stop=5&random_queue=on"
    timeline = TimelineModel()
    timeline.apply("preset", "Large embedding first")
    timeline.apply("missing_event", "bucket 2")
    assert link_settings(timeline) == {"preset": "Large embedding first", "missing_event": "bucket 2"}
    timeline.apply("layers", "8:2, 8:2, 16:1")  # edited layers read as "Custom": the list is written
    assert link_settings(timeline)["layers"] == "8:2, 8:2, 16:1" and "preset" not in link_settings(timeline)


QUEUE_VALUES = {
    "arrival_rate": st.sampled_from(["0.5", "1.64", "3", "7"]),
    "service_rate": st.sampled_from(["0.25", "2", "5"]),
    "initial_backlog": st.sampled_from(["0", "4", "12.5"]),
    "arrivals_stop": st.sampled_from(["never", "2", "7.5"]),
    "random_queue": st.sampled_from(["on", "off"]),
    "seed": st.sampled_from(["1", "2026", "999999"]),
}
TIMELINE_VALUES = {
    "preset": st.sampled_from(["8 equal layers", "Large embedding first", "8 equal layers, bf16 gradients"]),
    "bucket_cap": st.sampled_from(["8", "25", "100"]),
    "ranks": st.sampled_from(["2", "8", "64"]),
    "machine_ranks": st.sampled_from(["1", "4"]),
    "bandwidth": st.sampled_from(["10", "12.5"]),
    "launch_gap": st.sampled_from(["0", "0.5"]),
    "nccl_group": st.sampled_from(["on", "off"]),
    "iteration": st.sampled_from(["First iteration (one bucket)", "After the rebuild (ready order)"]),
}


@settings(max_examples=40, deadline=None)
@given(st.fixed_dictionaries({}, optional=QUEUE_VALUES), st.fixed_dictionaries({}, optional=TIMELINE_VALUES))
def test_a_shared_link_opens_the_same_lab(queue_settings, timeline_settings):
    for model_class, chosen in ((QueueModel, queue_settings), (TimelineModel, timeline_settings)):
        shared = model_class()
        for name, text in chosen.items():
            try:
                shared.apply(name, text)
            except Exception:  # an option this model names otherwise: not what this test is about
                continue
        opened = model_class()
        assert apply_link_settings(opened, args_of(with_settings("lab", shared))) == []
        assert {n: getattr(opened, n) for n in opened.controls} == {n: getattr(shared, n) for n in shared.controls}


@pytest.mark.parametrize(
    ("query", "refused"),
    [
        ("arrival_rate=abc", "Arrival rate λ: 'abc' is not a number"),
        ("arrival_rate=nan", "Arrival rate λ"),
        ("service_rate=-3", "Service rate μ"),
        ("random_queue=maybe", "neither on nor off"),
        ("seed=1.5", "Seed must be a whole number"),
        (f"arrival_rate={'9' * (MAX_SETTING_TEXT + 1)}", f"longer than {MAX_SETTING_TEXT} characters"),
    ],
)
def test_a_bad_setting_in_a_link_is_refused_with_its_reason_and_the_rest_applies(query, refused):
    model = QueueModel()
    said = apply_link_settings(model, args_of(f"queue?{query}&initial_backlog=7"))
    assert len(said) == 1 and refused in said[0]
    assert model.initial_backlog == 7 and model.arrival_rate == 1 and model.service_rate == 2


def test_only_the_labs_own_controls_are_read():
    model = QueueModel()
    args = args_of("queue?t=5&horizon=1&__class__=x&param=1&name=evil&reset=1")
    fresh = QueueModel()
    assert apply_link_settings(model, args) == []
    assert {n: v for n, v in model.param.values().items() if n != "name"} == {
        n: v for n, v in fresh.param.values().items() if n != "name"
    }
