"""The trace import on real traces from other projects, against an independent GPU-clock reading.

The fixtures (tests/fixtures/traces/real/, listed with source, commit and licence in SOURCES.md)
were written by HolisticTraceAnalysis's and TraceLens's authors on their GPUs, not by us.
tests/trace_reference.py reads each step from the GPU clock alone, with its own simple rules and
no code from app.trace; the import must agree with it within 0.05 ms or 3 %.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from app.trace.__main__ import main as cli
from tests import trace_reference as reference

REAL = Path(__file__).parents[1] / "fixtures" / "traces" / "real"
DDP = {
    "hta_nccl_data.json.gz": "NCCL, 2 ranks, 2024, GPU optimizer annotation",
    "hta_sampled_rank0.json.gz": "NCCL, 128 ranks, 2023, SendRecv-named all-reduce, empty Input Dims",
    "hta_sampled_rank1.json.gz": "the same run, rank 1",
    "tracelens_mi300_resnet_act_checkpoint.json.gz": "RCCL on MI300, ncclDevKernel_Generic, GPU behind the host",
}
"""The real DDP training traces, each read step by step."""


def tolerance(want: float) -> float:
    """0.05 ms or 3 %, whichever is larger."""
    return max(0.05, 0.03 * abs(want))


@cache
def reference_steps(name: str) -> tuple[reference.RefStep, ...]:
    return tuple(reference.read(REAL / name))


def imported(name: str, step: int, capsys) -> dict:
    """``python -m app.trace FILE --step N --json``, run in this process."""
    assert cli([str(REAL / name), "--step", str(step), "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)["ranks"][0]


KNOWN_WRONG: dict[str, str] = {}
"""Traces the import still reads wrong, and why (each fix removed its line; none is left)."""


def case(name: str, *values, wrong: dict[str, str]) -> object:
    marks = [pytest.mark.xfail(strict=True, reason=wrong[name])] if name in wrong else []
    return pytest.param(name, *values, marks=marks, id="-".join(map(str, (name.removesuffix(".json.gz"), *values))))


CASES = [(name, s.number) for name in DDP for s in reference_steps(name)]


def test_fixtures_are_listed_with_their_source_and_intact():
    sources = (REAL / "SOURCES.md").read_text()
    files = sorted(REAL.glob("*.gz"))
    assert sum(f.stat().st_size for f in files) <= 6 * 2**20
    for f in files:
        row = next((line for line in sources.splitlines() if line.startswith(f"| {f.name} |")), None)
        assert row is not None, f"{f.name} is not in SOURCES.md"
        digest = re.search(r"\| ([0-9a-f]{16}) \|", row).group(1)
        assert hashlib.sha256(gzip.decompress(f.read_bytes())).hexdigest()[:16] == digest
        assert re.search(r"\| [0-9a-f]{40} \|", row), "each file names the commit it was taken from"


def test_the_reference_finds_every_ddp_trace_and_none_of_the_others():
    assert {name for name, _ in CASES} == set(DDP)
    for other in set(f.name for f in REAL.glob("*.gz")) - set(DDP):
        assert reference_steps(other) == ()


@pytest.mark.parametrize(("name", "step"), [case(n, s, wrong=KNOWN_WRONG) for n, s in CASES])
def test_import_agrees_with_the_gpu_clock_reference(name, step, capsys):
    want = next(s for s in reference_steps(name) if s.number == step)
    got = imported(name, step, capsys)
    assert len(got["buckets"]) == len(want.buckets)
    assert [b["bytes"] for b in got["buckets"]] == [b.nbytes for b in want.buckets]
    for b, w in zip(got["buckets"], want.buckets, strict=True):
        assert b["end_ms"] - b["start_ms"] == pytest.approx(w.duration_ms, abs=tolerance(w.duration_ms))
    assert got["tail_ms"] == pytest.approx(want.tail_ms, abs=tolerance(want.tail_ms))
    assert got["exposed_ms"] == pytest.approx(want.exposed_ms, abs=tolerance(want.exposed_ms))


ONE_GPU = r"no collective at all .*so the run had one GPU and nothing to all-reduce"
TOO_OLD = r"old profiler .*CudnnBatchNormBackward.*only from release 1\.9 on \(pytorch/pytorch#52020\)"
REFUSED = {
    "hta_ns_resolution_world1.json.gz": ([], r"world size 1 \(one rank\)"),
    "tracelens_b200_eager_inference.json.gz": (
        [],
        r"no backward pass anywhere.*inference.*its collectives are c10d::_allgather_base_",
    ),
    "hta_simple_add_et.json.gz": ([], r"execution trace .*not a Chrome trace"),
    "kineto_resnet50_1gpu_2021.json.gz": ([], ONE_GPU),
    "kineto_resnet50_1gpu_list_2020.json.gz": ([], ONE_GPU),
    "kineto_resnet50_1gpu_list_2020.json.gz --world-size 2": (["--world-size", "2"], TOO_OLD),
    "kineto_resnet50_1gpu_2021.json.gz --world-size 1": (
        ["--world-size", "1"],
        r"world size 1 \(one rank\).*; it records no collective$",
    ),
    "hta_sampled_rank0.json.gz --world-size 1": (["--world-size", "1"], r"the file says world size 128, not 1$"),
}
"""Real traces that are not DDP training (or not with these options), and the reason each refusal must name."""
WRONG_REASON: dict[str, str] = {}
"""Refusals that still name another reason (none is left)."""


@pytest.mark.parametrize("name", [case(n, wrong=WRONG_REASON) for n in sorted(REFUSED)])
def test_refusals_name_the_real_reason(name):
    options, reason = REFUSED[name]
    path = REAL / name.split()[0]
    done = subprocess.run(
        [sys.executable, "-m", "app.trace", str(path), *options], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"error: {path}: ") and done.stderr.count("\n") == 1
    assert re.search(reason, done.stderr.rstrip("\n")), done.stderr
    for wrong in ("FSDP", "no training step found", "none named", "different runs"):
        assert wrong not in done.stderr
    if "kineto" in name:
        assert "inference" not in done.stderr


def test_old_backward_names_are_training_not_inference():
    """A 2020 trace's backward nodes have bare names; the reader sees them as a backward pass."""
    from app.trace.events import keep

    assert keep("CudnnConvolutionBackward", "Operator") and keep("ReluBackward1", "Operator")
    assert keep("torch::autograd::AccumulateGrad", "Operator")
    assert not keep("aten::convolution_backward", "Operator")  # an ATen op, not an autograd node


