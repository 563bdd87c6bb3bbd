"""app.upstream.lean_params: the app's objects share their class's Parameters; values and watchers stay their own."""

from __future__ import annotations

import re
from pathlib import Path

import panel as pn
import param
from param.parameterized import ParameterizedMetaclass

from app import upstream
from app.course.exercise_card import ExerciseCard
from app.upstream import lean_params
from labs.queue.model import QueueModel
from labs.queue.view import QueueLab
from labs.ui.stage import LabStage
from labs.ui.text_field import TextField

ROOT = Path(__file__).resolve().parents[2]
SLOTS = "|".join(sorted(set(param.Parameter.__slots__) | {"objects", "bounds", "softbounds", "step"}))
CHANGES_A_PARAMETER = re.compile(rf"\.param(\.\w+|\[[^\]]+\])\.({SLOTS})\s*=(?!=)|edit_constant\(|edit_readonly\(")
"""A statement that changes a Parameter's description on one object, or lifts constant/readonly for a moment."""


def test_the_fix_is_installed_here():
    assert upstream.is_installed("lean_params")


def test_no_module_of_the_app_changes_a_parameter_on_one_object():
    """What lets the app's objects share their class's Parameters: none of its code changes one."""
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for folder in ("app", "labs")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if CHANGES_A_PARAMETER.search(line) and "app/upstream/lean_params.py" not in str(path)
    ]
    assert found == []


INSTANCE_PARAMETER = re.compile(
    r"\b[a-z_]\w*\.param\.(?!(watch|unwatch|update|trigger|objects|values|watchers|pprint|add_parameter)\b)[a-z_]\w*"
)
"""An object's Parameter as a value (``progress.param.completed``): what param.bind, pn.bind or rx would watch."""


def test_no_module_of_the_app_hands_an_objects_parameter_to_be_watched():
    """Shared, an object's Parameter names its class: a bind or a reference to it would watch the class.

    The app watches its objects by name (``obj.param.watch(f, "name")``, ``param.depends("name")``).
    """
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for folder in ("app", "labs")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if INSTANCE_PARAMETER.search(line.split("#")[0])
    ]
    assert found == []


def test_the_apps_objects_share_their_classs_parameters_and_panels_keep_their_copies():
    card, model, field = ExerciseCard(), QueueModel(), TextField(label="λ")
    stage = LabStage(label="Queue lab")
    assert card.param["feedback_html"] is ExerciseCard.param["feedback_html"]
    assert model.param["arrival_rate"] is QueueModel.param["arrival_rate"]
    assert field.param["value"] is TextField.param["value"]
    assert stage.param["fields_json"] is LabStage.param["fields_json"]
    assert stage.param["width"] is LabStage.param["width"]  # Panel's, inherited by the app's component
    widget = pn.widgets.TextInput()
    assert widget.param["value"] is not pn.widgets.TextInput.param["value"]  # Panel's own class: its copy
    assert lean_params.is_app_class(QueueLab) and not lean_params.is_app_class(pn.widgets.TextInput)


def test_a_class_of_the_app_defined_after_install_shares_too():
    later = ParameterizedMetaclass("Later", (param.Parameterized,), {"__module__": "app.later", "x": param.Number(1)})
    elsewhere = ParameterizedMetaclass("Other", (param.Parameterized,), {"__module__": "other", "x": param.Number(1)})
    assert later().param["x"] is later.param["x"]
    assert elsewhere().param["x"] is not elsewhere.param["x"]  # param's own behaviour, kept outside the app


def test_values_watchers_and_dependencies_stay_each_objects_own():
    first, second = QueueModel(), QueueModel()
    heard: list[tuple[str, float]] = []
    first.param.watch(lambda event: heard.append(("first", event.new)), "arrival_rate")
    first.arrival_rate, second.arrival_rate = 3.0, 5.0
    assert (first.arrival_rate, second.arrival_rate) == (3.0, 5.0)
    assert heard == [("first", 3.0)]
    assert first.net_rate == 3.0 - first.service_rate and second.net_rate == 5.0 - second.service_rate


def test_a_change_from_the_browser_to_a_constant_property_leaves_the_class_as_it_was():
    """Panel lifts readonly/constant around a browser's change; the shared Parameter gets it back."""
    from app.course.progress import ProgressStore

    store = ProgressStore()
    with pn.util.edit_readonly(store):
        store.storage_key = "another-key"
    assert store.storage_key == "another-key" and ProgressStore.param["storage_key"].constant
    assert ProgressStore().storage_key != "another-key"  # the value was the object's own


def test_param_alone_copies_every_parameter_an_object_reads():
    """Why the fix exists. Delete it once param stops copying a Parameter per object on read."""

    class Stock(param.Parameterized):
        x = param.Number(1)

    stock = Stock()
    assert stock.param["x"] is not Stock.param["x"]
