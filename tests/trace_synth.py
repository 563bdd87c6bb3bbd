"""Synthetic Chrome traces for what this machine cannot record: NCCL on CUDA, FSDP, and a step without DDP.

Everything here is made up by hand to have exactly the event names, categories, arguments and links
that ``../shared/notes-traces.md`` describes (checked against a torch 2.13 CPU trace for the
names both backends share): ``record_param_comms`` with ``Collective name``, ``In msg nelems``,
``dtype``, ``Group size``, ``Process Group Name`` and ``Seq`` nested in ``c10d::allreduce_``,
``nccl:all_reduce`` nested in that, a ``cudaLaunchKernel`` nested in that, the kernel
``ncclDevKernel_AllReduce_Sum_f32_RING_LL`` on a communication stream with the same ``External
id`` as the ``record_param_comms`` and the same ``correlation`` as the launch, an ``ac2g`` flow
from the launch to the kernel, the optimizer as a ``gpu_user_annotation`` too, and
``distributedInfo`` with backend nccl. The timings are chosen, so the expected figures are known by
construction (:data:`NCCL_EXPECTED`), not by running the parser.

``python -m tests.trace_synth`` writes the gzipped examples into tests/fixtures/traces/.
"""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

OUT = Path(__file__).resolve().parent / "fixtures" / "traces"
BASE_NS = 1_790_000_000_000_000_000
HOST_PID, MAIN_TID, AUTOGRAD_TID = 4242, 4242, 4250
GPU_PID, COMPUTE_STREAM, COMM_STREAM = 0, 7, 20

# GPU timeline of one step (µs from the step's start on the trace's clock, offset by T0 below):
# backward kernels with a gap at [1800, 2000] that the first all-reduce covers
BACKWARD_KERNELS = [(1000.0, 1400.0), (1400.0, 1800.0), (2000.0, 2400.0), (2400.0, 2600.0)]
# each bucket: (numel, index of the backward kernel after which its last gradient is ready, kernel start, end)
BUCKETS = [(1_000_000, 1, 1500.0, 2000.0), (2_000_000, 2, 2300.0, 2900.0), (3_000_000, 3, 2900.0, 3500.0)]
OPTIMIZER_GPU = 3600.0
STEP_END = 4200.0
NCCL_EXPECTED = {
    "all_reduces": 3,
    "bytes": [4_000_000, 8_000_000, 12_000_000],
    "start_ms": [1.5, 2.3, 2.9],
    "end_ms": [2.0, 2.9, 3.5],
    "backward_start_ms": 1.0,
    "backward_end_ms": 2.6,
    "optimizer_start_ms": 3.6,
    # last all-reduce end 3500 − last backward kernel end 2600
    "tail_ms": 0.9,
    # not covered by compute: [1800, 2000] of bucket 0, [2600, 2900] of bucket 1, all of bucket 2 [2900, 3500]
    "exposed_ms": 1.1,
    "step_ms": 4.2,
}
"""The figures of :func:`nccl_trace`'s step, worked out by hand from the timings above."""
T0 = 10_000.0


def _x(name: str, cat: str, pid: object, tid: object, ts: float, dur: float, **args: object) -> dict:
    return {
        "ph": "X",
        "cat": cat,
        "name": name,
        "pid": pid,
        "tid": tid,
        "ts": round(T0 + ts, 3),
        "dur": dur,
        "args": args,
    }