def test_sampled_ranks_of_one_run_are_refused_naming_the_step_and_the_buckets(capsys):
    """HTA's rank 0 and rank 1 are one 128-rank run, event-sampled: each file lacks different all-reduces."""
    files = [str(REAL / "hta_sampled_rank0.json.gz"), str(REAL / "hta_sampled_rank1.json.gz")]
    assert cli(files) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: these files are one run (ProfilerStep#552 ") and err.count("\n") == 1
    assert "rank 0 lists 100.2 and 21.8 MiB; rank 1 lists 74.8 and 21.8 MiB" in err
    assert "event-sampled" in err and "read each rank alone" in err
    for name in files:  # each alone is still read
        assert cli([name, "--step", "552"]) == 0
        capsys.readouterr()


@pytest.mark.parametrize("fraction", [0.5, 0.8, 0.9, 0.93, 0.95, 0.97, 0.99])
def test_a_truncated_real_trace_reads_only_complete_steps_and_says_so(fraction):
    """Kernels come late in the file: a cut file must not pair an issue with another kernel or lose compute."""
    from app.trace import TraceError, parse_trace

    name = "tracelens_mi300_resnet_act_checkpoint.json.gz"
    text = gzip.decompress((REAL / name).read_bytes())
    whole = {s.number: s for s in reference_steps(name)}
    try:
        trace = parse_trace(text[: int(len(text) * fraction)], source="cut.json")
    except TraceError as refusal:
        assert "truncated" in str(refusal) and "\n" not in str(refusal)
        return
    for number in trace.step_numbers():
        tl = trace.timeline(number)
        assert tl.tail_ms == pytest.approx(whole[number].tail_ms, abs=tolerance(whole[number].tail_ms))
        assert tl.exposed_ms == pytest.approx(whole[number].exposed_ms, abs=tolerance(whole[number].exposed_ms))
        listed = ", ".join(map(str, trace.step_numbers()))
        assert any("truncated" in n and f"the complete steps read are {listed}" in n for n in tl.notes)


def test_every_step_and_a_warm_summary_without_step(capsys):
    """No --step: every step, the trace's first left out, median and spread over the rest."""
    import statistics

    name = "tracelens_mi300_resnet_act_checkpoint.json.gz"
    assert cli([str(REAL / name), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    steps = reference_steps(name)
    assert [s["step"] for s in out["steps"]] == [s.number for s in steps]
    assert out["steps"][0]["left_out"] == "the trace's first step"
    assert out["summary"]["warm_steps"] == [s.number for s in steps[1:]]
    tails = [s.tail_ms for s in steps[1:]]
    assert out["summary"]["tail_ms"]["median"] == pytest.approx(statistics.median(tails), abs=0.05)
    assert out["summary"]["tail_ms"]["min"] == pytest.approx(min(tails), abs=0.05)
    assert out["summary"]["tail_ms"]["max"] == pytest.approx(max(tails), abs=0.05)
    assert cli([str(REAL / name), "--step", "16", "--json"]) == 0
    assert "summary" not in json.loads(capsys.readouterr().out)  # --step N: as before
