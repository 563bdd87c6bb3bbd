"""What breaks the ideal overlap in the bucket timeline: worked steps, invariants (hypothesis), PyTorch's layouts."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labs.timed import InvalidInput
from labs.timeline.buckets import FIRST_ITERATION as ONE_BUCKET
from labs.timeline.buckets import REBUILT, REGISTRATION, assign_buckets, bucket_layout
from labs.timeline.model import AFTER_REBUILD, EMBEDDING_FIRST, FIND_UNUSED, FIRST_ITERATION, MIB, TimelineModel
from labs.timeline.schedule import Effects, ring_allreduce_ms, step_end, step_schedule

LAYOUTS = json.loads((Path(__file__).parents[1] / "fixtures" / "ddp_layouts.json").read_text())
MS_PER_MIB = 1.75 * MIB / 1e10 * 1e3  # one MiB's ring all-reduce at p = 8, B = 10 GB/s


def ideal(sizes, times, first_cap, cap, ranks, bandwidth, latency, straggler, one_bucket):
    """The closed-form ideal schedule the lab had before the simulation: the reference for defaults."""
    count = len(sizes)
    ready_order = np.arange(count)[::-1]
    ends = np.cumsum(np.asarray(times, dtype=float)[ready_order])
    sizes_ready = np.asarray(sizes)[ready_order]
    groups = [list(range(count))] if one_bucket else assign_buckets([int(s) for s in sizes_ready], first_cap, cap)
    nbytes = [int(sizes_ready[g].sum()) for g in groups]
    ready = [float(ends[g].max()) + straggler for g in groups]
    starts, finishes, previous = [], [], -np.inf
    for k in range(len(groups)):
        starts.append(max(ready[k], previous))
        previous = starts[-1] + ring_allreduce_ms(nbytes[k], ranks, bandwidth, latency)
        finishes.append(previous)
    return ready, starts, finishes, max(float(ends[-1]), finishes[-1])


networks = st.lists(
    st.tuples(st.integers(1, 64 * MIB), st.floats(0, 20, allow_subnormal=False)), min_size=1, max_size=24
)
caps = st.integers(0, 80 * MIB)
contention = st.floats(1, 4, allow_subnormal=False)


def args(network, first_cap, cap, ranks=8, bandwidth=10.0, latency=0.0, straggler=0.0):
    sizes = np.array([s for s, _ in network], dtype=np.int64)
    times = np.array([t for _, t in network])
    return sizes, times, first_cap, cap, ranks, bandwidth, latency, straggler


# ----- worked steps ---------------------------------------------------------------------------------


def test_contention_worked_example_keeps_the_tail_and_grows_the_step():
    """The issue's example: 8 equal layers at the defaults with s_c = 1.5, s_m = 1."""
    m = TimelineModel(compute_slowdown=1.5)
    assert m.backward_end == pytest.approx(18.447, abs=5e-4)
    assert m.step_time == pytest.approx(22.851, abs=5e-4)
    assert m.exposed == pytest.approx(4.404, abs=5e-4)
    assert m.exposed == pytest.approx(TimelineModel().exposed, abs=1e-12)
    # backward lost 2/3 of the time two all-reduces overlapped it: (1.468 + 5.872) ms × (1 − 1/1.5)
    assert m.backward_lost == pytest.approx((8 + 32) * MS_PER_MIB / 3, abs=1e-9)
    assert m.valid and not m.hangs


def test_communication_slowdown_stretches_the_all_reduces_beside_backward():
    m = TimelineModel(comm_slowdown=1.5)
    assert m.backward_end == 16 and m.backward_lost == 0
    first, middle, last = m.buckets
    assert first.cost == pytest.approx(1.5 * 8 * MS_PER_MIB)
    # from 10 ms it does 6 / 1.5 ms of its work beside backward, the rest at full speed after 16 ms
    assert middle.end == pytest.approx(16 + (32 * MS_PER_MIB - 6 / 1.5))
    assert last.start == middle.end and m.step_time == pytest.approx(middle.end + 24 * MS_PER_MIB)


def test_overlapping_can_be_slower_than_not_overlapping_at_all():
    m = TimelineModel(compute_slowdown=3, comm_slowdown=3)
    assert m.step_time > m.no_overlap_step
    assert TimelineModel(compute_slowdown=3, comm_slowdown=3, sync_each=True).step_time < m.step_time


