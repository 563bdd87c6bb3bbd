"""The per-bucket table and the figures, as text for a terminal and as a dict for JSON."""

from __future__ import annotations

from app.trace.fit import NetworkFit
from app.trace.ranks import RunTimeline
from app.trace.timeline import StepTimeline


def _mib(nbytes: int | None) -> str:
    return "?" if nbytes is None else f"{nbytes / 2**20:.3f}"


def _ms(value: float | None) -> str:
    return "unknown" if value is None else f"{value:.3f} ms"


def tail_text(tail_ms: float | None) -> str:
    """The tail as a reader should see it: a hidden tail is 0 ms, and by how much it was hidden.

    Parameters
    ----------
    tail_ms : float or None
        Last all-reduce end − end of backward compute (negative when the last all-reduce ended
        before backward compute did); None when unknown.

    Returns
    -------
    str
        ``"1.234 ms"``, ``"0 ms (hidden by 3.140 ms)"`` or ``"unknown"``. JSON keeps the signed value.
    """
    if tail_ms is None:
        return "unknown"
    if tail_ms < 0:
        return f"0 ms (hidden by {-tail_ms:.3f} ms)"
    return f"{tail_ms:.3f} ms"


def timeline_dict(tl: StepTimeline, last_ready: tuple[int, ...] | None = None) -> dict:
    """One rank's step as plain data (times in ms from the step's start).

    Parameters
    ----------
    tl : StepTimeline
        The step.
    last_ready : tuple of int, optional
        Per bucket, the rank last ready (with several ranks).

    Returns
    -------
    dict
        JSON-ready.
    """
    buckets = []
    for b in tl.buckets:
        row = {
            "bucket": b.index,
            "bytes": b.nbytes,
            "numel": b.numel,
            "dtype": b.dtype,
            "gradients": [list(s) for s in b.gradients] if b.gradients is not None else None,
            "ready_ms": tl.ms(b.ready),
            "issue_ms": tl.ms(b.issue),
            "start_ms": tl.ms(b.start),
            "end_ms": tl.ms(b.end),
            "ready_from": b.ready_from,
            "link": b.link,
            "measured": b.measured,
        }
        if last_ready is not None:
            row["last_ready_rank"] = last_ready[b.index]
        buckets.append(row)
    return {
        "rank": tl.rank,
        "world_size": tl.world_size,
        "backend": tl.backend,
        "step": tl.step.number,
        "step_label": tl.step.label,
        "all_reduces": len(tl.buckets),
        "tail_ms": tl.tail_ms,
        "exposed_ms": tl.exposed_ms,
        "step_ms": tl.step_ms,
        "backward_start_ms": tl.ms(tl.backward_start),
        "backward_end_ms": tl.ms(tl.backward_end),
        "optimizer_start_ms": tl.ms(tl.optimizer_start),
        "optimizer_from": tl.optimizer_from,
        "compute_ms": tl.compute_ms,
        "buckets": buckets,
        "notes": list(tl.notes),
    }


def run_dict(run: RunTimeline | StepTimeline, fit: NetworkFit | None, settings: dict | None) -> dict:
    """Every rank's step, the fit and the lab settings as plain data.

    Parameters
    ----------
    run : RunTimeline or StepTimeline
        The step on one or several ranks.
    fit : NetworkFit or None
        The fitted network, if it could be fitted.
    settings : dict or None
        The lab settings, if they could be made.

    Returns
    -------
    dict
        JSON-ready.
    """
    if isinstance(run, StepTimeline):
        ranks = [timeline_dict(run)]
    else:
        ranks = [timeline_dict(tl, run.last_ready_rank) for tl in run.timelines]
    out: dict = {"ranks": ranks}
    if fit is not None:
        out["fit"] = {
            "bandwidth_gbps": fit.bandwidth_gbps,
            "latency_us": fit.latency_us,
            "ranks": fit.ranks,
            "samples": fit.samples,
            "traces": fit.traces,
            "rms_ms": fit.rms_ms,
            "clamped": fit.clamped,
        }
    if settings is not None:
        out["lab_settings"] = settings
    return out


def status_line(tl: StepTimeline) -> str:
    """The figures in the words of the page's status readout.

    Parameters
    ----------
    tl : StepTimeline
        The step.

    Returns
    -------
    str
        ``all-reduces = N, tail = … ms, exposed = … ms, step = … ms`` (``unknown`` where a run is
        missing; a hidden tail as ``0 ms (hidden by … ms)``).
    """
    return (
        f"all-reduces = {len(tl.buckets)}, tail = {tail_text(tl.tail_ms)}, "
        f"exposed = {_ms(tl.exposed_ms)}, step = {tl.step_ms:.3f} ms"
    )


def table_text(tl: StepTimeline, last_ready: tuple[int, ...] | None = None) -> str:
    """The per-bucket table of one rank's step and its figures, for a terminal.

    Parameters
    ----------
    tl : StepTimeline
        The step.
    last_ready : tuple of int, optional
        Per bucket, the rank last ready.

    Returns
    -------
    str
        Several lines.
    """
    who = "rank ?" if tl.rank is None else f"rank {tl.rank}"
    lines = [f"{who} of {tl.world_size or '?'} ({tl.backend}), {tl.step.label}: {status_line(tl)}"]
    header = f"{'bucket':>6} {'MiB':>9} {'grads':>5} {'ready':>10} {'issue':>10} {'start':>10} {'end':>10}"
    lines.append(header + ("  last ready" if last_ready else "") + "  (ms from the step's start)")
    for b in tl.buckets:
        grads = "?" if b.gradients is None else str(len(b.gradients))
        ran = f"{tl.ms(b.start):>10.3f} {tl.ms(b.end):>10.3f}" if b.measured else f"{'?':>10} {'?':>10}"
        row = f"{b.index:>6} {_mib(b.nbytes):>9} {grads:>5} {tl.ms(b.ready):>10.3f} {tl.ms(b.issue):>10.3f} {ran}"
        lines.append(row + (f"  rank {last_ready[b.index]}" if last_ready else ""))
    lines.append(
        f"backward {tl.ms(tl.backward_start):.3f}–{tl.ms(tl.backward_end):.3f} ms "
        f"(compute {tl.compute_ms:.3f} ms), optimizer starts at {tl.ms(tl.optimizer_start):.3f} ms"
    )
    lines.extend(f"note: {n}" for n in tl.notes)
    return "\n".join(lines)
