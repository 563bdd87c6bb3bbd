"""The bucket timeline model: PyTorch's own bucketing, invariants (hypothesis), worked steps, refusals."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from labs.timed import InvalidInput
from labs.timeline import text
from labs.timeline.buckets import assign_buckets
from labs.timeline.model import (
    AFTER_REBUILD,
    CUSTOM,
    EMBEDDING_FIRST,
    EQUAL_LAYERS,
    EQUAL_LAYERS_BF16,
    FIRST_ITERATION,
    MIB,
    PRESETS,
    SWEEP_CAPS_MIB,
    TimelineModel,
    format_layers,
    nice_step,
    parse_layers,
    preset_layers,
)
from labs.timeline.schedule import ring_allreduce_ms

FIXTURES = json.loads((Path(__file__).parents[1] / "fixtures" / "ddp_buckets.json").read_text())

# What one MiB costs in a ring all-reduce at the defaults: 2(p−1)/p · 2^20 bytes / (10 GB/s) with p = 8
# = 1.75 × 1,048,576 / 10^10 s = 0.1835008 ms.
MS_PER_MIB = 1.75 * MIB / 1e10 * 1e3


def model(layers: str | None = None, **controls: object) -> TimelineModel:
    m = TimelineModel()
    if layers is not None:
        m.apply("layers", layers)
    for name, value in controls.items():
        m.apply(name, value)
    return m


# ----- PyTorch's own bucket assignment (tests/fixtures/ddp_buckets.json) ------------------------


def test_fixtures_come_from_torch_2_13_and_cover_the_corners():
    assert FIXTURES["torch_version"].startswith("2.13.0")
    assert FIXTURES["function"] == "torch.distributed._compute_bucket_assignment_by_size"
    cases = FIXTURES["cases"]
    pairs = {(c["first_cap"], c["cap"]) for c in cases}
    assert (MIB, 25 * MIB) in pairs  # DDP's defaults
    assert (25 * MIB, 25 * MIB) in pairs  # an explicit bucket_cap_mb (see the DDP runs below)
    assert any(first > cap for first, cap in pairs)
    assert any(max(c["sizes"]) > c["cap"] for c in cases)  # a tensor is never split
    assert any(len(c["buckets"]) == 1 for c in cases)
    assert any(len(c["buckets"]) > 10 for c in cases)
    assert any(0 in c["sizes"] for c in cases)  # empty tensors count 0 bytes
    assert len((Path(__file__).parents[1] / "fixtures" / "ddp_buckets.json").read_bytes()) < 200_000


@pytest.mark.parametrize("case", FIXTURES["cases"], ids=lambda c: f"{len(c['sizes'])}x-{c['first_cap']}-{c['cap']}")
def test_assign_buckets_is_pytorchs_assignment(case):
    ours = assign_buckets(case["sizes"], case["first_cap"], case["cap"])
    # Without tensor_indices PyTorch sorts its buckets by their smallest index. For one dtype on one
    # device every bucket is a run of consecutive positions, so that sort keeps our order: equal as is.
    assert ours == case["buckets"]
    # PyTorch also returns each bucket's limit: the first cap for bucket 0, the cap after it (the
    # open last bucket reports the limit current when the tensors ran out).
    assert case["limits"] == [case["first_cap"]] + [case["cap"]] * (len(ours) - 1)
    # With tensor_indices (what Reducer::rebuild_buckets passes: parameter indices in the order their
    # gradients were observed) PyTorch returns those labels instead of positions, in ready order,
    # unsorted. The mapping is explicit: position i in ready order -> tensor_indices[i].
    labels = case["tensor_indices"]
    assert [[labels[i] for i in bucket] for bucket in ours] == case["buckets_with_indices"]


@pytest.mark.parametrize("run", FIXTURES["ddp_runs"], ids=lambda r: r["name"])
def test_real_ddp_runs_bucket_as_assign_buckets_says(run):
    """Gloo, one process: iteration 1 reduces one bucket; from iteration 2 on, the rebuilt buckets."""
    count = len(run["param_bytes"])
    # Every network here is a chain of one-gradient layers: gradients arrive last layer first.
    assert run["ready_order"] == list(range(count))[::-1]
    first, rebuilt, later = run["iterations"]
    assert first == [list(range(count))]  # one bucket holding every gradient
    sizes_in_ready_order = [run["param_bytes"][i] for i in run["ready_order"]]
    ours = assign_buckets(sizes_in_ready_order, run["first_cap"], run["cap"])
    assert [[run["ready_order"][i] for i in bucket] for bucket in ours] == rebuilt == later


def test_ddp_uses_the_cap_for_the_first_bucket_when_bucket_cap_mb_is_given():
    """torch 2.13: the 1 MiB first bucket applies only while bucket_cap_mb is left at its default."""
    runs = {run["bucket_cap_mb"]: run for run in FIXTURES["ddp_runs"]}
    assert (runs[None]["first_cap"], runs[None]["cap"]) == (MIB, 25 * MIB)
    assert (runs[10]["first_cap"], runs[10]["cap"]) == (10 * MIB, 10 * MIB)


def test_the_model_buckets_like_the_ddp_run_of_8_equal_layers():
    run = next(r for r in FIXTURES["ddp_runs"] if r["name"] == "8 equal layers of 4 MiB, DDP defaults")
    m = model(", ".join(["4:1"] * 8))
    assert [list(b.layers) for b in m.buckets] == run["iterations"][1]
    m.apply("iteration", FIRST_ITERATION)
    assert sorted(m.buckets[0].layers) == run["iterations"][0][0]


# ----- assign_buckets on its own ----------------------------------------------------------------

byte_sizes = st.lists(st.integers(min_value=0, max_value=2**28), max_size=60)
caps = st.integers(min_value=0, max_value=2**27)


@given(byte_sizes, caps, caps)
def test_assign_buckets_is_the_greedy_rule(sizes, first_cap, cap):
    buckets = assign_buckets(sizes, first_cap, cap)
    assert [i for bucket in buckets for i in bucket] == list(range(len(sizes)))  # each once, in order
    assert all(buckets)
    for k, bucket in enumerate(buckets):
        limit = first_cap if k == 0 else cap
        filled = [sum(sizes[i] for i in bucket[: j + 1]) for j in range(len(bucket))]
        assert all(f < limit for f in filled[:-1])  # closes as soon as it reaches its limit, not before
        if k < len(buckets) - 1:
            assert filled[-1] >= limit  # only the last bucket may stay under its limit


def test_assign_buckets_examples():
    assert assign_buckets([], MIB, 25 * MIB) == []
    assert assign_buckets([MIB], MIB, 25 * MIB) == [[0]]  # reaching the limit exactly closes the bucket
    assert assign_buckets([MIB - 1, 1, 5], MIB, 6) == [[0, 1], [2]]
    assert assign_buckets([100 * MIB, 1, 1], MIB, 25 * MIB) == [[0], [1, 2]]  # never split
    with pytest.raises(ValueError):
        assign_buckets([-1], 1, 1)
    with pytest.raises(ValueError):
        assign_buckets([1], -1, 1)


# ----- worked steps, by hand --------------------------------------------------------------------


def test_eight_equal_layers_at_the_defaults():
    m = TimelineModel()
    assert m.preset == EQUAL_LAYERS and m.iteration == AFTER_REBUILD
    # Backward: layer 8 runs 0-2 ms, layer 7 2-4, ..., layer 1 14-16; gradients ready at 2, 4, ..., 16.
    assert m.backward_end == 16
    # Buckets in ready order: layer 8 (8 MiB >= the 1 MiB first cap) closes bucket 1 at 2 ms;
    # layers 7, 6, 5 make 24 MiB < 25, layer 4 brings 32 >= 25: bucket 2 closes at 10 ms (layer 4 ready);
    # layers 3, 2, 1 are the rest: 24 MiB, ready when layer 1 is, at 16 ms.
    assert [b.layers for b in m.buckets] == [(7,), (6, 5, 4, 3), (2, 1, 0)]
    assert [b.mib for b in m.buckets] == [8, 32, 24]
    assert m.bucket_count == 3
    # All-reduce cost = 2(p−1)/p · n / B = 1.75 · n / 10 GB/s; 8 MiB = 8,388,608 bytes → 1.4680064 ms.
    # Bucket 1: 2 → 3.4680064; bucket 2 (32 MiB, 5.8720256 ms): 10 → 15.8720256;
    # bucket 3 (24 MiB, 4.4040192 ms) starts at max(16, 15.872) = 16 and ends at 20.4040192.
    assert [b.ready for b in m.buckets] == [2, 10, 16]
    assert [b.start for b in m.buckets] == [2, 10, 16]
    assert [b.end for b in m.buckets] == pytest.approx([3.4680064, 15.8720256, 20.4040192], abs=1e-9)
    assert m.step_time == pytest.approx(20.4040192, abs=1e-9)
    # Exposed: step end − backward end = the whole last all-reduce, 24 MiB → 4.4040192 ms.
    assert m.exposed == pytest.approx(4.4040192, abs=1e-9)
    assert m.exposed == pytest.approx(24 * MS_PER_MIB)
    # No overlap: 16 ms of backward, then all 64 MiB at once: 16 + 11.7440512 = 27.7440512 ms.
    assert m.no_overlap_step == pytest.approx(27.7440512, abs=1e-9)
    assert m.horizon == m.step_time and m.step_size == 2


def test_large_embedding_first_at_the_defaults():
    m = TimelineModel()
    m.choose_preset(EMBEDDING_FIRST)
    assert m.layers == "128:0.5, " + ", ".join(["8:2"] * 8)
    # Backward: layers 9 to 2 take 2 ms each (0-16 ms), then the embedding (layer 1) 16-16.5 ms.
    assert m.backward_end == 16.5
    # Buckets: layer 9 (8 MiB) alone; layers 8-5 (32 MiB, closes at 10 ms); then layers 4, 3, 2 make
    # 24 MiB < 25 and the embedding's 128 MiB closes the last bucket (152 MiB) at 16.5 ms, when
    # backward ends: none of its all-reduce can overlap backward.
    assert [b.layers for b in m.buckets] == [(8,), (7, 6, 5, 4), (3, 2, 1, 0)]
    assert [b.mib for b in m.buckets] == [8, 32, 152]
    last = m.buckets[-1]
    assert last.ready == last.start == m.backward_end
    # Exposed = the last all-reduce: 152 MiB × 0.1835008 ms/MiB = 27.8921216 ms; step 44.3921216 ms.
    assert m.exposed == pytest.approx(27.8921216, abs=1e-9)
    assert m.step_time == pytest.approx(44.3921216, abs=1e-9)
    # No overlap: 16.5 + 192 MiB × 0.1835008 = 16.5 + 35.2321536 = 51.7321536 ms.
    assert m.no_overlap_step == pytest.approx(51.7321536, abs=1e-9)


def test_first_iteration_reduces_everything_after_backward():
    m = model(iteration=FIRST_ITERATION)
    assert m.bucket_count == 1
    assert m.buckets[0].layers == (7, 6, 5, 4, 3, 2, 1, 0)
    # One 64 MiB bucket, ready at 16 ms: 64 × 0.1835008 = 11.7440512 ms, all of it exposed.
    assert m.exposed == pytest.approx(11.7440512, abs=1e-9)
    assert m.step_time == m.no_overlap_step


def test_latency_adds_two_p_minus_one_steps_per_bucket():
    # α = 50 µs, p = 8: 2·7·0.05 ms = 0.7 ms per all-reduce, on top of the bandwidth term.
    assert ring_allreduce_ms(0, 8, 10, 50) == pytest.approx(0.7)
    m = model(latency="50")
    # Bucket 2 (32 MiB) runs from 10 ms for 5.8720256 + 0.7 ms, to 16.5720256: past the end of backward,
    # so bucket 3 (24 MiB) waits for it and starts at 16.5720256, then takes 4.4040192 + 0.7 ms.
    assert m.buckets[2].start == pytest.approx(16.5720256, abs=1e-9)
    assert m.step_time == pytest.approx(16.5720256 + 4.4040192 + 0.7, abs=1e-9)


def test_a_straggler_delays_every_bucket_and_shows_as_exposed_time_here():
    m = model(straggler="3")
    assert [b.ready for b in m.buckets] == [5, 13, 19]
    assert m.backward_end == 16  # this rank is on time
    assert m.step_time == pytest.approx(20.4040192 + 3, abs=1e-9)
    assert m.exposed == pytest.approx(4.4040192 + 3, abs=1e-9)  # the wait for the slow rank looks like comm
    assert m.slowest_backward_end == 19
    assert m.slowest_rank_exposed == pytest.approx(4.4040192, abs=1e-9)
    assert m.no_overlap_step == pytest.approx(27.7440512 + 3, abs=1e-9)


def test_with_latency_many_small_buckets_can_be_slower_than_no_overlap():
    # 64 layers of 0.125 MiB, 0.01 ms each: backward ends at 0.64 ms. α = 100 µs and p = 8 put
    # 2·7·0.1 = 1.4 ms of latency on every all-reduce: 64 buckets of 0.125 MiB (each >= the 0.1 MiB
    # caps) cost 64 × (1.4 + 0.0229376) ms ≈ 91 ms back to back, one bucket of 8 MiB only 2.868 ms.
    m = model(", ".join(["0.125:0.01"] * 64), latency="100", bucket_cap="0.1", first_bucket_cap="0.1")
    assert m.bucket_count == 64
    assert m.step_time > 10 * m.no_overlap_step
    assert m.no_overlap_step == pytest.approx(0.64 + 1.4 + 8 * MS_PER_MIB)


def test_a_tensor_larger_than_the_cap_is_never_split():
    m = model("100:1, 1:1, 1:1", bucket_cap="4", first_bucket_cap="1")
    # ready order: 1, 1, 100 MiB → [1 MiB] closes the first bucket; then 1 + 100 >= 4.
    assert [b.mib for b in m.buckets] == [1, 101]


# ----- invariants ---------------------------------------------------------------------------------

layer_lists = st.lists(
    st.tuples(
        st.one_of(st.sampled_from([0.004, 0.5, 1, 4, 8, 25, 64, 256]), st.floats(0.001, 300)),
        st.one_of(st.sampled_from([0, 0.5, 1, 2]), st.floats(0, 20)),
    ),
    min_size=1,
    max_size=40,
)
control_values = st.fixed_dictionaries(
    {
        "bucket_cap": st.floats(0.01, 1024),
        "first_bucket_cap": st.floats(0.01, 1024),
        "ranks": st.integers(2, 4096),
        "bandwidth": st.floats(0.01, 10000),
        "latency": st.floats(0, 1000),
        "straggler": st.floats(0, 100),
        "iteration": st.sampled_from([AFTER_REBUILD, FIRST_ITERATION]),
        "last_bucket_cap": st.booleans(),
    }
)


def built(layers: list[tuple[float, float]], controls: dict) -> TimelineModel:
    m = TimelineModel()
    m.apply("layers", format_layers([s for s, _ in layers], [t for _, t in layers]))
    for name, value in controls.items():
        m.apply(name, value)
    return m


@settings(max_examples=150, deadline=None)
@given(layer_lists, control_values)
def test_step_invariants(layers, controls):
    m = built(layers, controls)
    buckets = m.buckets
    count = m.layer_count
    assert sum(b.nbytes for b in buckets) == m.total_bytes  # bucket sizes sum to the total
    in_ready_order = [i for b in buckets for i in b.layers]
    assert sorted(in_ready_order) == list(range(count))  # every tensor in exactly one bucket
    assert in_ready_order == list(range(count))[::-1]  # buckets in ready order
    for b in buckets:
        assert b.start >= b.ready  # no all-reduce before its gradients exist on every rank
        assert b.end > b.start
    for before, after in zip(buckets, buckets[1:], strict=False):
        assert after.start >= before.end  # one stream: no two all-reduces overlap
        assert after.ready >= before.ready
    assert m.exposed >= 0
    assert m.step_time >= max(m.backward_end, m.comm_time) - 1e-9
    assert m.step_time == pytest.approx(max(m.backward_end, buckets[-1].end))
    if m.latency == 0:  # then cost is linear in bytes and bucketing never loses to one all-reduce at the end
        assert m.step_time <= m.no_overlap_step * (1 + 1e-12)
    if m.iteration == FIRST_ITERATION:
        assert m.bucket_count == 1
        assert m.exposed == pytest.approx(buckets[0].cost + m.straggler)
        assert m.step_time == pytest.approx(m.no_overlap_step)


@settings(max_examples=100, deadline=None)
@given(layer_lists, control_values, st.floats(1.0, 100.0))
def test_more_bandwidth_never_lengthens_the_step(layers, controls, factor):
    slow = built(layers, controls)
    assume(slow.bandwidth * factor <= 10000)
    fast = built(layers, {**controls, "bandwidth": slow.bandwidth * factor})
    assert fast.step_time <= slow.step_time * (1 + 1e-12)
    assert fast.exposed <= slow.exposed + 1e-9 * slow.step_time


@settings(max_examples=60, deadline=None)
@given(layer_lists, control_values)
def test_trajectory_is_exact_piecewise_linear_progress(layers, controls):
    m = built(layers, controls)
    traj = m.trajectory()
    t = traj["t"]
    assert t[0] == 0 and t[-1] == m.horizon == m.step_time
    assert np.all(np.diff(t) > 0)
    assert np.all(np.diff(traj["reduced_mib"]) >= -1e-9) and np.all(np.diff(traj["backward_pct"]) >= -1e-9)
    assert traj["reduced_mib"][-1] == pytest.approx(m.total_bytes / MIB)
    assert traj["reduced_pct"][-1] == pytest.approx(100)
    # Between breakpoints the browser interpolates linearly; that must be the model's own progress.
    cumulative = np.cumsum([b.mib for b in m.buckets])
    ends = np.array([b.end for b in m.buckets])
    assert np.interp(ends, t, traj["reduced_mib"]) == pytest.approx(cumulative, rel=1e-9, abs=1e-9)
    mid = [(b.start + b.end) / 2 for b in m.buckets]
    halfway = cumulative - np.array([b.mib for b in m.buckets]) / 2
    assert np.interp(mid, t, traj["reduced_mib"]) == pytest.approx(halfway, rel=1e-9, abs=1e-9)
    if m.backward_end > 0:
        assert np.interp(m.backward_end / 2, t, traj["backward_pct"]) == pytest.approx(50)


@settings(max_examples=60, deadline=None)
@given(layer_lists, control_values)
def test_intervals_are_the_gantt_of_the_step(layers, controls):
    m = built(layers, controls)
    bars = m.intervals()
    compute, comm = bars["compute"], bars["comm"]
    assert len(compute["start"]) == m.layer_count
    assert compute["start"][0] == 0 and compute["end"][-1] == pytest.approx(m.backward_end)
    assert np.allclose(compute["start"][1:], compute["end"][:-1])  # one compute stream, back to back
    assert list(compute["layer"]) == list(range(m.layer_count, 0, -1))  # last layer first
    assert list(comm["start"]) == [b.start for b in m.buckets]
    assert list(comm["end"]) == [b.end for b in m.buckets]
    assert all(label.endswith(" MiB") for label in comm["label"])
    assert (bars["exposed"]["start"][0], bars["exposed"]["end"][0]) == m.exposed_interval


def test_gantt_labels_at_the_defaults():
    bars = TimelineModel().intervals()
    assert list(bars["comm"]["label"]) == ["8 MiB", "32 MiB", "24 MiB"]
    assert list(bars["compute"]["label"][:2]) == ["layer 8", "layer 7"]


# ----- the sweep over bucket caps -----------------------------------------------------------------


def test_sweep_over_caps():
    m = TimelineModel()
    caps, steps = m.step_time_sweep()
    assert caps[0] == 0.25 and caps[-1] == pytest.approx(1024) and len(caps) == len(SWEEP_CAPS_MIB)
    assert m.step_time_sweep([25.0]).step[0] == m.step_time
    # A cap of 64 MiB or more: 8 MiB first, then one 56 MiB bucket ready at 16 ms → 16 + 56 × 0.1835008.
    assert steps[-1] == pytest.approx(16 + 56 * MS_PER_MIB)
    # With α = 0 a bucket per layer is best: only the last layer's 8 MiB is left after backward.
    assert steps[0] == pytest.approx(16 + 8 * MS_PER_MIB)
    assert m.step_time_sweep([25.0, 1000.0]).step == pytest.approx([m.step_time, 16 + 56 * MS_PER_MIB])
    m.apply("iteration", FIRST_ITERATION)
    assert np.allclose(m.step_time_sweep().step, m.no_overlap_step)


def test_latency_makes_tiny_buckets_cost_more():
    m = model(latency="200")  # 2·7·0.2 = 2.8 ms per all-reduce
    caps, steps = m.step_time_sweep([0.25, 25])
    assert steps[0] > steps[1]


# ----- the Layers field and the other controls ----------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("64:0.5, 8:2, 8:2", "64:0.5, 8:2, 8:2"),
        (" 64 : 0.5 ;8:2\n8:2, ", "64:0.5, 8:2, 8:2"),
        ("1e1:2.50", "10:2.5"),
        ("8:0", "8:0"),
        ("1e-7:1e-7", "9.53674e-07:0"),  # kept to the whole byte (at least 1) and to the nanosecond
        (", ".join(["1:1"] * 512), ", ".join(["1:1"] * 512)),
    ],
)
def test_layers_accepts_and_writes_back_the_standard_way(typed, expected):
    m = TimelineModel()
    assert m.apply("layers", typed) == expected
    assert m.layers == expected


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("", "there is no layer"),
        (" , ;\n", "there is no layer"),
        ("8", "layer 1 ('8') has no colon"),
        ("8:2, 8", "layer 2 ('8') has no colon"),
        ("8,5:2", "decimals take a point"),
        ("8:2:1", "more than one colon"),
        (":2", "no gradient size before its colon"),
        ("8:", "no backward time after its colon"),
        ("-8:2", "gradient size of layer 1 cannot be -8 MiB"),
        ("\u22128:2", "cannot be -8 MiB"),
        ("0:2", "cannot be 0 MiB; use a number above 0"),
        ("70000:2", "cannot be 70000 MiB"),
        ("8:-2", "backward time of layer 1 cannot be -2 ms; use a number at least 0"),
        ("8:20000", "cannot be 20000 ms"),
        ("abc:2", "'abc' is not a number"),
        ("8:two", "'two' is not a number"),
        ("nan:2", "must be a finite number"),
        ("8:inf", "must be a finite number"),
        ("8:-inf", "must be a finite number"),
        (", ".join(["8:2"] * 513), "513 layers are more than this lab takes; use at most 512"),
        (8, "type the layers as text"),
        (None, "type the layers as text"),
    ],
)
def test_layers_refusals_say_what_is_wrong_and_change_nothing(typed, says):
    m = TimelineModel()
    m.choose_preset(EMBEDDING_FIRST)
    m.t = 12
    before = m.param.values()
    with pytest.raises(InvalidInput) as refusal:
        m.apply("layers", typed)
    message = str(refusal.value)
    assert message.startswith("Layers: ")
    assert says in message
    assert message.endswith(f"kept {m.layers}.")  # the refused text stays in the field: the message names what holds
    assert m.param.values() == before


@settings(max_examples=80)
@given(st.text(max_size=30))
def test_any_text_is_taken_or_refused_never_crashes(text):
    m = TimelineModel()
    before = m.param.values()
    try:
        written = m.apply("layers", text)
    except InvalidInput:
        assert m.param.values() == before
        return
    sizes, times = parse_layers(written)
    assert 1 <= len(sizes) <= 512 and np.all(sizes > 0) and np.all(times >= 0)
    assert m.step_time > 0


@pytest.mark.parametrize(
    ("name", "typed", "says"),
    [
        ("ranks", "2.5", "Ranks p must be a whole number"),
        ("ranks", "1", "Ranks p cannot be 1"),
        ("ranks", "4097", "Ranks p cannot be 4097"),
        ("ranks", "nan", "Ranks p must be a finite number"),
        ("bucket_cap", "0", "Bucket cap cannot be 0"),
        ("bucket_cap", "-1", "Bucket cap cannot be -1"),
        ("bucket_cap", "2000", "Bucket cap cannot be 2000"),
        ("first_bucket_cap", "abc", "First bucket cap: 'abc' is not a number"),
        ("bandwidth", "0", "Network bandwidth B cannot be 0"),
        ("latency", "-1", "Latency α cannot be -1"),
        ("straggler", "inf", "Straggler delay must be a finite number"),
        ("iteration", "second", "Iteration: 'second' is not a choice"),
        ("preset", "Big", "Model: 'Big' is not a choice"),
        ("preset", CUSTOM, "edit Layers"),
    ],
)
def test_other_refusals_change_nothing(name, typed, says):
    m = TimelineModel()
    before = m.param.values()
    with pytest.raises(InvalidInput, match=says):
        m.apply(name, typed)
    assert m.param.values() == before


def test_number_controls_take_typed_numbers():
    m = TimelineModel()
    assert m.apply("ranks", "64") == 64
    assert m.apply("bucket_cap", "12,5") == 12.5
    assert m.apply("bandwidth", " 100 ") == 100
    assert m.apply("straggler", 1) == 1
    assert m.apply("iteration", FIRST_ITERATION) == FIRST_ITERATION


def test_presets_and_layers_stay_in_step():
    m = TimelineModel()
    assert list(PRESETS) == [EQUAL_LAYERS, EQUAL_LAYERS_BF16, EMBEDDING_FIRST]
    assert preset_layers(EQUAL_LAYERS_BF16) == ", ".join(["4:2"] * 8)  # fp32's 8 MiB a layer in 2-byte gradients
    assert m.layers == preset_layers(EQUAL_LAYERS) == ", ".join(["8:2"] * 8)
    m.choose_preset(EMBEDDING_FIRST)
    assert m.layers == preset_layers(EMBEDDING_FIRST)
    m.apply("layers", "8:2, 8:2")
    assert m.preset == CUSTOM
    m.apply("layers", ";".join(["8 : 2.0"] * 8))  # the same layers, typed differently
    assert m.preset == EQUAL_LAYERS
    m.preset = CUSTOM  # Custom is shown, not chosen: it falls back to what the layers are
    assert m.preset == EQUAL_LAYERS
    m.apply("preset", EMBEDDING_FIRST)
    assert m.bucket_count == 3 and m.layer_count == 9
    assert TimelineModel(preset=EMBEDDING_FIRST).layers == preset_layers(EMBEDDING_FIRST)
    assert TimelineModel(layers="1:1").preset == CUSTOM
    with pytest.raises(InvalidInput):
        TimelineModel(layers="1")


def test_every_control_is_a_parameter_with_a_label_and_a_doc():
    m = TimelineModel()
    for name in m.controls:
        parameter = m.param[name]
        assert parameter.label and parameter.doc
    for name in m.number_controls:
        assert m.param[name].bounds[0] is not None and m.param[name].bounds[1] is not None
    assert set(m.controls) == {*m.typed_controls, *m.choice_controls, *m.switch_controls}
    labels = {m.param[name].label for name in m.controls}
    assert {"Layers", "Bucket cap", "First bucket cap", "Ranks p", "Model", "Iteration"} <= labels
    assert {"Network bandwidth B", "Latency α", "Straggler delay"} <= labels


# ----- time: Step, edits, Reset -------------------------------------------------------------------


def test_step_edit_and_reset():
    m = TimelineModel()
    steps = 0
    while not m.at_end:
        m.step()
        steps += 1
    assert steps == 11 and m.t == m.horizon == m.step_time  # 2 ms a Step, 20.404 ms in all
    m.t = 18
    m.apply("bucket_cap", "1000")  # a 56 MiB bucket after the first: step 16 + 10.276 ms
    assert m.t == 18 and m.horizon == pytest.approx(16 + 56 * MS_PER_MIB)
    m.apply("bandwidth", "1000")
    assert m.t == m.horizon < 18  # clamped to the shorter step
    m.choose_preset(EMBEDDING_FIRST)
    m.apply("iteration", FIRST_ITERATION)
    m.reset()
    assert m.t == 0
    assert (m.preset, m.iteration, m.bucket_cap, m.bandwidth) == (EQUAL_LAYERS, AFTER_REBUILD, 25, 10)
    assert m.horizon == pytest.approx(20.4040192) and m.step_size == 2


def test_a_run_that_ended_stays_ended_when_an_edit_moves_the_end_only_by_rounding():
    """Seed 9090's phone fuzz: a missing bucket 3 of 5 gives the same end along another path, one
    unit of the last place later; the ended run lost its outcome ("INVALID") in the readout."""
    m = TimelineModel()
    m.param.update(bandwidth=42.0, bucket_cap=9.652, compute_slowdown=3.3)
    while not m.at_end:
        m.step()
    ended_at = m.t
    m.apply("missing_event", "bucket 3")
    assert m.step_time != ended_at and m.step_time == pytest.approx(ended_at, rel=1e-12)  # the case itself
    assert m.t == m.horizon == m.step_time and m.at_end
    assert text.ended(m) and "INVALID" in text.readout_template(m, False)
    m.apply("bandwidth", "20")  # a real change to the end still keeps t where it was
    assert m.t == pytest.approx(ended_at) and m.t < m.horizon


@pytest.mark.parametrize(("duration", "step"), [(20.4040192, 2), (44.39, 2), (10, 1), (0.0123, 0.001), (999, 50)])
def test_nice_step(duration, step):
    assert nice_step(duration) == pytest.approx(step)
    assert 10 <= duration / nice_step(duration) <= 25 + 1e-9


def test_two_models_share_nothing():
    a, b = TimelineModel(), TimelineModel()
    a.choose_preset(EMBEDDING_FIRST)
    a.apply("ranks", "2")
    assert b.preset == EQUAL_LAYERS and b.ranks == 8 and b.bucket_count == 3
    assert not math.isclose(a.step_time, b.step_time)


def test_the_choice_quantities_read_the_schedule():
    """What choice exercises ask: valid or not, the step against no overlap, latency against payload."""
    m = TimelineModel()
    assert (m.result, m.against_no_overlap) == ("valid", "shorter")
    m.apply("sync_each", True)  # backward waits for every all-reduce: the no-overlap step exactly
    assert m.step_time == pytest.approx(m.no_overlap_step) and m.against_no_overlap == "as long"
    m.reset()
    m.apply("optimizer_waits", False)
    assert m.result == "invalid"
    m.reset()
    m.param.update(compute_slowdown=3.0, comm_slowdown=3.0)
    assert m.against_no_overlap == "longer"
    m.reset()
    assert m.cost_share == "mostly payload"  # α = 0: nothing but bytes
    m.apply("latency", 100)  # 2(p − 1)α = 1.4 ms a bucket, against 1.75 × S / B_net
    m.param.update(first_bucket_cap=4.0, bucket_cap=4.0)
    m.apply("preset", EQUAL_LAYERS_BF16)  # 4 MiB buckets: 0.73 ms of bytes each
    assert m.cost_share == "mostly latency"
    crossover_mib = 8 * 100e-6 * 10e9 / 2**20  # p·α·B_net bytes: the two terms are equal
    m.apply("layers", ", ".join([f"{crossover_mib}:2"] * 8))
    assert m.cost_share == "half and half"


@settings(max_examples=200, deadline=None)
@given(
    horizon=st.floats(0.5, 100.0),
    pause=st.one_of(st.none(), st.floats(0.0, 120.0)),
    reached=st.floats(0.0, 120.0),
)
def test_a_run_ends_at_the_pause_it_had_not_passed_or_at_the_horizon(horizon, pause, reached):
    """``run_end``: the page's limit (player.js) worked out on the model's own pause and horizon."""
    m = TimelineModel()
    m.horizon, m.pause_at = horizon, pause
    end = m.run_end(reached)
    if pause is not None and reached <= pause < horizon:
        assert end == pause
    else:
        assert end == horizon
    assert end >= min(reached, horizon)
