"""Write tests/fixtures/ddp_layouts.json: DDP's real bucket layouts, and what a skipped gradient does.

torch is not a dependency of Overlap Lab; like tools/make_bucket_fixtures.py this script runs once,
in a throwaway virtualenv, and its output is committed::

    python3 -m venv /tmp/torchenv
    /tmp/torchenv/bin/pip install torch==2.13.0 numpy    # the CPU wheel
    /tmp/torchenv/bin/python tools/make_layout_fixtures.py

Every network is a chain of "layers" that each own exactly one float32 parameter, used in forward
order (``h = tanh(h + scale * p.sum())``), so backward produces the gradients from the last layer to
the first and layer ``k`` is parameter index ``k``.

``layouts``
    For each network and each DDP configuration (defaults; ``bucket_cap_mb`` 25 and 10;
    ``find_unused_parameters=True`` without and with a 10 MiB cap; ``static_graph=True``): three
    iterations on one gloo process (CPU), with a communication hook recording, per iteration, the
    buckets by ``bucket.index()``, the parameter indices each held, their bytes and the order in
    which the hook was called; and the order in which the gradients were produced in iteration 1.

``skipped_gradient``
    Two gloo processes on "8 equal layers", where rank 1 leaves layer ``j`` out of its forward in
    iteration 3 (iterations 1 and 2 are normal, so the buckets were already rebuilt): which buckets
    each rank's hook issued and which all-reduces finished, and whether the step completed.

How torch 2.13.0 picks the first bucket's cap (torch/nn/parallel/distributed.py,
``_BucketCapacityConfig.create``, lines 86 and 108-110)::

    is_using_default = bucket_cap_mb is None
    ...
    first_bucket_bytes_cap = (
        dist._DEFAULT_FIRST_BUCKET_BYTES if is_using_default else bucket_bytes_cap
    )

``dist._DEFAULT_FIRST_BUCKET_BYTES`` is 1 MiB (``kDefaultFirstBucketBytes = 1024 * 1024`` in
c10d/reducer.hpp), ``_DEFAULT_BUCKET_CAP_MB = 25`` (line 31): an explicit ``bucket_cap_mb``, even
25, replaces the 1 MiB first cap by the cap itself. The bucketing before the first rebuild
(``compute_bucket_size_limits``, lines 151-159) puts every parameter in one bucket
(``[sys.maxsize]``) unless ``find_unused_parameters=True`` without ``static_graph``; then it splits
the parameters in registration order with ``[first cap, cap]`` and reverses the list of buckets.
The buckets are then rebuilt once, in the order the gradients arrived, only while
``Reducer::should_rebuild_buckets()`` (c10d/reducer.hpp, line 151) holds::

    return (static_graph_ || !find_unused_parameters_) && !has_rebuilt_bucket_;

so with ``find_unused_parameters=True`` the registration-order buckets stay for good; with
``static_graph=True`` the observed rebuild comes one iteration later (iteration 3, not 2).

In the skipped-gradient runs ``completed`` is false when either rank's step raised; ``error`` is the
first such first line. Per rank, ``rank_error`` is that step's error (None: ``backward()`` returned),
``rank_seconds`` how long the step took, and ``next_step_error`` what one more step raised.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import queue
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # devtools/ sits beside tools/
from devtools.ports import free_port  # noqa: E402

MIB = 2**20
OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "ddp_layouts.json"
ITERATIONS = 3
SKIP_ITERATION = 3
TIMEOUT_S = 10
NETWORKS = {
    "8 equal layers": [8.0] * 8,
    "Large embedding first": [128.0] + [8.0] * 8,
    "unequal layers": [3.0, 1.0, 5.0, 0.5, 2.0, 0.25, 4.0],
}
CONFIGS = [
    {"bucket_cap_mb": None, "find_unused_parameters": False, "static_graph": False},
    {"bucket_cap_mb": 25, "find_unused_parameters": False, "static_graph": False},
    {"bucket_cap_mb": 10, "find_unused_parameters": False, "static_graph": False},
    {"bucket_cap_mb": None, "find_unused_parameters": True, "static_graph": False},
    {"bucket_cap_mb": 10, "find_unused_parameters": True, "static_graph": False},
    {"bucket_cap_mb": None, "find_unused_parameters": False, "static_graph": True},
]
SKIPS = [(j, unused) for j in (0, 5) for unused in (False, True)]


class Chain(nn.Module):
    """Layers that each own one float32 parameter, used in forward order.

    Parameters
    ----------
    sizes_mib : list of float
        Each parameter's size in MiB (a multiple of 4 bytes).
    """

    def __init__(self, sizes_mib: list[float]):
        super().__init__()
        self.weights = nn.ParameterList(nn.Parameter(torch.zeros(int(s * MIB) // 4)) for s in sizes_mib)

    def forward(self, x: torch.Tensor, skip: int | None = None) -> torch.Tensor:
        """Run the chain, leaving layer ``skip`` out.

        Parameters
        ----------
        x : torch.Tensor
            A scalar input.
        skip : int, optional
            The layer this call does not use.

        Returns
        -------
        torch.Tensor
            A scalar loss.
        """
        h = x
        for k, p in enumerate(self.weights):
            if k != skip:
                h = torch.tanh(h + 1e-3 * p.sum())
        return h


def recording_hook(position: dict[int, int], log: dict):
    """A comm hook that all-reduces (averages) each bucket and records what it saw.

    Parameters
    ----------
    position : dict
        ``id(parameter)`` to its index.
    log : dict
        Filled with ``issued`` (bucket index, parameter indices, bytes) and ``finished`` (indices).

    Returns
    -------
    callable
        The hook, for ``register_comm_hook(None, hook)``.
    """

    def hook(_state, bucket):  # unannotated: DDP checks a hook's annotations against the real types
        buffer = bucket.buffer()
        index = bucket.index()
        log["issued"].append((index, [position[id(p)] for p in bucket.parameters()], buffer.numel() * 4))
        world = dist.get_world_size()

        def done(future: torch.futures.Future) -> torch.Tensor:
            result = future.value()[0] / world  # raises if the all-reduce failed
            log["finished"].append(index)
            return result

        return dist.all_reduce(buffer, async_op=True).get_future().then(done)

    return hook


def wrap(sizes_mib: list[float], config: dict, log: dict) -> tuple[nn.parallel.DistributedDataParallel, list[int]]:
    """Build the chain, wrap it in DDP with the hook, and track the order gradients arrive in.

    Parameters
    ----------
    sizes_mib : list of float
        The network.
    config : dict
        ``bucket_cap_mb`` (None: not passed), ``find_unused_parameters``, ``static_graph``.
    log : dict
        The hook's log (see ``recording_hook``).

    Returns
    -------
    tuple
        The DDP model and the list that post-accumulate-grad hooks append parameter indices to.
    """
    network = Chain(sizes_mib)
    params = list(network.parameters())
    ready: list[int] = []
    for i, p in enumerate(params):
        p.register_post_accumulate_grad_hook(lambda _p, i=i: ready.append(i))
    options = {key: value for key, value in config.items() if value is not None}
    model = nn.parallel.DistributedDataParallel(network, **options)
    model.register_comm_hook(None, recording_hook({id(p): i for i, p in enumerate(params)}, log))
    return model, ready


def layout_run(name: str, config: dict) -> dict:
    """Three DDP iterations of one network in one configuration (the process group must exist).

    Parameters
    ----------
    name : str
        A key of ``NETWORKS``.
    config : dict
        One of ``CONFIGS``.

    Returns
    -------
    dict
        The layout record.
    """
    log: dict = {"issued": [], "finished": []}
    model, ready = wrap(NETWORKS[name], config, log)
    iterations, bucket_bytes, launch_order, ready_order = [], [], [], []
    for _ in range(ITERATIONS):
        log["issued"].clear()
        log["finished"].clear()
        ready.clear()
        model(torch.ones(())).backward()
        issued = sorted(log["issued"])
        assert sorted(log["finished"]) == [i for i, _, _ in issued] == list(range(len(issued)))
        iterations.append([indices for _, indices, _ in issued])
        bucket_bytes.append([size for _, _, size in issued])
        launch_order.append([i for i, _, _ in log["issued"]])
        ready_order = ready_order or list(ready)
    record = {"network": name, "param_bytes": [p.numel() * 4 for p in model.module.parameters()], **config}
    record.update(
        bucket_bytes_cap=int(model.bucket_bytes_cap),
        first_bucket_cap_bytes=int(model._bucket_config.first_bucket_bytes_cap),
        iterations=iterations,
        bucket_bytes=bucket_bytes,
        launch_order=launch_order,
        ready_order=ready_order,
    )
    return record


def make_layouts() -> list[dict]:
    """Every network in every configuration, on one gloo process.

    Returns
    -------
    list of dict
        One record per network and configuration.
    """
    with tempfile.TemporaryDirectory() as folder:
        dist.init_process_group("gloo", init_method=f"file://{folder}/store", rank=0, world_size=1)
        try:
            return [layout_run(name, config) for name in NETWORKS for config in CONFIGS]
        finally:
            dist.destroy_process_group()


def skip_worker(rank: int, port: int, skip: int, unused: bool, results, finished_event) -> None:
    """One rank of a skipped-gradient run; puts its record on ``results`` and exits.

    Parameters
    ----------
    rank : int
        0 or 1; rank 1 leaves layer ``skip`` out in iteration ``SKIP_ITERATION``.
    port : int
        The rendezvous port on 127.0.0.1.
    skip : int
        The layer rank 1 does not use.
    unused : bool
        ``find_unused_parameters``.
    results : multiprocessing.Queue
        Where the record goes.
    finished_event : multiprocessing.Event
        Set by rank 0 when its step is over; rank 1 stays alive until then, so that rank 0 waits
        for a peer that is there but never sends, rather than one that went away.
    """
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=2, timeout=timedelta(seconds=TIMEOUT_S))
    log: dict = {"issued": [], "finished": []}
    config = {"bucket_cap_mb": None, "find_unused_parameters": unused, "static_graph": False}
    model, _ready = wrap(NETWORKS["8 equal layers"], config, log)
    record: dict = {"rank": rank}
    for iteration in range(1, SKIP_ITERATION + 1):
        log["issued"].clear()
        log["finished"].clear()
        if iteration < SKIP_ITERATION:
            model(torch.ones(())).backward()
            record["buckets"] = [indices for _, indices, _ in sorted(log["issued"])]
            continue
        started = time.monotonic()
        try:
            model(torch.ones(()), skip if rank == 1 else None).backward()
            record["error"] = None
        except RuntimeError as error:
            record["error"] = str(error).strip().splitlines()[0]
        record["seconds"] = round(time.monotonic() - started, 1)
    record["issued"] = [i for i, _, _ in log["issued"]]
    if rank == 0:
        finished_event.set()
    else:
        finished_event.wait(3 * TIMEOUT_S)
        time.sleep(1)
    record["finished"] = sorted(log["finished"])
    try:  # the next step: DDP checks here that the previous reduction finished
        model(torch.ones(())).backward()
        record["next_step_error"] = None
    except RuntimeError as error:
        record["next_step_error"] = str(error).strip().splitlines()[0]
    results.put(record)
    results.close()
    results.join_thread()
    os._exit(0)  # destroy_process_group could wait on a collective the peer never joins


def skip_run(skip: int, unused: bool) -> dict:
    """Two processes, rank 1 skipping layer ``skip``; each bounded to about 60 s, then killed.

    Parameters
    ----------
    skip : int
        The layer rank 1 leaves out in iteration ``SKIP_ITERATION``.
    unused : bool
        ``find_unused_parameters``.

    Returns
    -------
    dict
        The skipped-gradient record.
    """
    context = multiprocessing.get_context("spawn")
    results, finished_event = context.Queue(), context.Event()
    port = free_port()
    workers = [
        context.Process(target=skip_worker, args=(rank, port, skip, unused, results, finished_event)) for rank in (0, 1)
    ]
    for worker in workers:
        worker.start()
    deadline = time.monotonic() + 60
    ranks: dict[int, dict] = {}
    while len(ranks) < 2 and time.monotonic() < deadline:
        try:
            record = results.get(timeout=1)
        except queue.Empty:
            continue
        ranks[record["rank"]] = record
    for worker in workers:
        worker.join(max(0.0, deadline - time.monotonic()))
        if worker.is_alive():
            worker.kill()
            worker.join()
    assert len(ranks) == 2, f"a rank sent nothing within 60 s: {sorted(ranks)}"
    errors = [ranks[r]["error"] for r in (0, 1) if ranks[r]["error"]]
    return {
        "network": "8 equal layers",
        "skip_layer": skip,
        "skipping_rank": 1,
        "iteration": SKIP_ITERATION,
        "find_unused_parameters": unused,
        "completed": not errors,
        "error": errors[0] if errors else None,
        "buckets": ranks[0]["buckets"],
        "issued": {str(r): ranks[r]["issued"] for r in (0, 1)},
        "finished": {str(r): ranks[r]["finished"] for r in (0, 1)},
        "rank_error": {str(r): ranks[r]["error"] for r in (0, 1)},
        "rank_seconds": {str(r): ranks[r]["seconds"] for r in (0, 1)},
        "next_step_error": {str(r): ranks[r]["next_step_error"] for r in (0, 1)},
        "timeout_s": TIMEOUT_S,
    }


def main() -> None:
    """Write the fixture file (one record per line, to keep diffs readable)."""
    layouts = make_layouts()
    skipped = [skip_run(skip, unused) for skip, unused in SKIPS]
    header = {
        "torch_version": torch.__version__,
        "python": sys.version.split()[0],
        "generated_by": "tools/make_layout_fixtures.py",
        "dtype": "float32",
        "default_first_bucket_bytes": int(dist._DEFAULT_FIRST_BUCKET_BYTES),
        "first_bucket_rule": (
            "torch/nn/parallel/distributed.py (_BucketCapacityConfig.create): first_bucket_bytes_cap = "
            "(dist._DEFAULT_FIRST_BUCKET_BYTES if is_using_default else bucket_bytes_cap), where "
            "is_using_default = bucket_cap_mb is None: the 1 MiB first bucket holds only while bucket_cap_mb "
            "is unset; an explicit cap, even 25, applies to the first bucket too."
        ),
        "rebuild_rule": (
            "c10d/reducer.hpp Reducer::should_rebuild_buckets(): return (static_graph_ || "
            "!find_unused_parameters_) && !has_rebuilt_bucket_; buckets are rebuilt once, in gradient-ready "
            "order, and never with find_unused_parameters=True unless static_graph."
        ),
    }
    lines = ["{"]
    lines += [f"  {json.dumps(key)}: {json.dumps(value)}," for key, value in header.items()]
    for key, records in (("layouts", layouts), ("skipped_gradient", skipped)):
        lines.append(f'  "{key}": [')
        lines.append(",\n".join(f"    {json.dumps(r, separators=(',', ':'))}" for r in records))
        lines.append("  ]," if key == "layouts" else "  ]")
    lines.append("}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    json.loads(OUT.read_text())  # well-formed
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes): {len(layouts)} layouts, {len(skipped)} skipped-gradient runs")


if __name__ == "__main__":
    main()
