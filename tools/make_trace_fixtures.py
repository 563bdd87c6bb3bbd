"""Write tests/fixtures/traces/gloo_*: real PyTorch profiler traces of DDP on CPU, with expectations.

torch is not a dependency of Overlap Lab; this script runs once, in a throwaway virtualenv, and its
output is committed. The committed files were made on Linux x86-64 with Python 3.11 and the CPU
wheel of torch 2.13.0::

    python3 -m venv /tmp/torchenv
    /tmp/torchenv/bin/pip install torch==2.13.0    # the CPU wheel
    /tmp/torchenv/bin/python tools/make_trace_fixtures.py

Each case runs real ``DistributedDataParallel`` with the gloo backend in two processes (ranks 0
and 1, MASTER_ADDR 127.0.0.1, a free port) on five ``nn.Linear`` layers with
``bucket_cap_mb=0.25``, so that the gradients fall into several buckets, profiles a few steps with
``torch.profiler`` (``record_shapes=True``) and exports one Chrome trace per rank
(``gloo_<case>_rank<r>.json.gz``):

``schedule``
    ``profile(schedule=schedule(wait=1, warmup=1, active=2))``: the steps are ``ProfilerStep#2``
    and ``ProfilerStep#3``.
``noschedule``
    Three warm-up iterations outside the profiler, then two profiled without a schedule: the steps
    are found only by splitting at ``Optimizer.step#SGD.step``.
``unused``
    As ``schedule``, with ``find_unused_parameters=True`` (buckets in registration order, reversed,
    never rebuilt).
``late``
    As ``schedule``, but rank 1 sleeps :data:`LATE_MS` in a hook on the first layer's weight, just
    before that gradient (the last one backward writes) is accumulated: a rank that is late with the
    last bucket. These two traces are the course's sample trace: they are written to
    ``content/traces/`` (the trace page's "Load the sample trace" and lesson 2's trace exercises
    read them), their expectations beside the others.

The expectations (``gloo_<case>.expected.json``) are computed without ``app.trace``, twice:

``steps`` (per rank): the script's own clock. A DDP communication hook records, for every bucket,
    the host time just before it calls ``dist.all_reduce`` (issue), the parameters the bucket holds
    and its element count, and the time its future's callback runs (end);
    ``register_post_accumulate_grad_hook`` records when each gradient was written (ready); the loop
    records the time just before ``loss.backward()`` and before and after ``optimizer.step()``. All
    are ``time.time_ns()``, the clock the profiler writes: in torch 2.13 a trace's ``ts`` (µs) ×
    1000 + ``baseTimeNanoseconds`` is the same epoch nanosecond count (checked on every run by
    :func:`check_clock`). These bracket the trace's times from outside it; they are not equal to
    them (the hook's Python call takes ~70 µs before the op starts, more on a loaded machine).
``by_hand`` (per rank): :func:`read_by_hand`, a plain second reading of the raw JSON with the same
    definitions, for the exact figures.

The hook is the default all-reduce-and-divide, written in Python so that it can record the times;
it adds an ``aten::div_`` on the gloo thread to the trace. ``--reread`` redoes only ``by_hand`` from
the committed traces.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.profiler import ProfilerActivity, profile, schedule

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # devtools/ sits beside tools/
from devtools.ports import free_port  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "traces"
SAMPLE_OUT = Path(__file__).resolve().parents[1] / "content" / "traces"
"""Where the ``late`` case's traces go: the sample the app ships."""
WORLD = 2
WIDTHS = [512, 512, 512, 256, 256, 64]  # five Linear layers: 1 MiB, 1 MiB, 512 KiB, 256 KiB, 64 KiB weights
CAP_MB = 0.25
BATCH = 64
CASES = {
    "schedule": {"schedule": True, "unused": False},
    "noschedule": {"schedule": False, "unused": False},
    "unused": {"schedule": True, "unused": True},
    "late": {"schedule": True, "unused": False, "late": True},
}
LATE_MS = 20
"""How long rank 1 sleeps before writing its last gradient, in the ``late`` case."""


