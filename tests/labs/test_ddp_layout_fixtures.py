"""Sanity of tests/fixtures/ddp_layouts.json (made by tools/make_layout_fixtures.py with real torch DDP).

These check only the fixture itself: who made it, that it covers every network and configuration,
and that its records are internally consistent. Comparisons with labs/timeline live elsewhere.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parents[1] / "fixtures" / "ddp_layouts.json"
MIB = 2**20
NETWORKS = {
    "8 equal layers": [8 * MIB] * 8,
    "Large embedding first": [128 * MIB] + [8 * MIB] * 8,
}
CONFIGS = {
    (None, False, False),
    (25, False, False),
    (10, False, False),
    (None, True, False),
    (10, True, False),
    (None, False, True),
}


@pytest.fixture(scope="module")
def data() -> dict:
    return json.loads(FIXTURE.read_text())


def config(record: dict) -> tuple:
    return record["bucket_cap_mb"], record["find_unused_parameters"], record["static_graph"]


def test_made_by_torch_2_13(data):
    assert data["torch_version"].startswith("2.13.")
    assert data["generated_by"] == "tools/make_layout_fixtures.py"
    assert data["dtype"] == "float32"
    assert data["default_first_bucket_bytes"] == MIB
    assert "_DEFAULT_FIRST_BUCKET_BYTES" in data["first_bucket_rule"]
    assert FIXTURE.stat().st_size < 100_000


def test_every_network_has_every_configuration(data):
    by_network: dict[str, list[tuple]] = {}
    for record in data["layouts"]:
        by_network.setdefault(record["network"], []).append(config(record))
    assert set(NETWORKS) <= set(by_network)
    assert len(by_network) >= 3  # the two presets and an unequal network
    for name, configs in by_network.items():
        assert sorted(configs, key=repr) == sorted(CONFIGS, key=repr), name
    for name, sizes in NETWORKS.items():
        for record in data["layouts"]:
            if record["network"] == name:
                assert record["param_bytes"] == sizes
    unequal = [r for r in data["layouts"] if r["network"] not in NETWORKS]
    assert all(len(set(r["param_bytes"])) > 1 for r in unequal)


@pytest.mark.parametrize("index", range(18))
def test_layout_is_consistent(data, index):
    record = data["layouts"][index]
    sizes = record["param_bytes"]
    count = len(sizes)
    assert all(size % 4 == 0 and size > 0 for size in sizes)
    assert sorted(record["ready_order"]) == list(range(count))
    assert record["ready_order"] == list(reversed(range(count)))  # backward runs last layer to first
    cap = record["bucket_cap_mb"]
    assert record["bucket_bytes_cap"] == (25 if cap is None else cap) * MIB
    assert record["first_bucket_cap_bytes"] == (MIB if cap is None else cap * MIB)
    assert len(record["iterations"]) == len(record["bucket_bytes"]) == len(record["launch_order"]) == 3
    for buckets, bucket_bytes, launched in zip(
        record["iterations"], record["bucket_bytes"], record["launch_order"], strict=True
    ):
        flat = [i for bucket in buckets for i in bucket]
        assert sorted(flat) == list(range(count))  # every parameter exactly once
        assert all(buckets)
        assert bucket_bytes == [sum(sizes[i] for i in bucket) for bucket in buckets]
        assert launched == list(range(len(buckets)))  # DDP launches buckets in index order
    assert record["iterations"][1] == record["iterations"][2] or record["static_graph"]


def test_skipped_gradient_covers_both_settings(data):
    runs = data["skipped_gradient"]
    covered = {(r["skip_layer"], r["find_unused_parameters"]) for r in runs}
    assert covered == {(0, False), (0, True), (5, False), (5, True)}
    for run in runs:
        assert run["network"] == "8 equal layers"
        assert run["skipping_rank"] == 1
        assert run["iteration"] in (2, 3)
        buckets = run["buckets"]
        assert sorted(i for bucket in buckets for i in bucket) == list(range(8))
        assert set(run["issued"]) == set(run["finished"]) == {"0", "1"}
        for rank in ("0", "1"):
            assert set(run["finished"][rank]) <= set(run["issued"][rank])
            assert run["issued"][rank] == list(range(len(run["issued"][rank])))
        assert run["completed"] == (run["error"] is None)
        if run["completed"]:
            assert run["issued"]["0"] == run["issued"]["1"] == list(range(len(buckets)))
            assert run["finished"]["0"] == run["finished"]["1"] == list(range(len(buckets)))


def test_skipped_gradient_without_unused_detection_never_launches_that_bucket(data):
    for run in data["skipped_gradient"]:
        if run["find_unused_parameters"]:
            continue
        holding = next(b for b, bucket in enumerate(run["buckets"]) if run["skip_layer"] in bucket)
        assert not run["completed"]
        assert run["issued"]["1"] == list(range(holding))
        assert holding in run["issued"]["0"]
        assert holding not in run["finished"]["0"]
