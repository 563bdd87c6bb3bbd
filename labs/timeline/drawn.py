"""What the bucket timeline's figures and table draw, read from a :class:`~labs.timeline.schedule.Schedule`.

Pure functions (numpy only): the Gantt's pieces clipped at a horizon, the progress curve's
breakpoints, the bucket table with what went wrong in each bucket, and where the drawing ends.
:class:`labs.timeline.model.TimelineModel` calls them with its schedule; the view draws them.
"""

from __future__ import annotations

import numpy as np

from labs.timed import format_number
from labs.timeline.layers import MIB
from labs.timeline.schedule import Schedule


def durations(s: Schedule) -> np.ndarray:
    """Each bucket's all-reduce time: ``inf`` for one that never ends, ``nan`` for one never started."""
    with np.errstate(invalid="ignore"):
        return s.bucket_end - s.bucket_start


def display_end(s: Schedule) -> float:
    """Where the drawn timeline ends, in ms: the last thing that happens (past it, for a hang)."""
    times = np.concatenate([s.layer_end, s.bucket_issue, s.bucket_start, s.bucket_end, [s.backward_end]])
    last = float(times[np.isfinite(times)].max(initial=0.0))
    if s.hangs:
        return max(last * 1.25, last + 1.0)
    return max(last, s.step_end) if last > 0 else 1.0


def bucket_table(s: Schedule, skipped_layer: int | None = None) -> dict[str, np.ndarray]:
    """The buckets as a table, one row each, for reading exact numbers.

    Returns
    -------
    dict of str to numpy.ndarray
        ``"bucket"`` (1, 2, ...), ``"layers"`` (the layers it holds, numbered from 1 in forward
        order, as text such as ``"8, 7"``), ``"mib"``, ``"bytes"``, ``"ready"``, ``"issue"``,
        ``"start"``, ``"end"`` and ``"cost"`` (ms; ``inf`` for what never happens), and
        ``"note"``: what went wrong with it, if anything (``""`` otherwise).
    """
    return {
        "bucket": np.arange(1, len(s.buckets) + 1),
        "layers": np.array([", ".join(str(i + 1) for i in b) for b in s.buckets]),
        "mib": s.bucket_bytes / MIB,
        "bytes": s.bucket_bytes.copy(),
        "ready": s.bucket_ready.copy(),
        "issue": s.bucket_issue.copy(),
        "start": s.bucket_start.copy(),
        "end": s.bucket_end.copy(),
        "cost": durations(s),
        "note": np.array([bucket_note(s, k, skipped_layer) for k in range(len(s.buckets))]),
    }


def bucket_note(s: Schedule, k: int, skipped_layer: int | None = None) -> str:
    """What went wrong with bucket ``k`` (from 0), in words, or ``""``."""
    layers = s.buckets[k]
    early = [i for i in layers if i in s.read_early]
    if early:
        return "read early: " + ", ".join(f"layer {i + 1}" for i in sorted(early))
    if s.hung_bucket == k:
        return f"never completes: a rank never produces layer {skipped_layer}'s gradient"
    if s.hung_bucket is not None and k > s.hung_bucket:
        return f"never starts: queued behind bucket {s.hung_bucket + 1}"
    if any(i in s.optimizer_early for i in layers):
        return "the optimizer read it before this all-reduce ended"
    return ""