def trace_dir(case: str) -> Path:
    """Where a case's traces are written: the sample in ``content/traces/``, the rest beside their expectations."""
    return SAMPLE_OUT if CASES[case].get("late") else OUT


def build_model() -> nn.Module:
    """Five Linear layers with ReLU between them, seeded so both ranks start equal.

    Returns
    -------
    torch.nn.Module
        The network.
    """
    torch.manual_seed(0)
    layers: list[nn.Module] = []
    for k in range(len(WIDTHS) - 1):
        layers.append(nn.Linear(WIDTHS[k], WIDTHS[k + 1]))
        if k < len(WIDTHS) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def worker(rank: int, port: int, case: str, tmp: str) -> None:
    """One rank: DDP steps under the profiler, the trace and the host-clock record written to tmp.

    Parameters
    ----------
    rank : int
        This process's rank.
    port : int
        The rendezvous port.
    case : str
        A key of :data:`CASES`.
    tmp : str
        The directory for this rank's trace and record.
    """
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    options = CASES[case]
    model = build_model()
    names = {id(p): n for n, p in model.named_parameters()}
    shapes = {n: list(p.shape) for n, p in model.named_parameters()}
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=CAP_MB, find_unused_parameters=options["unused"])
    state = {"iteration": -1}
    buckets: list[dict] = []
    ready: list[dict] = []
    loop: list[dict] = []

    def hook(_state, bucket):  # noqa: ANN001 (DDP refuses string annotations here)
        buffer = bucket.buffer()
        entry = {
            "iteration": state["iteration"],
            "index": bucket.index(),
            "numel": buffer.numel(),
            "dtype": str(buffer.dtype).removeprefix("torch."),
            "element_size": buffer.element_size(),
            "params": [names[id(p)] for p in bucket.parameters()],
            "issue_ns": time.time_ns(),
        }
        buckets.append(entry)
        future = dist.all_reduce(buffer, async_op=True).get_future()

        def done(fut: torch.futures.Future) -> torch.Tensor:
            entry["end_ns"] = time.time_ns()
            return fut.value()[0].div_(WORLD)

        return future.then(done)

    ddp.register_comm_hook(None, hook)
    if options.get("late") and rank == 1:
        # A tensor hook runs inside the gradient's AccumulateGrad, before it is written: rank 1's
        # last gradient, and so its last bucket, is ready LATE_MS later than rank 0's.
        model[0].weight.register_hook(lambda _grad: time.sleep(LATE_MS / 1000))
    for name, param in model.named_parameters():
        param.register_post_accumulate_grad_hook(
            lambda _p, n=name: ready.append({"iteration": state["iteration"], "param": n, "ns": time.time_ns()})
        )
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.01)
    gen = torch.Generator().manual_seed(1 + rank)
    x = torch.randn(BATCH, WIDTHS[0], generator=gen)
    y = torch.randn(BATCH, WIDTHS[-1], generator=gen)

    def one_step(iteration: int) -> None:
        state["iteration"] = iteration
        record = {"iteration": iteration, "start_ns": time.time_ns()}
        optimizer.zero_grad()
        loss = ((ddp(x) - y) ** 2).mean()
        record["backward_call_ns"] = time.time_ns()
        loss.backward()
        record["optimizer_call_ns"] = time.time_ns()
        optimizer.step()
        record["optimizer_return_ns"] = time.time_ns()
        loop.append(record)

    activities = [ProfilerActivity.CPU]
    if options["schedule"]:
        with profile(activities=activities, record_shapes=True, schedule=schedule(wait=1, warmup=1, active=2)) as prof:
            for iteration in range(4):
                one_step(iteration)
                prof.step()
        profiled = [2, 3]
    else:
        for iteration in range(3):
            one_step(iteration)
        with profile(activities=activities, record_shapes=True) as prof:
            for iteration in range(3, 5):
                one_step(iteration)
        profiled = [3, 4]
    prof.export_chrome_trace(os.path.join(tmp, f"rank{rank}.json"))
    record = {
        "rank": rank,
        "profiled_iterations": profiled,
        "param_shapes": shapes,
        "loop": [r for r in loop if r["iteration"] in profiled],
        "buckets": [b for b in buckets if b["iteration"] in profiled],
        "ready": [r for r in ready if r["iteration"] in profiled],
    }
    with open(os.path.join(tmp, f"rank{rank}.record.json"), "w") as handle:
        json.dump(record, handle)
    dist.destroy_process_group()


