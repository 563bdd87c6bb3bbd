"""Write tests/fixtures/ddp_last_bucket_cap.json: DDP's real bucket layouts with DDP_SET_LAST_BUCKET_CAP=1.

torch is not a dependency of Overlap Lab; like tools/make_layout_fixtures.py (whose networks, hook
and three-iteration run this script reuses) it runs once, in a throwaway virtualenv, and its output
is committed::

    python3 -m venv /tmp/torchenv
    /tmp/torchenv/bin/pip install torch==2.13.0 numpy    # the CPU wheel
    /tmp/torchenv/bin/python tools/make_last_cap_fixtures.py

The variable is set in this process before torch is imported, so every DDP model here sees it.
``Reducer::rebuild_buckets`` (torch/csrc/distributed/c10d/reducer.cpp) reads it when it rebuilds;
with it equal to "1" it reverses the ready-order list of parameters, assigns buckets to it with the
limits ``[first_bucket_bytes_cap_, bucket_bytes_cap_]`` and reverses the list of buckets again.
Each record has the fields of ``tools/make_layout_fixtures.py``'s layouts.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

os.environ["DDP_SET_LAST_BUCKET_CAP"] = "1"

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools.make_layout_fixtures import NETWORKS, layout_run  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "ddp_last_bucket_cap.json"
CONFIGS = [
    {"bucket_cap_mb": None, "find_unused_parameters": False, "static_graph": False},
    {"bucket_cap_mb": 10, "find_unused_parameters": False, "static_graph": False},
    {"bucket_cap_mb": None, "find_unused_parameters": True, "static_graph": False},
    {"bucket_cap_mb": None, "find_unused_parameters": False, "static_graph": True},
]


def main() -> None:
    """Run every network in every configuration on one gloo process and write the fixture."""
    with tempfile.TemporaryDirectory() as folder:
        dist.init_process_group("gloo", init_method=f"file://{folder}/store", rank=0, world_size=1)
        try:
            layouts = [layout_run(name, config) for name in NETWORKS for config in CONFIGS]
        finally:
            dist.destroy_process_group()
    header = {
        "torch_version": torch.__version__,
        "python": sys.version.split()[0],
        "generated_by": "tools/make_last_cap_fixtures.py",
        "environment": {"DDP_SET_LAST_BUCKET_CAP": os.environ["DDP_SET_LAST_BUCKET_CAP"]},
        "dtype": "float32",
    }
    lines = ["{"]
    lines += [f"  {json.dumps(key)}: {json.dumps(value)}," for key, value in header.items()]
    lines.append('  "layouts": [')
    lines.append(",\n".join(f"    {json.dumps(r, separators=(',', ':'))}" for r in layouts))
    lines.append("  ]")
    lines.append("}")
    OUT.write_text("\n".join(lines) + "\n")
    json.loads(OUT.read_text())  # well-formed
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes): {len(layouts)} layouts")


if __name__ == "__main__":
    main()
