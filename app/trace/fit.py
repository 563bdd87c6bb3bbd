"""The α–β model fitted to the measured collectives, and bucket timeline lab settings for the trace's layout."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from app.trace.errors import TraceError
from app.trace.ranks import RunTimeline
from app.trace.timeline import BucketRun, StepTimeline
from labs.numbers import format_number
from labs.timeline.schedule import ring_allreduce_ms

MIB = 2**20
BANDWIDTH_BOUNDS = (0.01, 10000.0)
"""The bucket timeline lab's bandwidth range, GB/s."""
LATENCY_BOUNDS = (0.0, 10000.0)
"""The bucket timeline lab's latency range, µs."""
CAP_BOUNDS_MIB = (0.0, 1024.0)
"""The lab's bucket caps: above 0, at most 1024 MiB."""


@dataclass(frozen=True)
class NetworkFit:
    """Bandwidth and latency from least squares on ``duration = 2(p−1)α + 2(p−1)/p · n/B``.

    Parameters
    ----------
    bandwidth_gbps : float
        B in decimal GB/s, clamped to :data:`BANDWIDTH_BOUNDS`.
    latency_us : float
        α in µs per ring step, clamped to :data:`LATENCY_BOUNDS`.
    ranks : int
        p.
    samples : int
        Collectives fitted.
    rms_ms : float
        Root-mean-square of measured − modelled durations, ms.
    clamped : bool
        Whether a bound was applied (or α and B could not be told apart).
    traces : int
        How many ranks' traces the durations were taken from: with several ranks of one step, each
        collective's duration is its shortest across them.
    """

    bandwidth_gbps: float
    latency_us: float
    ranks: int
    samples: int
    rms_ms: float
    clamped: bool
    traces: int = 1


def _timelines(source: StepTimeline | RunTimeline | Sequence[StepTimeline]) -> list[StepTimeline]:
    if isinstance(source, StepTimeline):
        return [source]
    if isinstance(source, RunTimeline):
        return list(source.timelines)
    return list(source)


def fit_network(source: StepTimeline | RunTimeline | Sequence[StepTimeline], ranks: int | None = None) -> NetworkFit:
    """Fit B and α to every measured collective of one or more ranks' steps.

    A collective's kernel on one rank lasts until the slowest rank arrives, so its duration there
    includes waiting. Given one step on several ranks (a :class:`RunTimeline`), each bucket's
    collective is counted once, with its shortest duration across the ranks: the one closest to the
    transfer alone. A sequence of timelines is taken as independent samples.

    With one bucket size only, α and B cannot be told apart: α is set to 0 and B fitted alone.
    A negative α or B from the unconstrained fit is replaced by its bound and the other refitted.

    Parameters
    ----------
    source : StepTimeline, RunTimeline or sequence of StepTimeline
        The measured steps.
    ranks : int, optional
        p, when the traces do not say.

    Returns
    -------
    NetworkFit
        The fit.

    Raises
    ------
    TraceError
        If p is unknown or below 2, or no collective has a size.
    """
    timelines = _timelines(source)
    p = ranks or next((t.world_size for t in timelines if t.world_size), None)
    if p is None or p < 2:
        raise TraceError(
            "the number of ranks is unknown or below 2, so no bandwidth can be fitted: give it (--world-size N)"
        )
    known = [b for t in timelines for b in t.buckets if b.nbytes is not None and b.measured]
    if isinstance(source, RunTimeline) and len(timelines) > 1:
        shortest: dict[int, BucketRun] = {}
        for b in known:  # combine_ranks checked that every rank has the same buckets
            if b.index not in shortest or b.duration_ms < shortest[b.index].duration_ms:
                shortest[b.index] = b
        known = [shortest[k] for k in sorted(shortest)]
    sizes = np.array([b.nbytes for b in known], float)
    durations = np.array([b.duration_ms for b in known], float)
    if len(sizes) == 0:
        raise TraceError("the trace gives no bucket sizes (profile with record_shapes=True), so nothing can be fitted")
    steps = 2 * (p - 1)
    x_alpha = np.full(len(sizes), steps / 1e3)  # ms per µs of α
    x_beta = steps / p * sizes / 1e6  # ms per (1 / GB/s)
    clamped = False
    if np.ptp(sizes) > 0:
        (alpha, inv_b), *_ = np.linalg.lstsq(np.column_stack([x_alpha, x_beta]), durations, rcond=None)
    else:
        alpha, inv_b, clamped = 0.0, float(x_beta @ durations / (x_beta @ x_beta)), True
    if alpha < 0:
        alpha, inv_b, clamped = 0.0, float(x_beta @ durations / (x_beta @ x_beta)), True
    if inv_b <= 0:
        inv_b, clamped = 1 / BANDWIDTH_BOUNDS[1], True
        alpha = max(0.0, float(x_alpha @ (durations - x_beta * inv_b) / (x_alpha @ x_alpha)))
    bandwidth = 1 / inv_b
    fit_b = float(np.clip(bandwidth, *BANDWIDTH_BOUNDS))
    fit_a = float(np.clip(alpha, *LATENCY_BOUNDS))
    clamped = bool(clamped or fit_b != bandwidth or fit_a != alpha)
    residual = durations - np.asarray(ring_allreduce_ms(sizes, p, fit_b, fit_a), dtype=float)
    return NetworkFit(fit_b, fit_a, int(p), len(sizes), float(np.sqrt(np.mean(residual**2))), clamped, len(timelines))


def _size_text(mib: float) -> str:
    return f"{mib:.12g}"