def expectations(case: str, records: list[dict]) -> dict:
    """The figures a correct parser must find, from the host-clock records alone.

    Parameters
    ----------
    case : str
        The case's name.
    records : list of dict
        Each rank's record, by rank.

    Returns
    -------
    dict
        Per rank and step: every bucket's bytes, parameters, ready, issue and end times (ns since
        the epoch), the backward call, the optimizer call and return, and the tail measured on the
        host clock (last bucket end minus the last gradient written).
    """
    ranks = []
    for record in records:
        steps = []
        for number, iteration in enumerate(record["profiled_iterations"]):
            written = {r["param"]: r["ns"] for r in record["ready"] if r["iteration"] == iteration}
            loop = next(r for r in record["loop"] if r["iteration"] == iteration)
            buckets = []
            for b in sorted((b for b in record["buckets"] if b["iteration"] == iteration), key=lambda b: b["issue_ns"]):
                buckets.append(
                    {
                        "index": b["index"],
                        "numel": b["numel"],
                        "nbytes": b["numel"] * b["element_size"],
                        "dtype": b["dtype"],
                        "params": b["params"],
                        "shapes": [record["param_shapes"][p] for p in b["params"]],
                        "ready_ns": max(written[p] for p in b["params"]),
                        "issue_ns": b["issue_ns"],
                        "end_ns": b["end_ns"],
                    }
                )
            steps.append(
                {
                    "iteration": iteration,
                    "profiler_step": iteration if CASES[case]["schedule"] else None,
                    "position": number,
                    "backward_call_ns": loop["backward_call_ns"],
                    "optimizer_call_ns": loop["optimizer_call_ns"],
                    "optimizer_return_ns": loop["optimizer_return_ns"],
                    "last_gradient_ns": max(written.values()),
                    "tail_host_ms": (max(b["end_ns"] for b in buckets) - max(written.values())) / 1e6,
                    "buckets": buckets,
                }
            )
        ranks.append({"rank": record["rank"], "steps": steps})
    return {
        "made_by": "tools/make_trace_fixtures.py",
        "torch": torch.__version__,
        "python": sys.version.split()[0],
        "case": case,
        "world_size": WORLD,
        "backend": "gloo",
        "bucket_cap_mb": CAP_MB,
        "find_unused_parameters": CASES[case]["unused"],
        "layers": [[WIDTHS[k], WIDTHS[k + 1]] for k in range(len(WIDTHS) - 1)],
        "clock": "time.time_ns(); trace ts (us) * 1000 + baseTimeNanoseconds is the same clock",
        "ranks": ranks,
    }


class ClockMismatch(Exception):
    """A trace and its host-clock record do not line up; the case is run again."""


def float_allreduces(trace: dict) -> list[tuple[dict, dict]]:
    """Each ``c10d::allreduce_`` with its ``gloo:all_reduce``: the next unused run after it of the same size.

    gloo runs collectives on two worker threads, so runs can start out of issue order (seen here:
    with ``find_unused_parameters=True`` the run of DDP's map of used parameters, an int32 tensor
    with one element per parameter, started before the run of the bucket issued just before it);
    the sizes (``Input Dims``) tell them apart. The map is then left out (its run's ``Input type``
    is ``int``): it is not a gradient bucket.

    Parameters
    ----------
    trace : dict
        The exported trace.

    Returns
    -------
    list of tuple
        ``(issue, run)`` for the gradient buckets, in issue order.
    """
    events = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    issues = sorted((e for e in events if e["name"] == "c10d::allreduce_"), key=lambda e: e["ts"])
    runs = sorted((e for e in events if e["name"] == "gloo:all_reduce"), key=lambda e: e["ts"])
    pairs, used = [], set()
    for issue in issues:
        numel = issue["args"]["Input Dims"][0][0][0]
        run = next(
            r for k, r in enumerate(runs)
            if k not in used and r["ts"] >= issue["ts"] and r["args"]["Input Dims"][0][0] == numel
        )  # fmt: skip
        used.add(runs.index(run))
        if run["args"]["Input type"][0] == "float":
            pairs.append((issue, run))
    return pairs