def test_launch_gaps_hide_behind_backward_except_the_last():
    m = TimelineModel(launch_gap=0.5)
    assert [b.issue for b in m.buckets] == [2.5, 10.5, 16.5]
    assert [b.start for b in m.buckets] == [2.5, 10.5, 16.5]  # each start waits for its issue
    assert m.step_time == pytest.approx(TimelineModel().step_time + 0.5)
    table = m.bucket_table()
    assert list(table["issue"]) == [2.5, 10.5, 16.5] and list(table["ready"]) == [2, 10, 16]


def test_a_missing_event_looks_faster_and_reads_an_unwritten_gradient():
    m = TimelineModel(missing_event=3)
    last = m.buckets[2]
    assert last.issue == 10  # right after bucket 2's issue, not when layers 3, 2, 1 are written
    assert last.start == pytest.approx(10 + 32 * MS_PER_MIB)  # behind bucket 2 on the stream
    assert m.step_time < TimelineModel().step_time
    assert not m.valid and m.read_early == (1,)  # layer 1 is written at 16 ms, after the read
    assert "read early: layer 1" in m.bucket_table()["note"][2]


def test_a_missing_event_earlier_in_the_step_reads_more_layers_early():
    m = TimelineModel(missing_event=2)
    # bucket 2 is issued at 2 ms, right after bucket 1, and starts once bucket 1 is done (3.47 ms),
    # before layers 7 to 4 are written (at 4 to 10 ms)
    assert not m.valid and m.read_early == (4, 5, 6, 7)
    assert TimelineModel(missing_event=1).valid is False  # the first bucket, issued at 0 + g


def test_the_optimizer_that_does_not_wait_reads_unreduced_gradients():
    m = TimelineModel(optimizer_waits=False)
    assert m.step_time == 16 and m.exposed == 0
    assert not m.valid and m.optimizer_early == (1, 2, 3)
    assert m.horizon == pytest.approx(TimelineModel().step_time)  # the stream still runs after it
    assert TimelineModel(optimizer_waits=False, bucket_cap=8).optimizer_early == (1,)


def test_a_synchronization_after_every_bucket_serializes_backward_and_the_stream():
    m = TimelineModel(sync_each=True)
    costs = [b.cost for b in m.buckets]
    assert costs == pytest.approx([8 * MS_PER_MIB, 32 * MS_PER_MIB, 24 * MS_PER_MIB])
    assert m.backward_stalled == pytest.approx(costs[0] + costs[1])
    assert m.backward_end == pytest.approx(16 + costs[0] + costs[1])
    assert m.step_time == pytest.approx(16 + sum(costs)) and m.valid


def test_a_rank_that_skips_a_gradient_hangs_every_rank():
    m = TimelineModel(skipped_layer=6)  # layer 6 is in bucket 2 (layers 7, 6, 5, 4)
    assert m.hangs and m.hung_bucket == 2 and m.completed == 1
    assert np.isinf(m.step_time) and np.isinf(m.buckets[1].end) and np.isinf(m.buckets[2].start)
    assert np.isfinite(m.buckets[2].issue)  # this rank's host issued it; the stream waits behind bucket 2
    assert m.horizon > m.backward_end
    notes = m.bucket_table()["note"]
    assert "never completes" in notes[1] and "queued behind bucket 2" in notes[2]
    fixed = TimelineModel(skipped_layer=6, iteration=FIND_UNUSED)
    assert not fixed.hangs and fixed.valid and fixed.step_time == TimelineModel(iteration=FIND_UNUSED).step_time


def test_the_find_unused_parameters_layout_puts_the_first_cap_on_the_first_layers():
    m = TimelineModel(iteration=FIND_UNUSED)
    assert [b.layers for b in m.buckets] == [(7, 6, 5), (4, 3, 2, 1), (0,)]
    # 24 MiB ready at 6 ms, 32 MiB at 14 ms (done at 19.87), then layer 1's 8 MiB, ready at 16, waits
    assert m.exposed == pytest.approx(14 + 32 * MS_PER_MIB + 8 * MS_PER_MIB - 16, abs=1e-9)
    assert m.exposed > TimelineModel().exposed