def intervals(s: Schedule, horizon: float) -> dict[str, dict[str, np.ndarray]]:
    """The Gantt's pieces of the step, to draw and clip at t; times past the horizon end there.

    Returns
    -------
    dict
        ``"compute"``: one bar per layer's backward, in the order they run (last layer first),
        with ``"start"``, ``"end"`` (ms), ``"layer"`` (its number from 1 in forward order) and
        ``"label"`` (``"layer 8"``); a slot that never ends stops at the horizon. ``"comm"``: one
        bar per bucket's all-reduce that starts, in bucket order, with ``"start"``, ``"end"``,
        ``"ready"``, ``"issue"`` (ms), ``"bucket"`` (from 1), ``"mib"``, ``"label"`` (``"8 MiB"``)
        and ``"state"`` (``"done"``, ``"read early"``, ``"unfinished"`` for one the optimizer
        did not wait for, ``"hung"``). ``"ticks"``: each bucket's ready and issue times
        (``"time"``, ``"bucket"``, ``"kind"``: ``"ready"`` or ``"issue"``). ``"shared"``: the
        intervals where an all-reduce ran beside backward (``"start"``, ``"end"``).
        ``"exposed"``: the tail after backward, from backward end to step end.
    """
    order = np.arange(len(s.layer_end))[::-1]
    began = np.isfinite(s.bucket_start)
    mib = s.bucket_bytes / MIB
    states = np.array([bucket_state(s, k) for k in range(len(s.buckets))])
    ticks_time = np.concatenate([s.bucket_ready, s.bucket_issue])
    ticks_bucket = np.concatenate([np.arange(1, len(s.buckets) + 1)] * 2)
    ticks_kind = np.array(["ready"] * len(s.buckets) + ["issue"] * len(s.buckets))
    shown = np.isfinite(ticks_time) & (ticks_time <= horizon)
    step_end = min(s.step_end, horizon)
    return {
        "compute": {
            "start": np.minimum(s.layer_start[order], horizon),
            "end": np.minimum(s.layer_end[order], horizon),
            "layer": order + 1,
            "label": np.array([f"layer {i + 1}" for i in order]),
        },
        "comm": {
            "start": s.bucket_start[began],
            "end": np.minimum(s.bucket_end[began], horizon),
            "ready": s.bucket_ready[began],
            "issue": s.bucket_issue[began],
            "bucket": np.arange(1, len(s.buckets) + 1)[began],
            "mib": mib[began],
            "label": np.array([f"{format_number(float(m))} MiB" for m in mib[began]]),
            "state": states[began],
        },
        "ticks": {"time": ticks_time[shown], "bucket": ticks_bucket[shown], "kind": ticks_kind[shown]},
        "shared": {
            "start": np.minimum(s.shared[:, 0], horizon),
            "end": np.minimum(s.shared[:, 1], min(horizon, s.backward_end)),
        },
        "exposed": {
            "start": np.array([min(s.backward_end, step_end)]),
            "end": np.array([step_end]),
            "label": np.array(["exposed"]),
        },
    }


def bucket_state(s: Schedule, k: int) -> str:
    """How bucket ``k``'s all-reduce is drawn: ``done``, ``read early``, ``unfinished`` or ``hung``."""
    if any(i in s.read_early for i in s.buckets[k]):
        return "read early"
    if s.hung_bucket == k:
        return "hung"
    if not s.hangs and s.bucket_end[k] > s.optimizer_start:
        return "unfinished"
    return "done"


def trajectory(s: Schedule, horizon: float) -> dict[str, np.ndarray]:
    """Breakpoints of the step's progress from t = 0 to the horizon (exact under linear interpolation).

    Returns
    -------
    dict of str to numpy.ndarray
        ``"t"`` in ms at 0, every point where a rate changes (slot ends, all-reduce starts and
        ends, contention's edges, backward's end and the step's) and the horizon;
        ``"backward_pct"``, the percent of this rank's backward work done; ``"reduced_mib"``, the
        MiB all-reduced so far; ``"reduced_pct"``, the same as a percent of all gradients; and what
        the readout plays back, each as it stands at t: ``"backward_ms"``, backward's length so far
        (t until it ends), ``"step_ms"``, the step's (t until the optimizer starts) and
        ``"exposed_ms"``, the exposed tail's (0 until backward ends, then growing until the step
        ends).
    """
    ends = [s.backward_end, s.step_end]
    t = np.concatenate([[0.0, horizon], s.layer_end, s.bucket_start, s.bucket_end, s.progress_t, s.reduced_t, ends])
    t = np.unique(t[np.isfinite(t) & (t >= 0) & (t <= horizon)])
    work = np.interp(t, s.progress_t, s.progress_work)
    backward = np.ones_like(t) if s.backward_solo <= 0 else work / s.backward_solo
    reduced = np.interp(t, s.reduced_t, s.reduced_bytes)
    total = float(s.bucket_bytes.sum())
    step = np.minimum(t, s.step_end)
    return {
        "t": t,
        "backward_pct": 100.0 * backward,
        "reduced_mib": reduced / MIB,
        "reduced_pct": 100.0 * reduced / total,
        "backward_ms": np.minimum(t, s.backward_end),
        "step_ms": step,
        "exposed_ms": np.maximum(0.0, step - s.backward_end) if np.isfinite(s.backward_end) else np.zeros_like(t),
    }
