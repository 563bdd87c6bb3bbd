"""Write tests/fixtures/ddp_buckets.json: how PyTorch itself assigns gradients to DDP buckets.

torch is not a dependency of Overlap Lab; this script runs once, in a throwaway virtualenv, and its
output is committed. The committed file was made on Linux x86-64 with Python 3.11 and the CPU wheel
of torch 2.13.0::

    python3 -m venv /tmp/torchenv
    /tmp/torchenv/bin/pip install torch==2.13.0    # the CPU wheel
    /tmp/torchenv/bin/python tools/make_bucket_fixtures.py

It records two things, both read by tests/labs/test_timeline_model.py:

``cases``
    Seeded random lists of float32 tensors (sizes in bytes, from a few bytes to past every cap,
    now and then an empty tensor) with several pairs of limits, among them DDP's defaults (1 MiB
    first bucket, 25 MiB) and the pairs DDP actually uses when ``bucket_cap_mb`` is given (the cap
    for the first bucket too). For each: what
    ``torch.distributed._compute_bucket_assignment_by_size(tensors, [first_cap, cap])`` returns
    (buckets and per-bucket limits), and what it returns when also given ``tensor_indices`` (a
    random permutation, as ``Reducer::rebuild_buckets`` passes the parameter indices in the order
    their gradients were observed).

``ddp_runs``
    Real ``DistributedDataParallel`` steps (gloo, one process, CPU) on small networks, with a
    communication hook recording which parameters each bucket held in iterations 1 to 3, the order
    in which the gradients were produced in iteration 1, each parameter's size in bytes and the
    bucket limits DDP was using.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn

MIB = 2**20
SEED = 8
OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "ddp_buckets.json"

FIXED_CAP_PAIRS = [
    (MIB, 25 * MIB),  # DDP's defaults
    (25 * MIB, 25 * MIB),  # bucket_cap_mb=25 given explicitly (torch 2.13 then uses it for the first bucket too)
    (MIB, MIB),
    (MIB // 4, 4 * MIB),
    (4 * MIB, MIB),  # a first cap larger than the others
    (MIB, 100 * MIB),
    (0, 8 * MIB),  # a zero limit closes a bucket after every tensor
    (4, 4),
]


def random_size(rng: random.Random) -> int:
    """A float32 tensor's size in bytes: a bias, a small weight, a layer, a big layer or an embedding.

    Parameters
    ----------
    rng : random.Random
        The generator.

    Returns
    -------
    int
        A multiple of 4.
    """
    kind = rng.random()
    if kind < 0.03:
        elements = 0
    elif kind < 0.30:
        elements = rng.randint(1, 4096)
    elif kind < 0.65:
        elements = rng.randint(4096, 2 * MIB)
    elif kind < 0.90:
        elements = rng.randint(2 * MIB, 16 * MIB)
    else:
        elements = rng.randint(16 * MIB, 80 * MIB)  # 64 to 320 MiB: past every cap
    return 4 * elements


def assignment(sizes: list[int], limits: list[int], indices: list[int] | None = None) -> tuple[list, list]:
    """PyTorch's bucket assignment for float32 tensors of these sizes.

    Parameters
    ----------
    sizes : list of int
        Sizes in bytes (multiples of 4).
    limits : list of int
        The bucket size limits, in bytes.
    indices : list of int, optional
        ``tensor_indices``, one per tensor.

    Returns
    -------
    tuple of list
        ``(buckets, per_bucket_size_limits)`` as PyTorch returns them.
    """
    tensors = [torch.empty(size // 4, dtype=torch.float32, device="meta") for size in sizes]
    sparse = [False] * len(tensors)
    if indices is None:
        buckets, per_bucket = dist._compute_bucket_assignment_by_size(tensors, limits, sparse)
    else:
        buckets, per_bucket = dist._compute_bucket_assignment_by_size(tensors, limits, sparse, indices)
    return [list(map(int, b)) for b in buckets], list(map(int, per_bucket))


def make_cases(rng: random.Random) -> list[dict]:
    """Random tensor lists against fixed and random limit pairs.

    Parameters
    ----------
    rng : random.Random
        The generator.

    Returns
    -------
    list of dict
        One dict per case.
    """
    pairs = list(FIXED_CAP_PAIRS) * 12
    pairs += [(4 * rng.randint(0, 16 * MIB), 4 * rng.randint(1, 16 * MIB)) for _ in range(24)]
    cases = []
    for first_cap, cap in pairs:
        count = rng.choice([1, 2, 3]) if rng.random() < 0.15 else rng.randint(4, 40)
        sizes = [random_size(rng) for _ in range(count)]
        buckets, limits = assignment(sizes, [first_cap, cap])
        labels = list(range(count))
        rng.shuffle(labels)
        labelled, labelled_limits = assignment(sizes, [first_cap, cap], labels)
        assert labelled_limits == limits
        cases.append(
            {
                "sizes": sizes,
                "first_cap": first_cap,
                "cap": cap,
                "buckets": buckets,
                "limits": limits,
                "tensor_indices": labels,
                "buckets_with_indices": labelled,
            }
        )
    return cases


class Tower(nn.Module):
    """An optional embedding, then bias-free square linear layers: one gradient per layer."""

    def __init__(self, widths: list[int], vocabulary: int = 0):
        super().__init__()
        self.embedding = nn.Embedding(vocabulary, widths[0]) if vocabulary else None
        self.layers = nn.ModuleList(nn.Linear(a, b, bias=False) for a, b in zip(widths, widths[1:], strict=False))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Run the network forward.

        Parameters
        ----------
        x : torch.Tensor
            Token ids (with an embedding) or features.

        Returns
        -------
        torch.Tensor
            A scalar loss.
        """
        y = self.embedding(x) if self.embedding is not None else x
        for layer in self.layers:
            y = torch.tanh(layer(y))
        return y.sum()