def test_bad_input_for_the_new_controls_is_refused_and_changes_nothing():
    m = TimelineModel()
    before = {name: getattr(m, name) for name in m.controls}
    for name, raw in (
        ("compute_slowdown", "0.5"),
        ("compute_slowdown", "nan"),
        ("comm_slowdown", "fast"),
        ("launch_gap", "-1"),
        ("missing_event", "bucket 9"),
        ("missing_event", "yes"),
        ("skipped_layer", "layer 0"),
        ("skipped_layer", 99),
        ("optimizer_waits", "maybe"),
    ):
        with pytest.raises(InvalidInput):
            m.apply(name, raw)
    assert {name: getattr(m, name) for name in m.controls} == before
    assert m.apply("missing_event", "bucket 2") == 2 and m.apply("missing_event", "none") is None
    assert m.apply("optimizer_waits", "off") is False and m.apply("sync_each", True) is True


def test_a_numbered_choice_that_no_longer_exists_goes_back_to_none():
    m = TimelineModel(missing_event=3, skipped_layer=8)
    m.apply("bucket_cap", 1024)  # two buckets now
    assert m.missing_event is None and m.bucket_count == 2
    m.apply("layers", "8:2, 8:2")
    assert m.skipped_layer is None
    assert m.choice_options("missing_event") == ["none", "bucket 1", "bucket 2"]


def test_ddp_call_beside_the_caps():
    assert "bucket_cap_mb unset" in TimelineModel().ddp_call
    assert "bucket_cap_mb=10" in TimelineModel(first_bucket_cap=10, bucket_cap=10).ddp_call
    assert "No DDP call" in TimelineModel(first_bucket_cap=2, bucket_cap=10).ddp_call


# ----- invariants ---------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(networks, caps, caps, st.integers(2, 64), st.floats(0.5, 100), st.floats(0, 50), st.floats(0, 30), st.booleans())
def test_defaults_reproduce_the_ideal_schedule_exactly(network, first_cap, cap, ranks, bandwidth, latency, lag, one):
    sizes, times, *_ = args(network, first_cap, cap)
    layout = ONE_BUCKET if one else REBUILT
    s = step_schedule(sizes, times, first_cap, cap, ranks, bandwidth, latency, lag, layout=layout)
    ready, starts, finishes, step = ideal(sizes, times, first_cap, cap, ranks, bandwidth, latency, lag, one)
    assert list(s.bucket_ready) == ready and list(s.bucket_start) == starts and list(s.bucket_end) == finishes
    assert s.step_end == step and s.valid and not s.hangs and s.backward_lost == 0


@settings(max_examples=150, deadline=None)
@given(networks, caps, caps, contention, contention, st.floats(0, 3), st.floats(0, 10))
def test_contention_never_shortens_the_step(network, first_cap, cap, s_c, s_m, gap, lag):
    base = args(network, first_cap, cap, straggler=lag)
    plain = step_schedule(*base, effects=Effects(launch_gap=gap))
    slowed = step_schedule(*base, effects=Effects(compute_slowdown=s_c, comm_slowdown=s_m, launch_gap=gap))
    assert slowed.step_end >= plain.step_end - 1e-9 * max(1.0, plain.step_end)
    assert slowed.backward_end >= plain.backward_end - 1e-9 * max(1.0, plain.backward_end)
    assert slowed.backward_lost >= -1e-9 * max(1.0, slowed.backward_end) and slowed.valid
    assert step_end(*base, effects=slowed_effects(s_c, s_m, gap)) == slowed.step_end


def slowed_effects(s_c: float, s_m: float, gap: float) -> Effects:
    return Effects(compute_slowdown=s_c, comm_slowdown=s_m, launch_gap=gap)


@settings(max_examples=150, deadline=None)
@given(networks, caps, caps, st.integers(0, 30), st.floats(0, 3), st.floats(0, 10))
def test_a_missing_event_never_lengthens_the_step_and_is_invalid_exactly_when_it_read_early(
    network, first_cap, cap, late, gap, lag
):
    """Without contention. With it an early all-reduce can slow backward by more than it saves
    (s_m · (1 − 1/s_c) > 1), and the step grows: the lessons use that too."""
    base = args(network, first_cap, cap, straggler=lag)
    waits = step_schedule(*base, effects=Effects(launch_gap=gap))
    late %= len(waits.buckets)
    s = step_schedule(*base, effects=Effects(launch_gap=gap, missing_event=late))
    assert s.step_end <= waits.step_end + 1e-9 * max(1.0, waits.step_end)
    read_before_written = s.bucket_start[late] < waits.bucket_ready[late]
    assert (not s.valid) == read_before_written
    assert bool(s.read_early) == read_before_written