def check_clock(trace: dict, record: dict) -> None:
    """Refuse a trace whose clock does not match the host record's.

    The hook's issue times, in order, must each come before the start of the ``c10d::allreduce_``
    at the same position in the trace and after the previous one's start (the Python call into
    ``dist.all_reduce`` takes about 70 µs on an idle machine, but a loaded one can deschedule it for
    milliseconds, so no fixed tolerance is used).

    Parameters
    ----------
    trace : dict
        The exported trace.
    record : dict
        The rank's host-clock record.

    Raises
    ------
    ClockMismatch
        If the issues and the ops do not interleave so.
    """
    base = int(trace.get("baseTimeNanoseconds", 0))
    starts = [base + issue["ts"] * 1000 for issue, _ in float_allreduces(trace)]
    issues = sorted(b["issue_ns"] for b in record["buckets"])
    if len(starts) != len(issues):
        raise ClockMismatch(f"{len(issues)} hook calls but {len(starts)} c10d::allreduce_ in the trace")
    for k, (issue, start) in enumerate(zip(issues, starts, strict=True)):
        if not issue <= start or (k and issue < starts[k - 1]):
            raise ClockMismatch(f"hook call {k} at {issue} ns does not precede its c10d::allreduce_ at {start:.0f} ns")


def read_by_hand(trace: dict) -> list[dict]:
    """The figures read from the trace the way a person reads it in a viewer, written out plainly.

    This is a second, deliberately simple reading (plain loops over the raw JSON, no code shared
    with ``app.trace``) of the definitions in ``app/trace/timeline.py``: steps are the
    ``ProfilerStep#N`` spans, or else split at the end of each ``Optimizer.step#SGD.step``; a
    bucket's issue is a ``c10d::allreduce_`` between the first backward node and the optimizer; its
    run is the gloo:all_reduce at the same position in time order over the whole trace (DDP's int32
    map of used parameters left out, see :func:`float_allreduces`); ready is the
    end of the last ``torch::autograd::AccumulateGrad`` ending before the issue; compute is each
    top-level backward node on the autograd thread, cut at the first all-reduce issued inside it.

    Parameters
    ----------
    trace : dict
        The exported trace.

    Returns
    -------
    list of dict
        Per step: its label, step time, backward start and end, optimizer start, every bucket's
        ready, issue, start and end, tail and exposed communication; times in µs on the trace's
        clock, durations in ms.
    """
    events = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    pairs = float_allreduces(trace)
    issues_all = [i for i, _ in pairs]
    run_of = {id(i): r for i, r in pairs}
    marked = sorted((e for e in events if e["name"].startswith("ProfilerStep#")), key=lambda e: e["ts"])
    optimizers = sorted((e for e in events if e["name"].startswith("Optimizer.step#")), key=lambda e: e["ts"])
    if marked:
        spans = [(e["name"], e["ts"], e["ts"] + e["dur"]) for e in marked]
    else:
        first = min(e["ts"] for e in events if e["name"].startswith(("Optimizer.", "DistributedDataParallel")))
        spans, begin = [], first
        for k, e in enumerate(optimizers):
            spans.append((f"step {k}", begin, e["ts"] + e["dur"]))
            begin = e["ts"] + e["dur"]
    out = []
    for label, lo, hi in spans:
        opt = next(e["ts"] for e in optimizers if lo <= e["ts"] < hi)
        nodes = [
            e for e in events if e["name"].startswith("autograd::engine::evaluate_function: ") and lo <= e["ts"] < opt
        ]
        bwd_start = min(e["ts"] for e in nodes)
        issues = [e for e in issues_all if bwd_start <= e["ts"] < opt]
        thread = issues[0]["tid"]
        accumulations = [e for e in events if e["name"] == "torch::autograd::AccumulateGrad" and e["tid"] == thread]
        compute = []
        for node in nodes:
            if node["tid"] != thread:
                continue
            inside = [i["ts"] for i in issues if node["ts"] <= i["ts"] < node["ts"] + node["dur"]]
            stop = min(inside) if inside else node["ts"] + node["dur"]
            if stop > node["ts"]:
                compute.append((node["ts"], stop))
        buckets = []
        for issue in issues:
            run = run_of[id(issue)]
            ready = max(a["ts"] + a["dur"] for a in accumulations if a["ts"] + a["dur"] <= issue["ts"])
            buckets.append(
                {"ready": ready, "issue": issue["ts"], "start": run["ts"], "end": run["ts"] + run["dur"],
                 "numel": run["args"]["Input Dims"][0][0]}
            )  # fmt: skip
        bwd_end = max(b for _, b in compute)
        # exposed: walk a fine partition made of every interval edge
        comm = [(max(b["start"], bwd_start), min(b["end"], opt)) for b in buckets]
        edges = sorted({t for pair in comm + compute for t in pair})
        exposed = 0.0
        for a, b in zip(edges, edges[1:], strict=False):
            mid = (a + b) / 2
            if any(x <= mid < y for x, y in comm) and not any(x <= mid < y for x, y in compute):
                exposed += b - a
        out.append(
            {
                "label": label,
                "step_ms": (hi - lo) / 1e3,
                "backward_start": bwd_start,
                "backward_end": bwd_end,
                "optimizer_start": opt,
                "buckets": buckets,
                "tail_ms": (max(b["end"] for b in buckets) - bwd_end) / 1e3,
                "exposed_ms": exposed / 1e3,
            }
        )
    return out