def ddp_run(name: str, network: nn.Module, example: torch.Tensor, bucket_cap_mb: int | None) -> dict:
    """Three DDP iterations of one network, recording every bucket each iteration reduced.

    Parameters
    ----------
    name : str
        What the run shows.
    network : torch.nn.Module
        The network (parameters registered in forward order).
    example : torch.Tensor
        One input batch.
    bucket_cap_mb : int or None
        Passed to DDP when not None.

    Returns
    -------
    dict
        The run's record.
    """
    params = list(network.parameters())
    position = {id(p): i for i, p in enumerate(params)}
    ready_order: list[int] = []
    for i, p in enumerate(params):
        p.register_post_accumulate_grad_hook(lambda _p, i=i: ready_order.append(i))
    options = {} if bucket_cap_mb is None else {"bucket_cap_mb": bucket_cap_mb}
    model = nn.parallel.DistributedDataParallel(network, **options)
    seen: list[tuple[int, list[int]]] = []

    def record(_state, bucket):  # unannotated: DDP checks a hook's annotations against the real types
        seen.append((bucket.index(), [position[id(p)] for p in bucket.parameters()]))
        future: torch.futures.Future = torch.futures.Future()
        future.set_result(bucket.buffer())
        return future

    model.register_comm_hook(None, record)
    iterations = []
    order = []
    for _ in range(3):
        seen.clear()
        ready_order.clear()
        model(example).backward()
        iterations.append([indices for _, indices in sorted(seen)])
        order = order or list(ready_order)
    return {
        "name": name,
        "bucket_cap_mb": bucket_cap_mb,
        "first_cap": int(model._bucket_config.first_bucket_bytes_cap),
        "cap": int(model.bucket_bytes_cap),
        "param_bytes": [p.numel() * p.element_size() for p in params],
        "ready_order": order,
        "iterations": iterations,
    }


def make_ddp_runs() -> list[dict]:
    """DDP runs on one CPU process (gloo): equal layers, an embedding first, an explicit cap.

    Returns
    -------
    list of dict
        One record per run.
    """
    torch.manual_seed(SEED)
    with tempfile.TemporaryDirectory() as folder:
        dist.init_process_group("gloo", init_method=f"file://{folder}/store", rank=0, world_size=1)
        try:
            features = torch.randn(2, 1024)
            tokens = torch.randint(0, 16384, (2, 4))
            return [
                ddp_run("8 equal layers of 4 MiB, DDP defaults", Tower([1024] * 9), features, None),
                ddp_run(
                    "64 MiB embedding then 6 layers of 4 MiB, DDP defaults",
                    Tower([1024] * 7, vocabulary=16384),
                    tokens,
                    None,
                ),
                ddp_run("unequal layers, DDP defaults", Tower([1024, 2048, 512, 1536, 256, 1024]), features, None),
                ddp_run("8 equal layers of 4 MiB, bucket_cap_mb=10", Tower([1024] * 9), features, 10),
            ]
        finally:
            dist.destroy_process_group()


def main() -> None:
    """Write the fixture file (one case per line, to keep diffs readable)."""
    rng = random.Random(SEED)
    cases = make_cases(rng)
    runs = make_ddp_runs()
    header = {
        "torch_version": torch.__version__,
        "python": sys.version.split()[0],
        "generated_by": "tools/make_bucket_fixtures.py",
        "seed": SEED,
        "dtype": "float32",
        "function": "torch.distributed._compute_bucket_assignment_by_size",
    }
    lines = ["{"]
    lines += [f"  {json.dumps(key)}: {json.dumps(value)}," for key, value in header.items()]
    lines.append('  "ddp_runs": [')
    lines.append(",\n".join(f"    {json.dumps(run, separators=(',', ':'))}" for run in runs))
    lines.append("  ],")
    lines.append('  "cases": [')
    lines.append(",\n".join(f"    {json.dumps(case, separators=(',', ':'))}" for case in cases))
    lines.append("  ]")
    lines.append("}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    json.loads(OUT.read_text())  # well-formed
    size = OUT.stat().st_size
    print(f"wrote {OUT} ({size} bytes): {len(cases)} cases, {len(runs)} DDP runs, torch {torch.__version__}")


if __name__ == "__main__":
    main()
