"""The bucket timeline lab's view without a browser: readout, bars at t, concealing, table, choosers."""

from __future__ import annotations

import re

import pytest
from bokeh.models import Div

from labs.timeline.model import EMBEDDING_FIRST, TimelineModel
from labs.timeline.view import TimelineLab
from labs.ui.playback import clipped
from tests.headless import field, send, status_text


@pytest.fixture
def lab():
    return TimelineLab()


def test_readout_and_field_names(lab):
    model = TimelineModel()
    text = status_text(lab)
    assert "t = 0.00 ms" in text
    assert f"buckets = {model.bucket_count}" in text
    assert f"step = {model.step_time:.2f} ms" in text and f"exposed = {model.exposed:.2f} ms" in text
    names = [f.input.label for f in lab.fields]
    wanted_names = ("Layers", "Bucket cap", "First bucket cap", "Ranks p", "Network bandwidth", "Latency α")
    for wanted in (*wanted_names, "Straggler delay"):
        assert any(name.startswith(wanted) for name in names), (wanted, names)
    assert lab.preset.label == "Model" and lab.iteration.label == "Iteration"


def test_bars_follow_t_and_match_the_model(lab):
    send(lab, "step")
    t = lab.model.t
    assert t > 0
    assert lab.transport.bars.data == clipped(lab.bar_columns(), t)
    assert lab.transport.now.location == t
    comm = [label for label, row in zip(lab.bar_columns()["label"], lab.bar_columns()["row"], strict=True)
            if row == "all-reduce"]
    assert comm == [f"{m:g} MiB" for m in lab.model.bucket_mib]


def test_conceal_hides_every_figure_that_answers_an_exercise(lab):
    lab.conceal = True
    text = status_text(lab)
    assert "buckets" not in text and "step =" not in text and "exposed" not in text
    assert "exposed" not in lab.table.text and not lab.sweep.visible
    assert not lab.exposed_box.visible and not lab.optimizer.visible
    lab.conceal = False
    assert "exposed =" in status_text(lab) and lab.sweep.visible


def test_table_lists_every_bucket(lab):
    rows = re.findall(r"<tr>", lab.table.text)
    assert len(rows) == lab.model.bucket_count + 1
    assert isinstance(lab.table, Div)


def test_choosers_and_refusals_keep_the_state(lab):
    lab.preset.value = EMBEDDING_FIRST
    assert lab.model.preset == EMBEDDING_FIRST and lab.model.layers.startswith("128:")
    before = (lab.model.layers, status_text(lab))
    layers = field(lab, "layers")
    layers.input.value = "8:2, oops"
    assert (lab.model.layers, status_text(lab)) == before
    assert "Layers" in layers.error and layers.input.value == lab.model.layers
    lab.preset.value = "Custom"  # only names edited layers: refused, the select goes back
    assert lab.preset.value == EMBEDDING_FIRST == lab.model.preset
    layers.input.value = "8:2, 8:2"
    assert lab.model.preset == "Custom" == lab.preset.value
    assert lab.model.bucket_count == 2
