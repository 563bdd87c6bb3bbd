"""The bucket timeline lab in words: the readout, the bucket table and what each plot shows.

Every function reads a :class:`~labs.timeline.model.TimelineModel` and the lab's ``conceal`` flag
(a guided exercise hides what would answer it until the student has run the lab).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np

from labs.numbers import fixed
from labs.timed import format_number
from labs.timeline.model import MPI_NO_PROGRESS, TimelineModel
from labs.ui.palette import FAINT_GREY
from labs.ui.playback import clipped, escape
from labs.ui.plot_text import PlotText

COMPUTE, COMM, HOST = "backward", "all-reduce", "host"
"""The Gantt's rows: backward's slots, the all-reduce stream, the host's ready and issue marks."""


def ms(value: float) -> str:
    """A time in ms for people: two decimals below 100 ms, one above (:func:`labs.numbers.fixed`)."""
    return fixed(value, 2 if abs(value) < 100 else 1)


def layer_list(layers: Sequence[int]) -> str:
    """``"layer 1, layer 2"``: every layer named, so that each reads on its own."""
    return ", ".join(f"layer {i}" for i in layers)


def backward_words(m: TimelineModel) -> str:
    """``backward = 16.00 ms``, or that it never ends (stopped behind an all-reduce that never does)."""
    if np.isfinite(m.backward_end):
        return f"backward = {ms(m.backward_end)} ms"
    return "backward never ends: it waits for the synchronization on the all-reduce that never completes"


def problems(m: TimelineModel) -> list[str]:
    """What makes the step invalid or hang, each in one sentence for the student (empty when fine)."""
    found = []
    if m.hangs:
        k = m.hung_bucket
        found.append(
            f"hang: completed = {m.completed} of {m.bucket_count} all-reduces; bucket {k} never completes "
            f"(a rank never produces layer {m.skipped_layer}'s gradient)"
        )
        return found
    if m.read_early:
        found.append(
            f"INVALID: read early: {layer_list(m.read_early)} (bucket {m.missing_event}'s all-reduce "
            f"did not wait for them)"
        )
    if m.optimizer_early:
        found.append(
            f"INVALID: the optimizer read gradients still being reduced, read early: {layer_list(m.optimizer_early)}"
        )
    return found


def ended(m: TimelineModel) -> bool:
    """Whether t has reached the step's end (a hang's: the end of what is drawn), where its outcome is known."""
    return m.t >= (m.horizon if m.hangs else m.step_time)


READOUT_ROOM = (
    "t = 000.00 ms · buckets = 00 · step = 000.00 ms · exposed = 000.00 ms · backward = 000.00 ms · "
    "INVALID: read early: layer 00, layer 00 (bucket 00's all-reduce did not wait for them)"
)
"""The longest readout the lab shows in the common cases, as the room the readout keeps whatever it
shows (a ``labs.ui.transport.Transport``'s ``room``): the layout does not move when a run ends."""


def readout_template(m: TimelineModel, conceal: bool) -> str:
    """The readout, with placeholders for the player to fill: t, buckets, step, exposed, backward, problems.

    Played back as the run goes, as the queue's backlog is: at t the step, the exposed tail and
    backward read their length so far (the exposed tail 0 until backward ends), and what went wrong
    shows once the step has ended (:func:`ended`). A step that hangs has no step time: the readout
    says ``hang`` and how many all-reduces completed, once the run has reached its end.
    """
    if conceal:  # an exercise asks for one of these: none shows until it has run
        return escape("t = {t} ms")
    parts = [f"t = {{t}} ms · buckets = {m.bucket_count}"]
    if not m.hangs:
        parts.append("step = {step_ms} ms · exposed = {exposed_ms} ms")
    if not ended(m):
        return escape(" · ".join([*parts, "backward = {backward_ms} ms"]))
    parts += [backward_words(m), *problems(m)]
    return escape(" · ".join(parts))


def _cell(value: float) -> str:
    return "never" if not np.isfinite(value) else ms(value)


def caption(m: TimelineModel) -> str:
    """The bucket table's caption: the step in one sentence, contention and stalls included."""
    words = [f"backward ends at {ms(m.backward_end)} ms" if np.isfinite(m.backward_end) else "backward never ends"]
    if np.isfinite(m.backward_end) and m.backward_lost > 5e-13:
        words.append(f"{ms(m.backward_lost)} ms of it lost to contention")
    if m.backward_stalled > 0:
        words.append(f"{ms(m.backward_stalled)} ms of it stopped for synchronizations")
    if m.hangs:
        words.append(f"the step hangs after {m.completed} of {m.bucket_count} all-reduces")
    else:
        words.append(f"step {ms(m.step_time)} ms, exposed {ms(m.exposed)} ms")
    words.append(f"without overlap {ms(m.no_overlap_step)} ms")
    if m.nccl_group and not m.hangs:
        words.append(f"one NCCL group: every all-reduce completes at {ms(m.bucket_end.max())} ms, as one")
    elif m.nccl_group:
        words.append("one NCCL group: none completes, since one never does")
    if m.progress == MPI_NO_PROGRESS:
        words.append(f"MPI without a progress thread: no bytes move before the host's wait at {ms(m.host_return)} ms")
    if not m.valid:
        words.append("INVALID")
    return ", ".join(words)