def lab_settings(source: StepTimeline | RunTimeline, fit: NetworkFit | None = None) -> dict:
    """Bucket timeline lab settings that reproduce the trace's layout, one pseudo-layer per bucket.

    The lab takes layers, not buckets, and the trace does not time each layer's backward, so each
    bucket becomes one pseudo-layer: its size is the bucket's MiB, its backward time the measured
    backward compute between the readiness of the bucket before it and its own (for bucket 0, from
    the start of backward). On a GPU trace a bucket counts as ready on the device when its
    all-reduce kernel starts or when backward compute ends, whichever comes first (the host's
    ready time runs ahead of the GPU). Compute after the last bucket is ready is left out (the lab's backward
    ends when the first layer's gradient is ready). Pseudo-layers are written in forward order (the
    last bucket first), and both caps are the smallest pseudo-layer's size so that every
    pseudo-layer fills a bucket of its own (the lab closes a bucket once it holds at least the
    cap), giving the trace's buckets in the trace's order. With several ranks, the rank last ready
    for the last bucket is used, and the straggler delay is left at 0.

    Parameters
    ----------
    source : StepTimeline or RunTimeline
        The measured step.
    fit : NetworkFit, optional
        Bandwidth and latency; fitted from ``source`` when not given.

    Returns
    -------
    dict
        ``layers`` (text of ``size_MiB:backward_ms`` pairs), ``ranks``, ``bandwidth``, ``latency``,
        ``bucket_cap``, ``first_bucket_cap`` and ``iteration`` (the lab's after-rebuild layout), as
        the lab's parameters take them.

    Raises
    ------
    TraceError
        If a bucket's size or timing is unknown, or the fit fails.
    """
    fit = fit or fit_network(source)
    if isinstance(source, RunTimeline):
        last = source.last_ready_rank[-1]
        timeline = next(t for t in source.timelines if t.rank == last)
    else:
        timeline = source
    if any(b.nbytes is None for b in timeline.buckets):
        raise TraceError("a bucket's size is missing from the trace (profile with record_shapes=True)")
    if not timeline.measured:
        raise TraceError("a bucket's all-reduce has no run in the trace, so its timing is unknown")
    from app.trace import intervals  # local: keeps this module's imports to what the fit needs

    pairs = []
    previous = timeline.backward_start
    for bucket in timeline.buckets:
        # ready and issue are host times; on a GPU the gradient is ready on the device by the time
        # the all-reduce kernel starts (NCCL waits for the compute stream), or when backward ends
        ready = min(bucket.start, timeline.backward_end) if timeline.on_gpu else bucket.ready
        ready = max(ready, previous)
        ms = intervals.measure(intervals.clip(timeline.compute, previous, ready)) / 1e3
        pairs.append((_size_text(max(bucket.nbytes, 1) / MIB), round(ms, 6)))
        previous = ready
    pairs.reverse()  # forward order: the last bucket's pseudo-layer first
    cap = min(float(size) for size, _ in pairs)
    cap = min(cap, CAP_BOUNDS_MIB[1])
    return {
        "layers": ", ".join(f"{size}:{ms:.6f}".rstrip("0").rstrip(".") for size, ms in pairs),
        "ranks": fit.ranks,
        "bandwidth": fit.bandwidth_gbps,
        "latency": fit.latency_us,
        "bucket_cap": cap,
        "first_bucket_cap": cap,
        "iteration": "After the bucket rebuild (iteration 2 on)",
    }


FIELD_DIGITS = 3
"""Significant digits the lab's fields show of a trace's figures: a bucket's size to 0.5 %, a time to
0.5 % (the trace's µs clock and one step's run-to-run spread support no more)."""
FIELD_DECIMALS = 4
"""No field gets more decimals than this (a 3-digit 0.000123 would have six)."""


def readable(value: float, smallest: float = 0.0) -> float:
    """A trace's figure rounded for a lab field.

    :data:`FIELD_DIGITS` significant digits, at most :data:`FIELD_DECIMALS` decimals, not below ``smallest``.

    Parameters
    ----------
    value : float
        The figure.
    smallest : float, optional
        The least value the field takes (a size must stay above 0).

    Returns
    -------
    float
        The rounded figure; its shortest text is what the field shows and reads back.
    """
    if value == 0:
        return max(0.0, smallest)
    places = FIELD_DIGITS - 1 - math.floor(math.log10(abs(value)))
    return max(round(value, min(places, FIELD_DECIMALS)), smallest)


def readable_settings(settings: dict) -> dict:
    """:func:`lab_settings` rounded for the lab's fields (:func:`readable`), still one bucket per pseudo-layer.

    Sizes and times get :data:`FIELD_DIGITS` significant digits; both caps are the smallest rounded
    size, so each pseudo-layer still fills a bucket of its own; ranks and the iteration are kept.

    Parameters
    ----------
    settings : dict
        From :func:`lab_settings`.

    Returns
    -------
    dict
        The same keys; ``layers`` as ``size:ms`` pairs such as ``1:26.1, 0.501:0.709``.
    """
    floor = 10.0**-FIELD_DECIMALS
    pairs = []
    for pair in settings["layers"].split(","):
        size, ms = (float(x) for x in pair.split(":"))
        pairs.append((readable(size, floor), readable(ms)))
    cap = min(size for size, _ in pairs)
    return {
        **settings,
        "layers": ", ".join(f"{format_number(size)}:{format_number(ms)}" for size, ms in pairs),
        "bandwidth": readable(settings["bandwidth"]),
        "latency": readable(settings["latency"]),
        "bucket_cap": cap,
        "first_bucket_cap": cap,
    }
