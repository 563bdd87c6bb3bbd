"""The fields and switches a lab's stage draws itself (labs/ui/stage.py), headless.

The page sends a typed value or a ticked box as one message to the stage, ``{"field": i, "value": ...}``
(``assets/fields.js``); the server sends every field's state back as ``fields_json``. Here the messages
are handed to the stage as Panel hands them over, and the JSON is read as the page reads it.
"""

from __future__ import annotations

import json

import panel as pn
import pytest
from bokeh.document import Document

from labs.queue.view import QueueLab
from labs.timeline.view import TimelineLab
from labs.ui.stage import LabStage
from tests.headless import status_text
from tests.page_documents import page_document


@pytest.fixture
def lab() -> QueueLab:
    view = QueueLab()
    view.__panel__()
    return view


def stage_of(lab) -> LabStage:
    return lab.__panel__()


def shown(lab) -> list[dict]:
    """Every field's state as the page draws it."""
    return json.loads(stage_of(lab).fields_json)["fields"]


def index_of(lab, key: str) -> int:
    stage = stage_of(lab)
    kind, index = stage.places[stage.keys.index(key)]
    assert kind == "field"
    return index


def test_the_queue_labs_fields_and_switch_are_drawn_by_the_stage_not_by_components_of_their_own(lab):
    stage = stage_of(lab)
    assert stage.controls == []  # nothing but fields and a switch: no Panel object per control
    assert [kind for kind, _ in stage.places] == ["field"] * len(stage.keys)
    states = shown(lab)
    assert [s["label"] for s in states] == [
        "Arrival rate λ (units/s)",
        "Service rate μ (units/s)",
        "Initial backlog q0 (units)",
        "Arrivals stop at (s)",
        lab.switch.label,
        lab.seed_field.input.label,
    ]
    assert states[index_of(lab, "random_queue")] == {"kind": "switch", "label": lab.switch.label, "value": False}
    assert states[index_of(lab, "arrivals_stop")]["value"] == "never"


def test_a_typed_value_comes_as_a_message_and_changes_the_lab(lab):
    stage = stage_of(lab)
    stage._handle_msg({"field": index_of(lab, "arrival_rate"), "value": "4"})
    stage._handle_msg({"field": index_of(lab, "service_rate"), "value": "3"})
    assert (lab.model.arrival_rate, lab.model.service_rate) == (4, 3)
    assert "net rate λ − μ = +1.00" in status_text(lab)
    assert shown(lab)[index_of(lab, "arrival_rate")]["value"] == "4"


def test_a_refused_value_stays_in_its_field_with_why_and_the_model_keeps_its_own(lab):
    stage = stage_of(lab)
    where = index_of(lab, "arrival_rate")
    stage._handle_msg({"field": where, "value": "banana"})
    assert lab.model.arrival_rate == 1
    state = shown(lab)[where]
    assert state["value"] == "banana" and "not a number" in state["error"] and "kept 1" in state["error"]
    others = [s for i, s in enumerate(shown(lab)) if i != where]
    assert all(not s.get("error") for s in others)  # the refusal is under its own field only
    stage._handle_msg({"field": where, "value": "2"})
    assert lab.model.arrival_rate == 2 and shown(lab)[where]["error"] == ""


def test_a_value_the_server_sets_reaches_the_page(lab):
    lab.model.apply("service_rate", "5")
    assert shown(lab)[index_of(lab, "service_rate")]["value"] == "5"


def test_a_ticked_box_comes_as_a_message_and_switches_the_random_queue_on(lab):
    stage_of(lab)._handle_msg({"field": index_of(lab, "random_queue"), "value": True})
    assert lab.model.random_queue is True and lab.switch.value is True
    assert shown(lab)[index_of(lab, "random_queue")]["value"] is True