def nccl_trace(
    rank: int = 0, world_size: int = 2, links: tuple[str, ...] = ("external", "correlation", "flow")
) -> dict:
    """One rank's synthetic NCCL trace of one DDP step (``ProfilerStep#5``).

    Parameters
    ----------
    rank, world_size : int
        Written into ``distributedInfo``.
    links : tuple of str
        Which links between an issue and its kernel to write: ``"external"`` (``External id`` on
        the kernel), ``"correlation"`` (on launch and kernel), ``"flow"`` (``ac2g`` flows). With
        none, only the order and the sizes pair them.

    Returns
    -------
    dict
        The trace as ``export_chrome_trace`` would write it.
    """
    ev: list[dict] = [
        {"ph": "M", "name": "process_name", "pid": HOST_PID, "tid": 0, "args": {"name": "python"}},
        {"ph": "M", "name": "process_name", "pid": GPU_PID, "tid": 0, "args": {"name": "GPU 0"}},
        {"ph": "M", "name": "thread_name", "pid": GPU_PID, "tid": COMM_STREAM, "args": {"name": "stream 20"}},
        _x("ProfilerStep#5", "user_annotation", HOST_PID, MAIN_TID, 0.0, STEP_END, **{"External id": 1}),
        _x("DistributedDataParallel.forward", "user_annotation", HOST_PID, MAIN_TID, 10.0, 200.0),
        # forward buffer broadcast: a collective, but not a gradient bucket
        _x("c10d::broadcast_", "cpu_op", HOST_PID, MAIN_TID, 20.0, 30.0, **{"External id": 2}),
        _x(
            "record_param_comms",
            "cpu_op",
            HOST_PID,
            MAIN_TID,
            22.0,
            20.0,
            **{
                "External id": 3,
                "Collective name": "broadcast",
                "In msg nelems": 10,
                "dtype": "Float",
                "Group size": 2,
            },
        ),  # fmt: skip
    ]
    ext = 100
    corr = 1000
    node_start = 300.0  # host backward nodes, 150 µs apart, each launching its kernel
    ready_ends = []
    for k, (g_start, g_end) in enumerate(BACKWARD_KERNELS):
        h = node_start + 150.0 * k
        ev.append(_x("autograd::engine::evaluate_function: AddmmBackward0", "cpu_op", HOST_PID, AUTOGRAD_TID, h, 60.0))
        ev.append(_x("AddmmBackward0", "cpu_op", HOST_PID, AUTOGRAD_TID, h + 1, 58.0))
        ev.append(_x("cudaLaunchKernel", "cuda_runtime", HOST_PID, AUTOGRAD_TID, h + 10, 5.0, correlation=corr))
        ev.append(
            _x(
                "volta_sgemm_128x64_nn",
                "kernel",
                GPU_PID,
                COMPUTE_STREAM,
                g_start,
                g_end - g_start,
                correlation=corr,
                **{"External id": ext},
            )
        )
        ext += 1
        corr += 1
        # the gradient written: AccumulateGrad right after the node
        acc = h + 70.0
        ev.append(
            _x(
                "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
                "cpu_op",
                HOST_PID,
                AUTOGRAD_TID,
                acc,
                10.0,
            )
        )
        ev.append(
            _x(
                "torch::autograd::AccumulateGrad",
                "cpu_op",
                HOST_PID,
                AUTOGRAD_TID,
                acc + 1,
                4.0,
                **{"Input Dims": [[1000]], "Input type": ["float"]},
            )
        )
        ready_ends.append(acc + 5.0)
    for b, (numel, after, k_start, k_end) in enumerate(BUCKETS):
        # the bucket's last gradient: a second AccumulateGrad after node `after`, holding the issue
        h = node_start + 150.0 * after + 90.0
        outer = _x(
            "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
            "cpu_op",
            HOST_PID,
            AUTOGRAD_TID,
            h,
            50.0,
        )
        ev.append(outer)
        ev.append(
            _x(
                "torch::autograd::AccumulateGrad",
                "cpu_op",
                HOST_PID,
                AUTOGRAD_TID,
                h + 1,
                4.0,
                **{"Input Dims": [[numel - 1000 * (1 if b else 1)]], "Input type": ["float"]},
            )
        )
        ev.append(
            _x(
                "c10d::allreduce_",
                "cpu_op",
                HOST_PID,
                AUTOGRAD_TID,
                h + 10,
                35.0,
                **{"External id": ext, "Input Dims": [[[numel]], [], [], [], [], []]},
            )
        )
        comms_ext = ext + 1
        ev.append(
            _x(
                "record_param_comms", "cpu_op", HOST_PID, AUTOGRAD_TID, h + 12, 30.0,
                **{"External id": comms_ext, "Collective name": "allreduce", "In msg nelems": numel,
                   "Out msg nelems": numel, "dtype": "Float", "Group size": world_size,
                   "Process Group Name": "0", "Process Group Description": "default_pg", "Seq": b},
            )
        )  # fmt: skip
        ev.append(
            _x("nccl:all_reduce", "user_annotation", HOST_PID, AUTOGRAD_TID, h + 14, 25.0, **{"External id": ext + 2})
        )
        launch_args = {"correlation": corr} if "correlation" in links else {}
        ev.append(_x("cudaLaunchKernel", "cuda_runtime", HOST_PID, AUTOGRAD_TID, h + 20, 8.0, **launch_args))
        kernel_args = {
            "Collective name": "allreduce", "In msg nelems": numel, "Out msg nelems": numel, "dtype": "Float",
            "Group size": world_size, "Process Group Name": "0", "device": 0, "stream": COMM_STREAM,
        }  # fmt: skip
        if "external" in links:
            kernel_args["External id"] = comms_ext
        if "correlation" in links:
            kernel_args["correlation"] = corr
        kname = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
        ev.append(_x(kname, "kernel", GPU_PID, COMM_STREAM, k_start, k_end - k_start, **kernel_args))
        if "flow" in links:
            ev.append(
                {
                    "ph": "s",
                    "id": corr,
                    "pid": HOST_PID,
                    "tid": AUTOGRAD_TID,
                    "ts": round(T0 + h + 20, 3),
                    "cat": "ac2g",
                    "name": "ac2g",
                }
            )
            ev.append(
                {
                    "ph": "f",
                    "id": corr,
                    "pid": GPU_PID,
                    "tid": COMM_STREAM,
                    "ts": round(T0 + k_start, 3),
                    "cat": "ac2g",
                    "name": "ac2g",
                    "bp": "e",
                }
            )
        ext += 3
        corr += 1
    # the optimizer: host annotation after backward, GPU annotation and kernel when the stream gets there
    # (the GPU annotation carries its host annotation's External id)
    opt = {"External id": ext}
    ev.append(_x("Optimizer.step#SGD.step", "user_annotation", HOST_PID, MAIN_TID, 1200.0, 300.0, **opt))
    ev.append(_x("cudaLaunchKernel", "cuda_runtime", HOST_PID, MAIN_TID, 1210.0, 5.0, correlation=corr))
    ev.append(
        _x("Optimizer.step#SGD.step", "gpu_user_annotation", GPU_PID, COMPUTE_STREAM, OPTIMIZER_GPU, 300.0, **opt)
    )
    ev.append(
        _x(
            "void at::native::multi_tensor_apply_kernel",
            "kernel",
            GPU_PID,
            COMPUTE_STREAM,
            OPTIMIZER_GPU,
            300.0,
            correlation=corr,
        )
    )
    return {
        "schemaVersion": 1,
        "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85_000_000_000}],
        "distributedInfo": {
            "backend": "nccl",
            "rank": rank,
            "world_size": world_size,
            "pg_count": 1,
            "pg_config": [
                {
                    "pg_name": "0",
                    "pg_desc": "default_pg",
                    "backend_config": "cuda:nccl",
                    "pg_size": world_size,
                    "ranks": list(range(world_size)),
                }
            ],
            "nccl_version": "2.21.5",
        },  # fmt: skip
        "displayTimeUnit": "ms",
        "baseTimeNanoseconds": BASE_NS,
        "traceEvents": ev,
        "traceName": "/home/someone/never-opened.pt.trace.json",
    }


