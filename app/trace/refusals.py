"""What a trace file is refused for, before its steps are read: the sentences that say why, and the rank check.

:func:`app.trace.parse.parse_trace` raises these as :class:`~app.trace.errors.TraceError`: a run of one
rank, an old profiler, one GPU, FSDP, a file that is JSON but not a Chrome trace, a rank or world size
larger than the page reads.
"""

from __future__ import annotations

from app.trace.errors import TraceError
from app.trace.reader import MAX_WORLD

WORLD_ONE = (
    "the run has world size 1 (one rank), so DDP has no gradients to all-reduce across ranks and "
    "nothing to overlap: profile a run with 2 or more ranks"
)
"""Why a one-rank run is refused."""
RECORDS_DDP_FROM = "1.9"
"""The first PyTorch release whose profiler records the all-reduce DDP issues from its backward hook
(pytorch/pytorch#52020, closed by #52031 in February 2021)."""
TOO_OLD = (
    "it comes from an old profiler (its backward nodes have bare names such as {example}, without "
    "autograd::engine::evaluate_function) and records no DDP all-reduce: PyTorch's profiler records the "
    "all-reduce DDP issues from its backward hook only from release {version} on (pytorch/pytorch#52020): "
    "profile the run again with PyTorch {version} or later"
)
"""Why a training trace from an old profiler, of a run said to have several ranks, is refused."""
ONE_GPU = (
    "it records training on a GPU but no collective at all (no c10d call and no NCCL kernel, which every "
    "all-reduce across GPUs runs as), so the run had one GPU and nothing to all-reduce: DDP needs 2 or more "
    "ranks"
)
"""Why a one-GPU training trace (no collective, kernels recorded) is refused."""
FSDP_ONLY = ("FullyShardedDataParallel.", "FSDP::")
"""Names only FSDP writes (FSDP1's module annotations, FSDP2's ``FSDP::post_backward_reduce``...)."""


def not_chrome(meta: dict) -> str:
    """Why a JSON file without ``traceEvents`` is refused, naming what it looks like."""
    if "nodes" in meta and ("schema" in meta or "pid" in meta):
        return (
            "this is a PyTorch execution trace (schema and nodes, no traceEvents), not a Chrome trace from "
            "torch.profiler: export one with prof.export_chrome_trace(path) or tensorboard_trace_handler"
        )
    keys = ", ".join(sorted(meta)[:6]) or "none"
    return f"the file is JSON but not a Chrome trace: it has no traceEvents list (its keys: {keys})"


def check_ranks(rank: int | None, world_size: int | None, most: int = MAX_WORLD) -> None:
    """Refuse a world size or rank larger than the page reads, before anything is sized by it.

    Parameters
    ----------
    rank, world_size : int or None
        As the file states them (or as given).
    most : int
        The largest world size read (:data:`app.trace.reader.MAX_WORLD` by default).

    Raises
    ------
    TraceError
        One line saying which number is too large, e.g. ``world_size 2000000 is more than this page
        reads (at most 65536)``; or that the rank cannot be in a run of that many ranks.
    """
    if world_size is not None and world_size > most:
        raise TraceError(f"world_size {world_size} is more than this page reads (at most {most})")
    if rank is not None and rank >= most:
        raise TraceError(f"rank {rank} is more than this page reads (at most {most - 1})")
    if rank is not None and world_size is not None and rank >= world_size:
        raise TraceError(f"rank {rank} cannot be in a run of {world_size} ranks")
