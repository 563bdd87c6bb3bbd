"""Your own trace: a PyTorch profiler trace of DDP read as the bucket timeline (standard library + numpy).

Public API::

    parse_trace(data, *, source="", rank=None, world_size=None, limits=Limits()) -> RankTrace
    RankTrace.timeline(step=None) -> StepTimeline
    combine_ranks(traces, step=None) -> RunTimeline
    fit_network(timelines, ranks=None) -> NetworkFit
    lab_settings(timeline_or_run, fit=None) -> dict
    TraceError, Limits

No Panel import: the ``/trace`` page and ``python -m app.trace`` both sit on top of this.
"""

from app.trace.errors import TraceError
from app.trace.parse import RankTrace, parse_trace
from app.trace.reader import Limits
from app.trace.steps import Step
from app.trace.timeline import BucketRun, StepTimeline

__all__ = ["BucketRun", "Limits", "RankTrace", "Step", "StepTimeline", "TraceError", "parse_trace"]