def make_case(case: str) -> None:
    """Run one case on two ranks and write its gzipped traces and expectations.

    Parameters
    ----------
    case : str
        A key of :data:`CASES`.
    """
    for attempt in range(3):
        with tempfile.TemporaryDirectory() as tmp:
            mp.spawn(worker, args=(free_port(), case, tmp), nprocs=WORLD, join=True)
            raws, records = [], []
            for rank in range(WORLD):
                raws.append(Path(tmp, f"rank{rank}.json").read_bytes())
                records.append(json.loads(Path(tmp, f"rank{rank}.record.json").read_text()))
        try:
            for raw, record in zip(raws, records, strict=True):
                check_clock(json.loads(raw), record)
            readings = [read_by_hand(json.loads(raw)) for raw in raws]
            break
        except ClockMismatch as err:
            print(f"{case}, attempt {attempt + 1}: {err}; running it again")
    else:
        raise SystemExit(f"{case}: the trace and the host clock never lined up")
    for rank, raw in enumerate(raws):
        # mtime=0: the same trace gives the same bytes
        trace_dir(case).mkdir(parents=True, exist_ok=True)
        (trace_dir(case) / f"gloo_{case}_rank{rank}.json.gz").write_bytes(gzip.compress(raw, 9, mtime=0))
    expected = expectations(case, records)
    for rank, reading in zip(expected["ranks"], readings, strict=True):
        rank["by_hand"] = reading
    (OUT / f"gloo_{case}.expected.json").write_text(json.dumps(expected, indent=1) + "\n")


def reread(case: str) -> None:
    """Redo only the reading by hand of a case's committed traces (the host-clock record is kept).

    Parameters
    ----------
    case : str
        A key of :data:`CASES`.
    """
    path = OUT / f"gloo_{case}.expected.json"
    expected = json.loads(path.read_text())
    for rank in expected["ranks"]:
        raw = gzip.decompress((trace_dir(case) / f"gloo_{case}_rank{rank['rank']}.json.gz").read_bytes())
        rank["by_hand"] = read_by_hand(json.loads(raw))
    path.write_text(json.dumps(expected, indent=1) + "\n")


def main() -> None:
    """Make every case named on the command line, or all of them (``--reread``: only read them again)."""
    OUT.mkdir(parents=True, exist_ok=True)
    names = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--reread" in sys.argv:
        for case in names or list(CASES):
            reread(case)
            print("read again", case)
        return
    for case in names or list(CASES):
        make_case(case)
        print("wrote", case)


if __name__ == "__main__":
    main()