@settings(max_examples=150, deadline=None)
@given(networks, caps, caps, contention, contention, st.floats(0, 3))
def test_an_optimizer_that_does_not_wait_never_lengthens_the_step(network, first_cap, cap, s_c, s_m, gap):
    base = args(network, first_cap, cap)
    effects = Effects(compute_slowdown=s_c, comm_slowdown=s_m, launch_gap=gap)
    waits = step_schedule(*base, effects=effects)
    eager = step_schedule(*base, effects=effects._replace(optimizer_waits=False))
    assert eager.step_end <= waits.step_end and eager.step_end == waits.backward_end
    assert (not eager.valid) == (waits.bucket_end[-1] > waits.backward_end)


@settings(max_examples=150, deadline=None)
@given(networks, caps, caps, st.floats(0, 3), st.floats(0, 10))
def test_synchronizing_never_shortens_the_step(network, first_cap, cap, gap, lag):
    """Without contention. With it, serializing can beat two slowed jobs (see the test above)."""
    base = args(network, first_cap, cap, straggler=lag)
    free = step_schedule(*base, effects=Effects(launch_gap=gap))
    synced = step_schedule(*base, effects=Effects(launch_gap=gap, sync_each=True))
    assert synced.step_end >= free.step_end - 1e-9 * max(1.0, free.step_end) and synced.valid


@settings(max_examples=150, deadline=None)
@given(networks, caps, caps, st.floats(0, 3), st.floats(0, 3), st.floats(0, 10))
def test_the_launch_gap_is_monotone(network, first_cap, cap, gap, more, lag):
    """Without a synchronization after every bucket. With one, a longer gap can push an all-reduce
    past the end of backward, which then no longer stops for it, and the step gets shorter (found by
    hypothesis; see the next test)."""
    base = args(network, first_cap, cap, straggler=lag)
    shorter = step_schedule(*base, effects=Effects(launch_gap=gap))
    longer = step_schedule(*base, effects=Effects(launch_gap=gap + more))
    assert longer.step_end >= shorter.step_end - 1e-9 * max(1.0, shorter.step_end)
    assert np.all(np.diff(longer.bucket_issue) >= gap + more - 1e-9)


def test_with_a_synchronization_a_longer_launch_gap_can_shorten_the_step():
    """A 0 ms layer with a 1 ms all-reduce, then a 2 ms layer: issued at 1 ms the all-reduce stops
    backward for 1 ms; issued at 2 ms it runs after backward and stops nothing."""
    base = args([(5714286, 0.0), (1, 2.0)][::-1], 0, 0)
    soon = step_schedule(*base, effects=Effects(launch_gap=1.0, sync_each=True))
    late = step_schedule(*base, effects=Effects(launch_gap=2.0, sync_each=True))
    assert soon.backward_stalled == pytest.approx(1.0, abs=1e-6) and late.backward_stalled == 0
    assert late.step_end < soon.step_end


@settings(max_examples=150, deadline=None)
@given(networks, caps, caps, st.integers(0, 30), contention, st.booleans(), st.booleans())
def test_a_hang_names_the_first_bucket_holding_the_skipped_layer(network, first_cap, cap, skip, s_c, sync, unused):
    base = args(network, first_cap, cap)
    skip %= len(network)
    layout = REGISTRATION if unused else REBUILT
    effects = Effects(compute_slowdown=s_c, sync_each=sync, skipped_layer=skip, marks_unused=unused)
    s = step_schedule(*base, layout=layout, effects=effects)
    if unused:
        assert (
            not s.hangs
            and s.step_end == step_schedule(*base, layout=layout, effects=effects._replace(skipped_layer=None)).step_end
        )
        return
    holder = next(k for k, g in enumerate(s.buckets) if skip in g)
    assert s.hung_bucket == holder and s.completed == holder and np.isinf(s.step_end)
    assert np.isfinite(s.bucket_end[:holder]).all() and np.isinf(s.bucket_end[holder:]).all()