def fsdp_trace() -> dict:
    """A synthetic FSDP step: all-gathers in forward and backward, reduce-scatters, FSDP annotations.

    Returns
    -------
    dict
        The trace.
    """
    ev = [
        _x("ProfilerStep#1", "user_annotation", HOST_PID, MAIN_TID, 0.0, 3000.0),
        _x("FullyShardedDataParallel.forward", "user_annotation", HOST_PID, MAIN_TID, 10.0, 500.0),
        _x("c10d::_allgather_base_", "cpu_op", HOST_PID, MAIN_TID, 20.0, 40.0),
        _x("nccl:_all_gather_base", "user_annotation", HOST_PID, MAIN_TID, 25.0, 30.0),
        _x(
            "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
            "kernel",
            GPU_PID,
            COMM_STREAM,
            100.0,
            300.0,
        ),
        _x("autograd::engine::evaluate_function: AddmmBackward0", "cpu_op", HOST_PID, AUTOGRAD_TID, 600.0, 100.0),
        _x("FullyShardedDataParallel._post_backward_hook", "user_annotation", HOST_PID, AUTOGRAD_TID, 710.0, 80.0),
        _x("c10d::_reduce_scatter_base_", "cpu_op", HOST_PID, AUTOGRAD_TID, 720.0, 40.0),
        _x("nccl:_reduce_scatter_base", "user_annotation", HOST_PID, AUTOGRAD_TID, 725.0, 30.0),
        _x("Optimizer.step#Adam.step", "user_annotation", HOST_PID, MAIN_TID, 2000.0, 500.0),
    ]
    return {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2}, "traceEvents": ev}


def no_ddp_trace() -> dict:
    """A synthetic single-process training step: backward and an optimizer, and no collective at all.

    Returns
    -------
    dict
        The trace (no ``distributedInfo`` either: it was never distributed).
    """
    ev = [
        _x("ProfilerStep#0", "user_annotation", HOST_PID, MAIN_TID, 0.0, 1000.0),
        _x("autograd::engine::evaluate_function: AddmmBackward0", "cpu_op", HOST_PID, MAIN_TID, 100.0, 100.0),
        _x(
            "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
            "cpu_op",
            HOST_PID,
            MAIN_TID,
            210.0,
            10.0,
        ),
        _x("torch::autograd::AccumulateGrad", "cpu_op", HOST_PID, MAIN_TID, 211.0, 5.0),
        _x("Optimizer.step#SGD.step", "user_annotation", HOST_PID, MAIN_TID, 400.0, 100.0),
    ]
    return {"schemaVersion": 1, "deviceProperties": [], "traceEvents": ev}


def without_links(trace: dict, links: tuple[str, ...]) -> dict:
    """A copy of an NCCL trace with only some links kept (see :func:`nccl_trace`)."""
    return nccl_trace(trace["distributedInfo"]["rank"], trace["distributedInfo"]["world_size"], links)


def encode(trace: dict | list) -> bytes:
    """A trace's JSON bytes, as compact as the profiler's are not."""
    return json.dumps(trace, separators=(",", ":")).encode()


def main() -> None:
    """Write the gzipped synthetic examples."""
    OUT.mkdir(parents=True, exist_ok=True)
    for name, trace in {
        "synthetic_nccl_rank0": nccl_trace(0),
        "synthetic_nccl_rank1": nccl_trace(1),
        "synthetic_fsdp": fsdp_trace(),
        "synthetic_no_ddp": no_ddp_trace(),
    }.items():
        (OUT / f"{name}.json.gz").write_bytes(gzip.compress(encode(copy.deepcopy(trace)), 9, mtime=0))
        print("wrote", name)


if __name__ == "__main__":
    main()