@pytest.mark.parametrize(
    "message",
    [
        None,
        "4",
        [0, "4"],
        {},
        {"field": 99, "value": "4"},
        {"field": -1, "value": "4"},
        {"field": True, "value": "4"},
        {"field": "0", "value": "4"},
        {"field": 0, "value": 4},
        {"field": 0, "value": None},
        {"field": 4, "value": "yes"},  # the switch: only true or false
        {"field": 4, "value": 1},
    ],
)
def test_a_message_that_is_not_a_field_and_its_value_changes_nothing(lab, message):
    before = (lab.model.param.values(), shown(lab))
    assert lab.__panel__().keys[4] == "random_queue"
    stage_of(lab)._handle_msg(message)
    assert (lab.model.param.values(), shown(lab)) == before


def test_a_value_put_back_as_it_was_is_sent_to_the_page_again():
    """'-0.0' in a field holding 0 reads as 0: the page must be told, though no field's state changed."""
    lab = TimelineLab()
    stage = lab.__panel__()
    where = stage.places[stage.keys.index("launch_gap")][1]
    sent = stage.fields_json
    stage._handle_msg({"field": where, "value": "-0.0"})
    assert lab.model.launch_gap == 0 and json.loads(stage.fields_json)["fields"] == json.loads(sent)["fields"]
    assert stage.fields_json != sent and json.loads(stage.fields_json)["taken"] == 1


def test_in_a_document_a_message_changes_the_pages_models(lab):
    doc = Document()
    stage = stage_of(lab)
    root = stage.get_root(doc)
    doc.add_root(root)
    pn.state.curdoc = doc
    try:
        stage._handle_msg({"field": index_of(lab, "arrival_rate"), "value": "4"})
    finally:
        pn.state.curdoc = None
    assert lab.model.arrival_rate == 4
    assert json.loads(root.data.fields_json)["fields"][index_of(lab, "arrival_rate")]["value"] == "4"
    assert "net rate λ − μ = +2.00" in lab.transport.status.text


def test_the_timeline_stage_draws_its_fields_and_switches_and_places_its_choosers():
    lab = TimelineLab()
    stage = lab.__panel__()
    kinds = dict(zip(stage.keys, (kind for kind, _ in stage.places), strict=True))
    assert {kinds[name] for name in lab.switches} == {"field"}
    assert {kinds[f.control] for f in lab.fields} == {"field"}
    assert {kinds[name] for name in lab.choosers} == {"field"}  # drawn by the stage (labs/ui/select_field.py)
    assert stage.control("preset") is lab.preset
    layers = shown(lab)[index_of(lab, "layers")]
    assert layers["styles"] == {"flex": "1 1 100%"}  # the layers' field takes a line of its own


def test_a_pick_that_crossed_a_reset_ends_with_the_page_showing_what_the_lab_runs():
    """The fuzz at seed 4471: Reset, then a select picked before the Reset's answer came back. The page drew
    the Reset's option over the pick, and the server applied the pick unseen ("buckets = 1, expected 3").
    The stage answers every pick with every field's state and a new count, so the page draws what runs."""
    lab = TimelineLab()
    stage = stage_of(lab)
    where = index_of(lab, "iteration")
    first = next(option for option in shown(lab)[where]["options"] if option.startswith("First iteration"))
    lab.transport.reset()  # the Reset, answered (its fields_json on its way to the page)
    stage._handle_msg({"field": where, "value": first})  # the pick, made before that answer arrived
    state = json.loads(stage.fields_json)
    assert state["taken"] == 1 and state["fields"][where]["value"] == first  # the pick, drawn over the Reset's
    assert lab.model.first_iteration and lab.model.bucket_count == 1
    stage._handle_msg({"field": where, "value": "No such iteration"})  # forged: ignored, and answered
    state = json.loads(stage.fields_json)
    assert state["taken"] == 2 and state["fields"][where]["value"] == first
    assert lab.model.first_iteration


def test_a_lesson_page_has_no_component_per_field():
    doc = page_document("/lesson?id=overlap&exercise=growth")
    names = {type(model).__name__ for model in doc.models}
    assert not {name for name in names if name.startswith(("TextField", "SwitchField", "SelectField"))}
    assert len([m for m in doc.models if type(m).__name__.startswith("LabStage")]) == 1
