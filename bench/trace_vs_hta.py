"""Our trace figures beside Holistic Trace Analysis's on the same real traces, with why they differ.

HTA (``HolisticTraceAnalysis`` on PyPI, MIT) is never a project dependency: this script installs it
once into a virtualenv of its own, ``.cache/hta-venv`` (about 500 MB, 105 packages; ``pandas<3``,
as HTA 0.5 crashes reading some traces with pandas 3), and runs it there in a child process.

For each trace it prints HTA's ``get_comm_comp_overlap`` (per rank: the share of communication
kernel time that computation kernels overlap, over the whole trace) and ours per step: tail,
exposed communication, the all-reduces' time, and the overlap the same way (1 − exposed / all-reduce
time), with the time each took to read the file. They differ by design: HTA counts every
``^nccl`` kernel of the whole trace (forward broadcasts, all-gathers, all-to-all and every step
included, the last ProfilerStep dropped); ours counts only a step's DDP bucket all-reduces, linked
to their issues, between backward's start and the optimizer's start on the GPU, and adds the tail,
the wait the optimizer really has, which HTA has no figure for.

    .venv/bin/python -m bench.trace_vs_hta [FILE ...]     # default: the real DDP fixtures
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from app.trace import TraceError, parse_trace
from app.trace.intervals import clip, measure
from app.trace.report import tail_text

CHECKOUT = Path(__file__).resolve().parents[1]
VENV = CHECKOUT / ".cache" / "hta-venv"
REAL = CHECKOUT / "tests" / "fixtures" / "traces" / "real"
DEFAULT = [
    REAL / "hta_nccl_data.json.gz",
    REAL / "hta_sampled_rank0.json.gz",
    REAL / "hta_sampled_rank1.json.gz",
    REAL / "tracelens_mi300_resnet_act_checkpoint.json.gz",
]
HTA_CHILD = """
import json, sys, time, warnings, logging
warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)
from hta.trace_analysis import TraceAnalysis
t = time.perf_counter()
analysis = TraceAnalysis(trace_dir=sys.argv[1])
read = time.perf_counter() - t
overlap = analysis.get_comm_comp_overlap(visualize=False)
print(json.dumps({"read_s": read, "overlap": {int(r): float(p) for r, p in
      zip(overlap["rank"], overlap["comp_comm_overlap_pctg"])}}))
"""
WHY = (
    "HTA: every ^nccl kernel over the whole trace (forward broadcasts and all-gathers included); "
    "ours: this step's DDP bucket all-reduces, backward start to optimizer start"
)


def hta_python() -> Path:
    """HTA's interpreter, installing HTA into ``.cache/hta-venv`` the first time."""
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"installing HolisticTraceAnalysis into {VENV} (once; about 500 MB)", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q", "HolisticTraceAnalysis", "pandas<3"]
        subprocess.run(pip, check=True)
    return python


def hta_figures(path: Path) -> dict:
    """HTA's overlap per rank and its read time for one file (HTA reads a directory)."""
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(path, folder)
        done = subprocess.run([str(hta_python()), "-c", HTA_CHILD, folder], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return {"error": last[:120]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def our_figures(path: Path) -> dict:
    """Our tail, exposed, all-reduce time and overlap per step, and the read time."""
    t = time.perf_counter()
    try:
        trace = parse_trace(path.read_bytes(), source=path.name)
        steps = []
        for number in trace.step_numbers():
            tl = trace.timeline(number)
            comm = measure(clip(tl.communication, tl.backward_start, tl.optimizer_start)) / 1e3
            exposed = tl.exposed_ms
            overlap = None if exposed is None or comm == 0 else 100 * (1 - exposed / comm)
            steps.append((number, tl.tail_ms, exposed, comm, overlap))
    except TraceError as refusal:
        return {"error": str(refusal)[:120], "read_s": time.perf_counter() - t}
    return {"rank": trace.rank, "steps": steps, "read_s": time.perf_counter() - t}


def _num(value: float | None, unit: str = "") -> str:
    return "?" if value is None else f"{value:.2f}{unit}"


def main() -> None:
    """Print both tools' figures for each trace."""
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="*", type=Path, default=DEFAULT)
    args = parser.parse_args()
    for path in args.files:
        ours, theirs = our_figures(path), hta_figures(path)
        print(f"{path.name}: read in {ours['read_s']:.2f} s (ours), {_num(theirs.get('read_s'), ' s')} (HTA)")
        if "error" in theirs:
            print(f"  HTA: {theirs['error']}")
        else:
            for rank, pct in theirs["overlap"].items():
                print(f"  HTA rank {rank}: overlap {pct:.2f} % of communication time, whole trace")
        if "error" in ours:
            print(f"  ours: {ours['error']}")
            continue
        for number, tail, exposed, comm, overlap in ours["steps"]:
            print(
                f"  ours rank {ours['rank']} step {number}: tail {tail_text(tail)}, exposed {_num(exposed, ' ms')} "
                f"of {comm:.2f} ms all-reduce, overlap {_num(overlap, ' %')}"
            )
        print(f"  why they differ: {WHY}")


if __name__ == "__main__":
    main()