@settings(max_examples=100, deadline=None)
@given(networks, caps, caps, contention, contention, st.floats(0, 3), st.booleans())
def test_progress_is_exact_at_the_breakpoints(network, first_cap, cap, s_c, s_m, gap, sync):
    base = args(network, first_cap, cap)
    s = step_schedule(*base, effects=Effects(compute_slowdown=s_c, comm_slowdown=s_m, launch_gap=gap, sync_each=sync))
    # the bytes reduced reach each bucket's cumulative size exactly at its end
    done = np.interp(s.bucket_end, s.reduced_t, s.reduced_bytes)
    assert done == pytest.approx(np.cumsum(s.bucket_bytes), rel=1e-9)
    work = np.interp(s.layer_end, s.progress_t, s.progress_work)
    order = np.arange(len(network))[::-1]
    solo = np.empty(len(network))
    solo[order] = np.cumsum(base[1][order])
    assert work == pytest.approx(solo, rel=1e-9, abs=1e-9)


# ----- PyTorch's own layouts (tests/fixtures/ddp_layouts.json) ------------------------------------


@pytest.mark.parametrize(
    "record",
    LAYOUTS["layouts"],
    ids=lambda r: (
        f"{r['network']}-{r['bucket_cap_mb']}-unused={r['find_unused_parameters']}-static={r['static_graph']}"
    ),
)
def test_layouts_match_pytorch(record):
    sizes = record["param_bytes"]
    first, cap = record["first_bucket_cap_bytes"], record["bucket_bytes_cap"]
    as_sets = [[sorted(b) for b in iteration] for iteration in record["iterations"]]
    if record["find_unused_parameters"] and not record["static_graph"]:
        expected = [sorted(b) for b in bucket_layout(sizes, first, cap, REGISTRATION)]
        assert as_sets == [expected] * 3  # registration order, reversed, never rebuilt
        return
    assert as_sets[0] == [list(range(len(sizes)))]  # the first iteration: one bucket
    rebuilt = [list(b) for b in bucket_layout(sizes, first, cap, REBUILT)]
    assert record["iterations"][2] == rebuilt  # in ready order, as the hook saw them
    if not record["static_graph"]:
        assert record["iterations"][1] == rebuilt


@pytest.mark.parametrize("record", LAYOUTS["layouts"][:6], ids=lambda r: f"cap={r['bucket_cap_mb']}")
def test_the_caps_beside_the_fields_name_the_ddp_call(record):
    m = TimelineModel(
        first_bucket_cap=record["first_bucket_cap_bytes"] / MIB, bucket_cap=record["bucket_bytes_cap"] / MIB
    )
    if record["bucket_cap_mb"] is None:
        assert "bucket_cap_mb unset" in m.ddp_call
    else:
        assert f"bucket_cap_mb={record['bucket_cap_mb']}" in m.ddp_call


@pytest.mark.parametrize(
    "record", LAYOUTS["skipped_gradient"], ids=lambda r: f"layer{r['skip_layer']}-unused={r['find_unused_parameters']}"
)
def test_a_skipped_gradient_does_what_pytorch_does(record):
    iteration = FIND_UNUSED if record["find_unused_parameters"] else AFTER_REBUILD
    m = TimelineModel(skipped_layer=record["skip_layer"] + 1, iteration=iteration)
    assert [sorted(b.layers) for b in m.buckets] == [sorted(b) for b in record["buckets"]]
    assert m.hangs == (not record["completed"])
    assert m.completed == len(record["finished"]["0"])  # rank 0, the one the lab shows, waits
    if m.hangs:  # the skipping rank launches nothing from the hung bucket on: bucket-index order
        assert record["issued"]["1"] == list(range(m.hung_bucket - 1))
        assert record["issued"]["0"] == list(range(m.bucket_count))


def test_first_iteration_and_embedding_layouts_stay_as_they_were():
    m = TimelineModel(preset=EMBEDDING_FIRST, iteration=FIRST_ITERATION)
    assert m.bucket_count == 1 and m.exposed == pytest.approx(ring_allreduce_ms(192 * MIB, 8, 10, 0))
