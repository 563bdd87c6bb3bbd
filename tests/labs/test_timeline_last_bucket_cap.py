"""DDP_SET_LAST_BUCKET_CAP=1 in the bucket timeline: PyTorch's rebuild with the small bucket last.

The layouts are checked against tests/fixtures/ddp_last_bucket_cap.json, made by real torch 2.13.0
DDP with the variable set (tools/make_last_cap_fixtures.py), and the timings on the lab's default
model against the figures issue 45 quotes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labs.timed import InvalidInput
from labs.timeline.buckets import (
    LAYOUTS,
    REBUILT,
    REBUILT_SMALL_LAST,
    REGISTRATION,
    assign_buckets,
    bucket_layout,
)
from labs.timeline.controls import layout_of
from labs.timeline.layers import cap_to_bytes, format_layers, to_bytes
from labs.timeline.model import AFTER_REBUILD, FIND_UNUSED, FIRST_ITERATION, ITERATIONS, TimelineModel

FIXTURE = json.loads((Path(__file__).parents[1] / "fixtures" / "ddp_last_bucket_cap.json").read_text())
MIB = 2**20


def test_off_by_default_and_every_default_result_unchanged():
    m = TimelineModel()
    assert m.last_bucket_cap is False and m.layout == REBUILT
    assert [b.layers for b in m.buckets] == [(7,), (6, 5, 4, 3), (2, 1, 0)]
    assert m.exposed == pytest.approx(4.40, abs=0.005)


def test_on_the_small_bucket_holds_the_first_layer_and_is_reduced_last():
    m = TimelineModel(last_bucket_cap=True)
    assert m.layout == REBUILT_SMALL_LAST
    assert [b.layers for b in m.buckets] == [(7, 6, 5), (4, 3, 2, 1), (0,)]
    assert [b.mib for b in m.buckets] == [24, 32, 8]


def test_on_the_eight_layer_model_exposes_5_34_because_the_32_mib_bucket_ends_at_19_87():
    off, on = TimelineModel(), TimelineModel(last_bucket_cap=True)
    assert off.exposed == pytest.approx(4.40, abs=0.005)
    assert on.exposed == pytest.approx(5.34, abs=0.005)
    ahead, small = on.buckets[-2], on.buckets[-1]
    assert ahead.mib == 32 and ahead.end == pytest.approx(19.87, abs=0.005)
    assert small.ready == pytest.approx(16) and small.start == pytest.approx(ahead.end)
    assert on.step_time == pytest.approx(ahead.end + small.cost)
    assert on.backward_end == off.backward_end == 16


def test_the_switch_is_read_like_the_others_and_refuses_nonsense():
    m = TimelineModel()
    assert m.apply("last_bucket_cap", "on") is True and m.last_bucket_cap
    with pytest.raises(InvalidInput, match="DDP_SET_LAST_BUCKET_CAP=1.*neither on nor off; kept on"):
        m.apply("last_bucket_cap", "maybe")
    assert m.last_bucket_cap
    m.reset()
    assert not m.last_bucket_cap


@pytest.mark.parametrize("iteration", ITERATIONS)
def test_only_the_rebuild_reads_the_variable(iteration):
    on = TimelineModel(iteration=iteration, last_bucket_cap=True)
    off = TimelineModel(iteration=iteration)
    if iteration == AFTER_REBUILD:
        assert on.layout == REBUILT_SMALL_LAST != off.layout
    else:  # one bucket before the rebuild; find_unused_parameters=True never rebuilds
        assert on.layout == off.layout == layout_of(iteration)
        assert [b.layers for b in on.buckets] == [b.layers for b in off.buckets]
        assert on.step_time == off.step_time


def test_the_cap_note_says_where_the_variable_acts():
    from labs.timeline.figures import cap_note

    assert "DDP_SET_LAST_BUCKET_CAP" not in cap_note(TimelineModel())
    assert "last bucket" in cap_note(TimelineModel(last_bucket_cap=True))
    assert "changes nothing" in cap_note(TimelineModel(last_bucket_cap=True, iteration=FIND_UNUSED))
    assert "changes nothing" in cap_note(TimelineModel(last_bucket_cap=True, iteration=FIRST_ITERATION))


# ----- real PyTorch (tests/fixtures/ddp_last_bucket_cap.json) ------------------------------------


def test_the_fixture_was_made_by_torch_with_the_variable_set():
    assert FIXTURE["torch_version"].startswith("2.13.")
    assert FIXTURE["generated_by"] == "tools/make_last_cap_fixtures.py"
    assert FIXTURE["environment"] == {"DDP_SET_LAST_BUCKET_CAP": "1"}
    assert len({r["network"] for r in FIXTURE["layouts"]}) == 3
    assert any(r["static_graph"] for r in FIXTURE["layouts"]) and any(
        r["find_unused_parameters"] for r in FIXTURE["layouts"]
    )


@pytest.mark.parametrize(
    "record",
    FIXTURE["layouts"],
    ids=lambda r: f"{r['network']}-{r['bucket_cap_mb']}-unused={r['find_unused_parameters']}-{r['static_graph']}",
)
def test_layouts_match_pytorch_with_the_variable_set(record):
    sizes = record["param_bytes"]
    first, cap = record["first_bucket_cap_bytes"], record["bucket_bytes_cap"]
    if record["find_unused_parameters"] and not record["static_graph"]:
        expected = [list(b) for b in bucket_layout(sizes, first, cap, REGISTRATION)]
        assert [sorted(b) for b in record["iterations"][2]] == [sorted(b) for b in expected]  # never rebuilt
        return
    rebuilt = bucket_layout(sizes, first, cap, REBUILT_SMALL_LAST)
    # PyTorch keeps each bucket in the reversed ready order it assigned it in: the one ready last first
    assert record["iterations"][2] == [sorted(b) for b in rebuilt]
    assert [list(b) for b in rebuilt] == [sorted(b, reverse=True) for b in rebuilt]  # the lab lists them as ready
    assert record["bucket_bytes"][2] == [sum(sizes[i] for i in b) for b in rebuilt]
    layers_mib = [s / MIB for s in sizes]
    m = TimelineModel(
        layers=format_layers(layers_mib, [1.0] * len(sizes)),
        first_bucket_cap=first / MIB,
        bucket_cap=cap / MIB,
        last_bucket_cap=True,
    )
    assert [b.layers for b in m.buckets] == rebuilt


# ----- invariants ---------------------------------------------------------------------------------

sizes_lists = st.lists(st.integers(0, 300 * MIB), min_size=1, max_size=40)
caps = st.floats(0.01, 1024)


@settings(max_examples=200, deadline=None)
@given(sizes_lists, caps, caps)
def test_the_variable_never_changes_the_tensors_nor_the_bytes(sizes, first_mib, cap_mib):
    first, cap = cap_to_bytes(first_mib), cap_to_bytes(cap_mib)
    normal = bucket_layout(sizes, first, cap, REBUILT)
    small_last = bucket_layout(sizes, first, cap, REBUILT_SMALL_LAST)
    assert sorted(i for b in small_last for i in b) == sorted(i for b in normal for i in b) == list(range(len(sizes)))
    assert sum(sizes[i] for b in small_last for i in b) == sum(sizes)
    assert [i for b in small_last for i in b] == list(range(len(sizes)))[::-1]  # still in ready order
    # PyTorch's own steps: reverse the ready order, assign with [first, cap], reverse the buckets
    ready = list(range(len(sizes)))[::-1]
    backwards = ready[::-1]
    assigned = assign_buckets([sizes[i] for i in backwards], first, cap)
    expected = [tuple(sorted((backwards[k] for k in b), reverse=True)) for b in assigned][::-1]
    assert small_last == expected
    # the last bucket is the one the first cap closed (or the only one)
    last = small_last[-1]
    assert sum(sizes[i] for i in last) >= first or len(small_last) == 1


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from([0.5, 1, 4, 8, 25, 64]), st.sampled_from([0.5, 1, 2])), min_size=2, max_size=12)
)
def test_on_the_small_bucket_is_reduced_last(layers):
    m = TimelineModel(layers=format_layers([s for s, _ in layers], [t for _, t in layers]), last_bucket_cap=True)
    sizes = to_bytes([s for s, _ in layers])
    last = m.buckets[-1]
    assert 0 in last.layers  # the first layer's gradient, the last one ready
    assert last.end == max(b.end for b in m.buckets)
    if m.bucket_count > 1:
        assert sum(int(sizes[i]) for i in last.layers) >= m.first_cap_bytes
        assert last.start >= m.buckets[-2].end


def test_the_layout_is_listed():
    assert REBUILT_SMALL_LAST in LAYOUTS