def table_html(m: TimelineModel, conceal: bool) -> str:
    """The buckets as an HTML table: layers, MiB, ready, issue, start, end and what went wrong."""
    if conceal:
        return f"<p style='color:{FAINT_GREY}'>The bucket table appears once the exercise has run.</p>"
    table = m.bucket_table()
    shown = {
        "bucket": [str(b) for b in table["bucket"]],
        "layers": [str(text) for text in table["layers"]],
        "mib": [format_number(round(float(v), 3)) for v in table["mib"]],
        **{key: [_cell(v) for v in table[key]] for key in ("ready", "issue", "start", "end")},
        "note": [str(note) for note in table["note"]],
    }
    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(value)}</td>" for value in values) + "</tr>"
        for values in zip(*shown.values(), strict=True)
    )
    cell = "style='padding:2px 8px;text-align:right'"
    heads = ("bucket", "layers", "MiB", "ready (ms)", "issue (ms)", "start (ms)", "end (ms)", "what went wrong")
    return (
        "<table style='border-collapse:collapse;font-size:0.9rem'>"
        f"<caption style='text-align:left;font-weight:600'>Buckets ({html.escape(m.iteration)}"
        f"{', DDP_SET_LAST_BUCKET_CAP=1' if m.last_bucket_cap else ''}): "
        f"{html.escape(caption(m))}</caption>"
        f"<thead><tr>{''.join(f'<th {cell}>{h}</th>' for h in heads)}</tr></thead>"
        f"<tbody>{rows.replace('<td>', f'<td {cell}>')}</tbody></table>"
    )


def gantt_text(m: TimelineModel, conceal: bool, bars: Mapping[str, list]) -> PlotText:
    """The Gantt as drawn up to t, in words and as a table; nothing an exercise hides."""
    t = m.t
    drawn = clipped(bars, t)
    started = [i for i, begin in enumerate(bars["start"]) if begin < t and bars["kind"][i] == "bar"]
    rows = [[bars["row"][i], bars["label"][i], ms(bars["start"][i]), ms(drawn["end"][i])] for i in started]

    def finished(lane: str) -> int:
        return sum(1 for i in started if bars["row"][i] == lane and bars["end"][i] <= t)

    slots, reduces = finished(COMPUTE), finished(COMM)
    words = (
        f"drawn up to t = {ms(t)} ms: {slots} backward slot{'s' * (slots != 1)} and "
        f"{reduces} all-reduce{'s' * (reduces != 1)} finished"
    )
    under_way = [f"{bars['row'][i]} {bars['label'][i]}".strip() for i in started if bars["end"][i] > t]
    if under_way:
        words += "; under way: " + ", ".join(under_way)
    if not conceal:
        parts = []
        if ended(m):  # the step's outcome, once the run has reached it
            if m.hangs:
                parts.append(f"{backward_words(m)}; {problems(m)[0]}")
            else:
                parts += [
                    f"backward ends at {ms(m.backward_end)} ms; the optimizer starts at {ms(m.step_time)} ms "
                    f"(exposed tail {ms(m.exposed)} ms)",
                    *problems(m),
                ]
        if np.isfinite(m.backward_end) and m.backward_lost > 5e-13:
            parts.append(f"hatched: backward slowed beside an all-reduce, {ms(m.backward_lost)} ms lost")
        if m.backward_stalled > 0:
            parts.append(f"grey: backward stopped for synchronizations, {ms(m.backward_stalled)} ms")
        if parts:
            words = f"{'; '.join(parts)}. D{words[1:]}"
    columns = ("row", "bar", "start (ms)", "end drawn (ms)")
    return PlotText("Gantt of one step", words + ".", columns, rows)


def sweep_text(m: TimelineModel, conceal: bool) -> PlotText:
    """The cap sweep in words and as a table, or that it is hidden until the exercise has run."""
    name = "Step time against bucket cap"
    if conceal:
        return PlotText(name, "hidden until the exercise has run.")
    sweep = m.step_time_sweep()
    caps, steps = list(map(float, sweep.cap_mib)), list(map(float, sweep.step))
    finite = [i for i, step in enumerate(steps) if np.isfinite(step)]
    if not finite:
        return PlotText(name, "every cap hangs: the skipped gradient's bucket never completes.")
    best = min(finite, key=steps.__getitem__)
    now = f"{ms(m.step_time)} ms" if not m.hangs else "a hang"
    summary = (
        f"caps from {format_number(caps[0])} to {format_number(caps[-1])} MiB on a log scale; "
        f"the shortest step is {ms(steps[best])} ms at {format_number(caps[best])} MiB; "
        f"the current cap, {format_number(m.bucket_cap)} MiB, gives {now}; "
        f"a dashed line marks {ms(m.no_overlap_step)} ms without overlap."
    )
    rows = [[format_number(cap), _cell(step)] for cap, step in zip(caps, steps, strict=True)]
    return PlotText(name, summary, ("bucket cap (MiB)", "step (ms)"), rows)
