"""Your own trace: a PyTorch profiler trace of DDP read as the bucket timeline (standard library + numpy).

Public API::

    parse_trace(data, *, source="", rank=None, world_size=None, limits=None) -> RankTrace
    RankTrace.timeline(step=None) -> StepTimeline      # .buckets, .tail_ms, .exposed_ms, .step_ms
    combine_ranks(traces, step=None) -> RunTimeline     # .timelines, .last_ready_rank
    fit_network(source, ranks=None) -> NetworkFit       # .bandwidth_gbps, .latency_us
    lab_settings(source, fit=None) -> dict              # TimelineModel(**lab_settings(...))
    run_dict(run, fit, settings), table_text(timeline), status_line(timeline)
    TraceError, Limits

No Panel import: the ``/trace`` page and ``python -m app.trace`` both sit on top of this. Parsing
works on bytes in memory and never opens a path; call it off the event loop (it is CPU-bound).
"""

from app.trace.errors import TraceError
from app.trace.fit import NetworkFit, fit_network, lab_settings
from app.trace.parse import RankTrace, parse_trace
from app.trace.ranks import RunTimeline, combine_ranks
from app.trace.reader import Limits
from app.trace.report import run_dict, status_line, table_text
from app.trace.steps import Step
from app.trace.timeline import BucketRun, StepTimeline

__all__ = [
    "BucketRun",
    "Limits",
    "NetworkFit",
    "RankTrace",
    "RunTimeline",
    "Step",
    "StepTimeline",
    "TraceError",
    "combine_ranks",
    "fit_network",
    "lab_settings",
    "parse_trace",
    "run_dict",
    "status_line",
    "table_text",
]
