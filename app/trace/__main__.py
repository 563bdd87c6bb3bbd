"""``python -m app.trace FILE... [--step N] [--json] [--ranks R0,...] [--world-size N]``: a trace's figures.

The bucket table and figures of one step of each rank's trace, the α–β fit and the lab settings.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.trace.errors import TraceError
from app.trace.fit import fit_network, lab_settings, readable_settings
from app.trace.parse import parse_trace
from app.trace.ranks import combine_ranks
from app.trace.reader import Limits
from app.trace.report import run_dict, table_text
from app.trace.summary import summarize, summary_dict, summary_text


def main(argv: list[str] | None = None) -> int:
    """Run the command line.

    Parameters
    ----------
    argv : list of str, optional
        Arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0, or 1 with one line on stderr when a file cannot be read.
    """
    parser = argparse.ArgumentParser(prog="python -m app.trace", description=__doc__)
    parser.add_argument("files", nargs="+", metavar="FILE", help="Chrome trace (.json or .json.gz), one per rank")
    parser.add_argument(
        "--step",
        type=int,
        default=None,
        help="step number (default: the last one, then every step and a summary over the warm ones)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    parser.add_argument(
        "--ranks",
        type=lambda text: [int(r) for r in text.split(",")],
        default=[],
        metavar="R0,R1,...",
        help="the rank of each file, in order, for traces without distributedInfo (which wins where present)",
    )
    parser.add_argument(
        "--world-size",
        type=int,
        default=None,
        metavar="N",
        help="how many ranks the run had, for traces without distributedInfo (the fit needs it; "
        "it is not the number of files given)",
    )
    args = parser.parse_args(argv)
    limits = Limits()
    try:
        traces = []
        for name in args.files:
            path = Path(name)
            try:
                size = path.stat().st_size
                if size > limits.max_file_bytes:
                    raise TraceError(f"the file is {size:,} bytes, over the limit of {limits.max_file_bytes:,}", name)
                data = path.read_bytes()
            except OSError as err:
                raise TraceError(f"cannot read the file ({err.strerror or err})", name) from None
            traces.append(parse_trace(data, source=name, world_size=args.world_size, limits=limits))
        if args.world_size is not None:  # known while parsing (for the right refusal); checked against the files here
            traces = [t.with_world_size(args.world_size) for t in traces]
        if args.ranks:
            if len(args.ranks) != len(traces):
                raise TraceError(f"--ranks names {len(args.ranks)} ranks for {len(traces)} files: give one per file")
            traces = [t.with_rank(r, args.world_size) for t, r in zip(traces, args.ranks, strict=True)]
        if len(traces) == 1:
            run = traces[0].timeline(args.step)
            last_ready = None
            timelines = [run]
        else:
            run = combine_ranks(traces, args.step)
            last_ready = run.last_ready_rank
            timelines = list(run.timelines)
        summary = summarize(traces) if args.step is None else None  # every step, when none is asked for
        try:
            fit = fit_network(run)
            settings = lab_settings(run, fit)
        except TraceError as err:
            fit, settings, why = None, None, str(err)
        else:
            why = ""
    except TraceError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    if args.json:
        out = run_dict(run, fit, settings)
        if summary is not None:
            out.update(summary_dict(summary))
        print(json.dumps(out, indent=1))
        return 0
    for tl in timelines:
        print(table_text(tl, last_ready))
        print()
    if summary is not None and len(summary.rows) > 1:
        print(summary_text(summary))
        print()
    if fit is not None:
        print(
            f"fit: B = {fit.bandwidth_gbps:.4g} GB/s, α = {fit.latency_us:.4g} µs from {fit.samples} collectives"
            + (f" (each the shortest of {fit.traces} ranks' runs)" if fit.traces > 1 else "")
            + f" (p = {fit.ranks}, rms {fit.rms_ms:.3f} ms{', clamped' if fit.clamped else ''})"
        )
        shown = readable_settings(settings)  # as the lab's fields take them; --json keeps every digit
        print("bucket timeline lab: " + ", ".join(f"{k} = {v!r}" for k, v in shown.items()))
    else:
        print(f"no fit: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
