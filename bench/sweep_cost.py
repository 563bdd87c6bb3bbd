"""What a discarded session's sweep costs the server, in-process: this checkout's sweep against another's.

``app.upstream.collector`` takes a session's roots as its page is built (:func:`session_roots`) and,
once the session is discarded, sweeps it (:func:`sweep`: the walk, what is unreachable, the
cycles broken), in pieces between clicks. Through the cluster, in a class of 1,000, the two took
about 8% of each process's CPU (py-spy, December 2026).

Each round builds two lesson pages as a server does (``tests.page_documents.page_document``), keeps
one open, discards the other as Panel does and sweeps it; rounds alternate between this checkout's
``app/upstream/session_sweep.py`` and ``--before DIR``'s, loaded from its file, so that both run on the
same machine in the same minute. It prints the median CPU milliseconds of each step side by side, and
checks that both found the same number of objects and garbage.

Usage: ``.venv/bin/python -m bench.sweep_cost --before /path/to/other/checkout [--rounds 20]``
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

from panel.io.document import _cleanup_doc

from app import upstream
from app.upstream import session_sweep
from app.web import serving_settings
from tests.page_documents import page_document

PAGE = "/lesson?id=overlap&exercise=growth"


def load_sweep(checkout: Path) -> ModuleType:
    """``checkout``'s ``app/upstream/session_sweep.py``, as a module of its own."""
    path = checkout / "app" / "upstream" / "session_sweep.py"
    spec = importlib.util.spec_from_file_location("before_session_sweep", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def one_round(module: ModuleType) -> dict[str, float]:
    """One discarded page swept by ``module``: CPU ms of taking its roots and of the sweep, and its counts."""
    gc.freeze()  # as the collector does before each page's pieces: a session's roots are what came since
    try:
        kept = page_document(PAGE)  # another student's page, open throughout
        gc.freeze()
        discarded = page_document(PAGE)
        started = time.process_time()
        roots = module.session_roots(discarded)
        rooted = time.process_time()
        gc.freeze()  # once the page has loaded: only a sweep or a thaw reaches it now
        _cleanup_doc(discarded)
        del discarded
        before_sweep = time.process_time()
        result = module.sweep(roots)
        swept = time.process_time()
    finally:
        gc.unfreeze()
    del kept
    gc.collect()
    return {
        "roots": 1000 * (rooted - started),
        "sweep": 1000 * (swept - before_sweep),
        "walked": result.walked,
        "unreachable": result.unreachable,
    }


def main() -> None:
    """Alternate rounds of the two sweeps; print the medians side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="another checkout, e.g. a worktree of main")
    parser.add_argument("--rounds", type=int, default=20, help="counted rounds each way (default 20)")
    args = parser.parse_args()
    upstream.install()
    serving_settings.install()
    before = load_sweep(args.before)
    page_document(PAGE)  # as the server's warm-up does: what a first build caches is shared
    gc.collect()
    for module in (session_sweep, before):
        module.mark_shared()
    figures: dict[str, list[dict[str, float]]] = {"this checkout": [], "before": []}
    modules = {"this checkout": session_sweep, "before": before}
    for round_ in range(args.rounds + 1):
        order = ("this checkout", "before") if round_ % 2 else ("before", "this checkout")
        for name in order:
            figure = one_round(modules[name])
            if round_:  # the first round warms both up
                figures[name].append(figure)
    print(f"One discarded {PAGE} session swept, in-process CPU, median of {args.rounds} rounds:")
    print(f"  {'':16}{'roots':>10}{'sweep':>10}{'both':>10}{'walked':>9}{'garbage':>9}")
    for name in ("before", "this checkout"):
        rows = figures[name]
        roots = statistics.median(r["roots"] for r in rows)
        sweep = statistics.median(r["sweep"] for r in rows)
        walked = statistics.median(r["walked"] for r in rows)
        garbage = statistics.median(r["unreachable"] for r in rows)
        print(f"  {name:16}{roots:7.2f} ms{sweep:7.2f} ms{roots + sweep:7.2f} ms{walked:9.0f}{garbage:9.0f}")


if __name__ == "__main__":
    main()
