"""The bucket timeline's two-tier network, one NCCL group, MPI's progress and the all-reduces held at once.

Worked cases by hand (the default model: eight layers of 8 MiB and 2 ms, p = 8, B = 10 GB/s, so one
8 MiB all-reduce takes 2·7/8 · 8·2^20 B / 10^10 B/s = 1.4680064 ms) and invariants (hypothesis).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labs.timed import InvalidInput
from labs.timeline import LAB
from labs.timeline.model import LIBRARIES, MIB, MPI_NO_PROGRESS, MPI_PROGRESS, NCCL, TimelineModel
from labs.timeline.schedule import Effects, step_end, step_schedule

EIGHT_MIB_MS = 1.75 * 8 * MIB / 1e10 * 1e3  # one 8 MiB bucket's ring all-reduce at p = 8, B = 10 GB/s


# ----- the controls ----------------------------------------------------------------------------------


def test_the_four_controls_and_their_defaults():
    m = TimelineModel()
    labels = {name: m.param[name].label for name in ("machine_ranks", "intra_bandwidth", "nccl_group", "progress")}
    assert labels == {
        "machine_ranks": "Ranks per machine",
        "intra_bandwidth": "Bandwidth inside a machine",
        "nccl_group": "Launch the buckets as one NCCL group",
        "progress": "Communication library",
    }
    assert m.param["bandwidth"].label == "Network bandwidth B"
    assert "between machines" in m.param["bandwidth"].doc
    assert (m.machine_ranks, m.intra_bandwidth, m.nccl_group, m.progress) == (1, 100, False, NCCL)
    assert LIBRARIES == (
        "NCCL (moves the bytes itself)",
        "MPI with a progress thread",
        "MPI without a progress thread",
    )
    assert list(m.param["progress"].objects) == list(LIBRARIES)
    assert {"machine_ranks", "intra_bandwidth"} <= set(m.typed_controls)
    assert "nccl_group" in m.switch_controls and "progress" in m.choice_controls
    assert LAB.units["ring_bandwidth"] == "GB/s" and LAB.units["pending_max"] == "all-reduces"
    assert LAB.counts["pending_max"] == "all-reduce"


def test_reset_puts_them_back():
    m = TimelineModel()
    m.apply("machine_ranks", "4")
    m.apply("intra_bandwidth", "300")
    m.apply("nccl_group", "on")
    m.apply("progress", MPI_NO_PROGRESS)
    m.reset()
    assert (m.machine_ranks, m.intra_bandwidth, m.nccl_group, m.progress) == (1, 100, False, NCCL)
    assert m.step_time == TimelineModel().step_time


@pytest.mark.parametrize(
    ("name", "typed", "says"),
    [
        ("machine_ranks", "2.5", "Ranks per machine must be a whole number"),
        ("machine_ranks", "0", "Ranks per machine cannot be 0"),
        ("machine_ranks", "4097", "Ranks per machine cannot be 4097"),
        ("machine_ranks", "nan", "Ranks per machine must be a finite number"),
        ("machine_ranks", "four", "Ranks per machine: 'four' is not a number"),
        ("intra_bandwidth", "0", "Bandwidth inside a machine cannot be 0"),
        ("intra_bandwidth", "nan", "Bandwidth inside a machine must be a finite number"),
        ("intra_bandwidth", "fast", "Bandwidth inside a machine: 'fast' is not a number"),
        ("nccl_group", "maybe", "Launch the buckets as one NCCL group: 'maybe' is neither on nor off"),
        ("progress", "Gloo", "Communication library: 'Gloo' is not a choice"),
    ],
)
def test_refusals_change_nothing(name, typed, says):
    m = TimelineModel()
    before = m.param.values()
    with pytest.raises(InvalidInput, match=says):
        m.apply(name, typed)
    assert m.param.values() == before


def test_typed_values_are_taken():
    m = TimelineModel()
    assert m.apply("machine_ranks", "4") == 4
    assert m.apply("intra_bandwidth", "12,5") == 12.5
    assert m.apply("nccl_group", "on") is True
    assert m.apply("progress", f"  {MPI_PROGRESS} ") == MPI_PROGRESS


# ----- the ring's slowest link --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ranks", "machine_ranks", "bandwidth", "intra", "ring", "where"),
    [
        (8, 1, 12.5, 100, 12.5, "between machines"),  # one rank a machine: every link crosses machines
        (8, 4, 12.5, 100, 12.5, "between machines"),  # two machines of four: the slower link is between
        (8, 4, 300, 100, 100, "inside a machine"),  # a fast network, PCIe inside: the slower is inside
        (8, 8, 12.5, 100, 100, "inside the one machine"),  # one machine holds all eight
        (8, 16, 12.5, 100, 100, "inside the one machine"),  # room for more than p on the machine
        (2, 1, 25, 0.5, 25, "between machines"),  # one rank a machine: the inside link is never used
    ],
)
def test_the_ring_runs_at_its_slowest_link(ranks, machine_ranks, bandwidth, intra, ring, where):
    m = TimelineModel(ranks=ranks, machine_ranks=machine_ranks, bandwidth=bandwidth, intra_bandwidth=intra)
    assert m.ring_bandwidth == ring
    assert m.reading("ring_bandwidth") == ring
    assert m.ring_link.startswith(f"The ring runs at {ring:g} GB/s: its slowest link, {where}")


def test_every_all_reduce_the_reference_and_the_sweep_use_the_ring_bandwidth():
    # One machine of 8 at 100 GB/s inside: each 8 MiB all-reduce takes a tenth of what it did at 10 GB/s.
    m = TimelineModel(machine_ranks=8, intra_bandwidth=100)
    assert m.bucket_cost == pytest.approx([EIGHT_MIB_MS / 10, 4 * EIGHT_MIB_MS / 10, 3 * EIGHT_MIB_MS / 10])
    assert m.step_time == pytest.approx(16 + 3 * EIGHT_MIB_MS / 10)
    assert m.no_overlap_step == pytest.approx(16 + 8 * EIGHT_MIB_MS / 10)
    same = TimelineModel(bandwidth=100)  # the same ring, priced at B
    assert m.step_time == same.step_time and m.no_overlap_step == same.no_overlap_step
    assert np.array_equal(m.step_time_sweep().step, same.step_time_sweep().step)
    assert m.cost_share == same.cost_share


# ----- one NCCL group --------------------------------------------------------------------------------


def test_a_group_submits_at_the_last_issue_and_completes_as_one():
    m = TimelineModel(nccl_group=True)  # buckets of 8, 32 and 24 MiB, the last issued at 16 ms
    assert m.host_return == 16
    assert list(m.bucket_start) == pytest.approx([16, 16 + EIGHT_MIB_MS, 16 + 5 * EIGHT_MIB_MS])
    group_end = 16 + 8 * EIGHT_MIB_MS
    assert m.step_time == pytest.approx(group_end)
    assert list(m.bucket_complete) == [m.bucket_end[-1]] * 3
    assert m.completed_at(17) == 0  # the first one's bytes are reduced at 17.47 ms, but it is not complete
    assert m.completed_at(group_end - 1e-9) == 0
    assert m.completed_at(group_end) == 3 == m.completed
    assert m.reading("completed", at=17) == 0 and TimelineModel.readable_at("completed")
    plain = TimelineModel()
    assert [plain.completed_at(t) for t in (3, 3.5, 16, 20.5)] == [0, 1, 2, 3]


def test_a_group_that_hangs_completes_nothing():
    m = TimelineModel(nccl_group=True, skipped_layer=1)  # layer 1 is in the last bucket
    assert m.hangs and m.completed == 0
    assert TimelineModel(skipped_layer=1).completed == 2


# ----- MPI's progress --------------------------------------------------------------------------------


def test_mpi_without_a_progress_thread_is_the_no_overlap_step_at_zero_latency():
    m = TimelineModel(progress=MPI_NO_PROGRESS)
    assert m.step_time == pytest.approx(m.no_overlap_step) and m.step_time == pytest.approx(16 + 8 * EIGHT_MIB_MS)
    assert m.exposed == pytest.approx(8 * EIGHT_MIB_MS)
    assert min(m.bucket_start) == 16
    with_thread = TimelineModel(progress=MPI_PROGRESS)
    assert with_thread.step_time == TimelineModel().step_time
    assert np.array_equal(with_thread.bucket_end, TimelineModel().bucket_end)


def test_mpi_without_a_progress_thread_pays_each_buckets_latency():
    # α = 5 µs: every all-reduce pays 2(p − 1)·α = 0.07 ms; the reference pays it once for one all-reduce.
    m = TimelineModel(progress=MPI_NO_PROGRESS, latency=5)
    assert m.step_time - m.no_overlap_step == pytest.approx(2 * 0.07)
    assert m.completed_at(m.step_time) == 3  # each completes at its own end, not as one group
    assert m.completed_at(16 + EIGHT_MIB_MS + 0.07) == 1


# ----- all-reduces held at once -------------------------------------------------------------------------


def test_pending_max_by_hand():
    assert TimelineModel().pending_max == 1  # each all-reduce ends before the next bucket is issued
    assert TimelineModel(bucket_cap=1).pending_max == 1  # 1.47 ms each, a bucket every 2 ms
    # At 2.5 GB/s each 8 MiB all-reduce takes 5.872 ms and a bucket is issued every 2 ms: when the
    # last is issued at 16 ms only the first two (ends 7.87 and 13.74 ms) are complete: 6 held.
    slow = TimelineModel(bucket_cap=1, bandwidth=2.5)
    assert slow.bucket_end[:3] == pytest.approx([2 + 4 * EIGHT_MIB_MS, 2 + 8 * EIGHT_MIB_MS, 2 + 12 * EIGHT_MIB_MS])
    assert slow.pending_max == 6
    assert TimelineModel(bucket_cap=1, nccl_group=True).pending_max == 8  # all eight until the group ends
    assert TimelineModel(nccl_group=True).pending_max == 3
    assert slow.reading("pending_max") == 6


# ----- invariants ------------------------------------------------------------------------------------

networks = st.lists(
    st.tuples(st.integers(1, 64 * MIB), st.floats(0, 20, allow_subnormal=False)), min_size=1, max_size=16
)
caps = st.integers(0, 80 * MIB)
bandwidths = st.floats(0.01, 10000, allow_subnormal=False)


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 4096), st.integers(1, 4096), bandwidths, bandwidths)
def test_the_ring_is_never_faster_than_a_link_it_crosses(ranks, machine_ranks, bandwidth, intra):
    m = TimelineModel(ranks=ranks, machine_ranks=machine_ranks, bandwidth=bandwidth, intra_bandwidth=intra)
    ring = m.ring_bandwidth
    if machine_ranks < ranks:  # more than one machine: the ring crosses between them
        assert ring <= bandwidth
    if 1 < machine_ranks:  # neighbours share a machine somewhere on the ring
        assert ring <= intra
    assert ring in (bandwidth, intra)


@settings(max_examples=150, deadline=None)
@given(
    networks,
    caps,
    caps,
    st.floats(0, 3),
    st.floats(0, 10),
    st.floats(0, 30),
    st.one_of(st.none(), st.integers(0, 8)),
    st.booleans(),
)
def test_holding_never_ends_a_step_earlier_without_contention(network, first_cap, cap, gap, lag, latency, late, waits):
    sizes = np.array([s for s, _ in network], dtype=np.int64)
    times = np.array([t for _, t in network])
    base = (sizes, times, first_cap, cap, 8, 10.0, latency, lag)
    effects = Effects(launch_gap=gap, missing_event=late, optimizer_waits=waits)
    free = step_schedule(*base, effects=effects)
    for held in (effects._replace(group=True), effects._replace(no_progress=True)):
        s = step_schedule(*base, effects=held)
        assert s.step_end >= free.step_end
        assert np.all(s.bucket_end >= free.bucket_end)
        assert np.all(s.bucket_start >= s.bucket_issue.max())  # nothing starts before the last issue
        assert step_end(*base, effects=held) == s.step_end  # the sweep's step is the schedule's
    grouped = step_schedule(*base, effects=effects._replace(group=True))
    assert np.all(grouped.bucket_complete == grouped.bucket_end.max())


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([0.25, 1.0, 4.0, 25.0]), st.floats(0.5, 50), st.booleans(), st.floats(0, 1))
def test_pending_counts_stay_between_one_and_every_bucket(cap, bandwidth, group, when):
    m = TimelineModel(bucket_cap=cap, bandwidth=bandwidth, nccl_group=group)
    assert 1 <= m.pending_max <= m.bucket_count
    if group:
        assert m.pending_max == m.bucket_count
    t = when * m.horizon
    assert 0 <= m.completed_at(t) <= m.completed
    assert m.completed_at(m.horizon) == m.completed == m.bucket_count


# ----- the view ----------------------------------------------------------------------------------------


def test_the_ring_line_shows_the_link_and_hides_while_an_exercise_conceals_what_it_gives_away():
    from labs.timeline.view import RING_LINE_HIDDEN, TimelineLab

    lab = TimelineLab(model=TimelineModel(machine_ranks=4, bandwidth=12.5))
    assert lab.ring_words() == "The ring runs at 12.5 GB/s: its slowest link, between machines."
    lab.model.apply("nccl_group", True)
    assert "counts as complete when the last one ends" in lab.ring_words()
    for hidden in ("exposed", "step_time", "ring_bandwidth", "pending_max", "completed"):
        lab.param.update(conceal=True, hidden_quantity=hidden)
        assert lab.ring_words() == RING_LINE_HIDDEN
        assert "12.5" not in lab.ring_note.object and "GB/s" not in lab.ring_note.object
    lab.param.update(conceal=True, hidden_quantity="bucket_count")
    assert "12.5 GB/s" in lab.ring_note.object
    lab.conceal = False
    assert "12.5 GB/s" in lab.ring_note.object


def test_the_new_controls_sit_in_their_panels_and_follow_reset():
    from labs.timeline.view import TimelineLab

    lab = TimelineLab()
    stage = lab.__panel__()
    assert {"machine_ranks", "intra_bandwidth", "ring_note", "nccl_group", "progress"} <= set(stage.keys)
    assert {f.control for f in lab.fields} >= {"machine_ranks", "intra_bandwidth"}
    lab.model.apply("progress", MPI_NO_PROGRESS)
    lab.model.apply("nccl_group", True)
    assert lab.choosers["progress"].value == MPI_NO_PROGRESS and lab.switches["nccl_group"].value is True
    lab.model.reset()
    assert lab.choosers["progress"].value == NCCL and lab.switches["nccl_group"].value is False
