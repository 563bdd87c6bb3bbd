"""The bucket timeline lab's two Bokeh figures: the Gantt of one step and the step against the bucket cap.

The Gantt's pieces all come from one set of interval columns (:func:`labs.timeline.bars.bar_columns`) that playback
clips at t in the browser: backward's slots, the all-reduces, overlays where contention slowed
either one or backward stood still for a synchronization, and each bucket's ready (▲) and issue (▼)
marks on the host row. What went wrong reads in greyscale too: each state has its own hatch.

**The axes hold still.** Every range is a function of the controls alone, never of t, of the run's
schedule as it unfolds, or of whether an exercise conceals its answer (``conceal``,
``hidden_quantity``): the same from Reset to the end of a run, and the concealed axes are the axes
the reveal shows. They change only when a control is edited (or at Reset).

- The Gantt's time axis runs from 0 to :func:`time_axis_end`: a bound that does not depend on the
  schedule (everything one after the other, each at its slowest, with every launch gap and latency),
  10 % more, rounded up to 10, 15, 20, 30, 40, 50, 60 or 80 times a power of ten ms. Rounded,
  it tells the bound only to within a quarter or more, and it is past every time an exercise asks
  for, so it gives no answer away; its rows are fixed.
- The cap sweep's cap axis (log) spans the sweep's caps, 0.25 to 1024 MiB (and the cap set, if
  smaller); its step axis runs from 0 to :func:`sweep_axis_end`, the same kind of bound with as
  many buckets as there are layers (the most any cap can make), so that it is past every cap's step.
  While an exercise conceals its answer the sweep keeps its frame and axes and draws no data.
"""

from __future__ import annotations

import html

from bokeh.models import (
    BoxAnnotation,
    ColumnDataSource,
    CustomJS,
    CustomJSTransform,
    FactorRange,
    Label,
    LabelSet,
    Range1d,
    Span,
)
from bokeh.plotting import figure
from bokeh.transform import transform

from labs.numbers import nice_at_least
from labs.timed import format_number
from labs.timeline import legend
from labs.timeline.bars import (
    BAR_FONT,
    COLUMNS,
    COMM_COLOUR,
    COMPUTE_COLOUR,
    EXPOSED_COLOUR,
    HUNG_COLOUR,
    HUNG_HATCH,
    INVALID_COLOUR,
    INVALID_HATCH,
    ISSUE_MARK,
    MARK_FONT,
    READY_MARK,
    SLOWED_HATCH,
    STALL_COLOUR,
    STALL_HATCH,
    bar_columns,
)
from labs.timeline.model import AFTER_REBUILD, FIRST_ITERATION, SWEEP_CAPS_MIB, TimelineModel
from labs.timeline.text import COMM, COMPUTE, HOST, ms
from labs.ui import browser_code
from labs.ui.palette import (
    DARK_GREY,
    FAINT_GREY,
    WHITE,
)

__all__ = [
    "BAR_FONT",
    "COLUMNS",
    "COMM_COLOUR",
    "CAP_PADDING",
    "COMPUTE_COLOUR",
    "CONCEALED_ENDS",
    "CONCEALED_MARGIN",
    "EXPOSED_COLOUR",
    "FITTED_LABELS_JS",
    "GANTT_TITLE",
    "HUNG_COLOUR",
    "HUNG_HATCH",
    "INVALID_COLOUR",
    "INVALID_HATCH",
    "ISSUE_MARK",
    "LEGEND",
    "MARK_FONT",
    "READY_MARK",
    "ROWS",
    "ROW_PADDING",
    "SLOWED_HATCH",
    "STALL_COLOUR",
    "STALL_HATCH",
    "SWEEP_HIDDEN_TITLE",
    "SWEEP_TITLE",
    "TITLE_HANGS",
    "CapSweep",
    "Gantt",
    "bar_columns",
    "cap_note",
    "concealed_axis_end",
    "sweep_axis_end",
    "sweep_caps_range",
    "time_axis_end",
]

LEGEND = legend.legend_html()
"""The Gantt's key: a swatch of every colour and pattern it draws, with what it means."""

GANTT_TITLE = "One training step on one rank"

FITTED_LABELS_JS = browser_code("gantt_labels.js")
"""Each bar's label, its short form, or nothing: whatever fits inside the bar at the plot's width."""

ROWS = (COMM, HOST, COMPUTE)
"""The Gantt's rows from the bottom up; a categorical axis puts row i's centre at i + 0.5."""
ROW_PADDING = 0.45
"""The room under the lowest row and above the highest, in rows."""

CONCEALED_MARGIN = 1.1
"""How far past its schedule-free bound the time axis ends, at least (see :func:`time_axis_end`)."""
CONCEALED_ENDS = (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0)
"""The time axes end at one of these times a power of ten ms: 10, 15, 20, 30, 40, ..."""
CAP_PADDING = 1.25
"""How far past the swept caps (and the cap set) the sweep's log cap axis reaches, as a factor."""

SWEEP_TITLE = "Step time against bucket cap (the rest as set above)"
SWEEP_HIDDEN_TITLE = "Step time against bucket cap: shown once the exercise has run"
TITLE_HANGS = "Step time against bucket cap: the step hangs at every cap (a rank skips a gradient)"


class Gantt:
    """The Gantt figure: rows for backward, the host's marks and the all-reduce stream.

    Above the rows, the exposed tail's size over its band; under them, where the optimizer starts.
    A bar's label is drawn inside it only where it fits at the plot's width now (its short form,
    or nothing, where it does not): ``assets/gantt_labels.js``, run again when the plot is resized.
    """

    def __init__(self, bars: ColumnDataSource, now: Span):
        fig = figure(
            height=270,
            sizing_mode="stretch_width",
            # Room above the rows for the exposed tail's label and under them for the optimizer's.
            y_range=FactorRange(*ROWS, range_padding=2 * ROW_PADDING, range_padding_units="absolute"),
            x_range=Range1d(0, 1),
            x_axis_label="time in the step (ms)",
            tools="",
            toolbar_location=None,
            title=GANTT_TITLE,
            min_border_right=12,
        )
        fig.hbar(
            y="row",
            left="start",
            right="end",
            height="height",
            source=bars,
            fill_color="color",
            line_color=WHITE,
            line_alpha="edge",  # none before the bar starts: a zero-width bar's outline would say when
            hatch_pattern="hatch",
            hatch_color="hatch_color",
            hatch_alpha=0.9,
        )
        fitted = CustomJSTransform(args={"source": bars, "fig": fig}, v_func=FITTED_LABELS_JS)
        fig.add_layout(
            LabelSet(
                x="start",
                y="row",
                text=transform("label", fitted),
                source=bars,
                x_offset="dx",
                y_offset="dy",
                text_font_size="font",
                text_color="text_color",
                text_baseline="middle",
            )
        )
        # A resized plot fits its labels again (a change of the bars does so by itself).
        refit = CustomJS(args={"source": bars}, code="source.change.emit()")
        fig.js_on_change("inner_width", refit)
        fig.x_range.js_on_change("end", refit)
        self.exposed_box = BoxAnnotation(left=0, right=0, fill_color=EXPOSED_COLOUR, fill_alpha=0.15)
        self.optimizer = Span(location=0, dimension="height", line_dash="dashed", line_color=DARK_GREY, line_width=2)
        self.optimizer_label = Label(
            x=0, y=-ROW_PADDING, y_offset=2, x_offset=4, text="optimizer", text_font_size="12px", text_color=DARK_GREY
        )
        self.exposed_label = Label(
            x=0,
            y=len(ROWS) - 0.2,  # the top edge of the backward bars (height 0.6, centred on 2.5)
            y_offset=3,
            text="",
            text_font_size="12px",
            text_font_style="bold",
            text_color=EXPOSED_COLOUR,
        )
        for annotation in (self.exposed_box, self.optimizer, self.optimizer_label, self.exposed_label, now):
            fig.add_layout(annotation)
        self.figure = fig

    def redraw(self, m: TimelineModel, hidden: bool) -> None:
        """Move the annotations to the model's step; hide what an exercise conceals.

        The optimizer's line and the exposed tail (its band and its size) are what the step ends
        with: they show once t has reached the step's end, as the run reveals them.
        """
        end = time_axis_end(m)
        self.figure.x_range.update(start=0, end=end)
        ended = not m.hangs and m.t >= m.step_time
        tail = not hidden and ended and m.exposed > 0
        # Hidden, the box is empty at 0, not merely invisible: its edges would be backward's end and the step's.
        left, right = (m.backward_end, m.step_time) if tail else (0.0, 0.0)
        self.exposed_box.update(left=left, right=right, visible=tail)
        shown = not hidden and ended
        at = m.step_time if shown else 0.0
        self.optimizer.update(location=at, visible=shown)
        waits = "optimizer" if m.optimizer_waits else "optimizer (did not wait)"
        # Near the right edge a label goes on the left of what it names, so that it is never cut off.
        right = at > 0.7 * end
        self.optimizer_label.update(
            x=at, text=waits, visible=shown, text_align="right" if right else "left", x_offset=-4 if right else 4
        )
        # Centred over the exposed band, unless that would cut it at an edge of the axis: near the right it
        # ends at the step's end, near the left (a wide axis on a phone's narrow plot) it starts at the band.
        middle = (m.backward_end + m.step_time) / 2 if tail else 0.0
        align = "right" if middle > 0.8 * end else "left" if middle < 0.25 * end else "center"
        self.exposed_label.update(
            x={"right": m.step_time, "left": m.backward_end}.get(align, middle),
            x_offset={"right": -4, "left": 2}.get(align, 0),
            text=f"exposed {ms(m.exposed)} ms" if tail else "",
            text_align=align,
            visible=tail,
        )


def serial_bound(m: TimelineModel, buckets: int) -> float:
    """A step no schedule of these controls outlasts: everything one after the other, at its slowest.

    Backward, the straggler, one all-reduce of everything, and for each of ``buckets`` buckets a
    launch gap and a ring's latency, all slowed by the larger slowdown; or the drawn timeline's end,
    should it be later (the stretch drawn past a hang).

    Parameters
    ----------
    m : TimelineModel
        The model.
    buckets : int
        How many buckets to allow for.

    Returns
    -------
    float
        ms.
    """
    latency_ms = 2 * (m.ranks - 1) * m.latency / 1e3
    serial = m.no_overlap_step + buckets * (m.launch_gap + latency_ms)
    return max(serial * max(m.compute_slowdown, m.comm_slowdown), m.display_end)


def time_axis_end(m: TimelineModel) -> float:
    """The Gantt's time axis end, in and out of an exercise: a round number past a schedule-free bound.

    The bound (:func:`serial_bound` with this layout's buckets) does not depend on the schedule.
    The axis ends :data:`CONCEALED_MARGIN` past it, rounded up to the next :data:`CONCEALED_ENDS`
    number. A fixed margin alone would not do: 1.05 × the no-overlap step is the no-overlap step to
    anyone who knows the 1.05, and a synchronization after every bucket makes that the step time.
    Rounded, the end tells the bound only to within a quarter or more, and it is at least 10 % past
    every time an exercise asks for. It is the same while an exercise conceals its answer and after
    (the axis never jumps at the reveal).

    Parameters
    ----------
    m : TimelineModel
        The model, as the controls set it.

    Returns
    -------
    float
        A number of ms with one or two significant figures, such as 40 or 150.
    """
    return nice_at_least(serial_bound(m, m.bucket_count) * CONCEALED_MARGIN, CONCEALED_ENDS)


concealed_axis_end = time_axis_end
"""The name the time axis's end had when only a concealed axis used it."""


def sweep_axis_end(m: TimelineModel) -> float:
    """The cap sweep's step axis end: :func:`time_axis_end`'s rule with a bucket per layer.

    No cap makes more buckets than there are layers (each bucket holds a layer at least), and the
    first iteration makes one at every cap, so every cap's step lies under it; it does not depend on
    the cap set, nor on the schedule.

    Parameters
    ----------
    m : TimelineModel
        The model.

    Returns
    -------
    float
        ms, a round number at least :func:`time_axis_end`.
    """
    buckets = 1 if m.iteration == FIRST_ITERATION else max(m.layer_count, m.bucket_count)
    return max(nice_at_least(serial_bound(m, buckets) * CONCEALED_MARGIN, CONCEALED_ENDS), time_axis_end(m))


def sweep_caps_range(m: TimelineModel) -> tuple[float, float]:
    """The cap sweep's cap axis: the swept caps and the cap set, :data:`CAP_PADDING` wider each way (MiB)."""
    low = min(SWEEP_CAPS_MIB[0], m.bucket_cap)
    high = max(SWEEP_CAPS_MIB[-1], m.bucket_cap)
    return low / CAP_PADDING, high * CAP_PADDING


class CapSweep:
    """The step time against the bucket cap, the current cap marked, the no-overlap step dashed."""

    def __init__(self):
        self.line = ColumnDataSource(data={"cap": [], "step": []})
        self.point = ColumnDataSource(data={"cap": [], "step": []})
        fig = figure(
            height=200,
            sizing_mode="stretch_width",
            x_axis_type="log",
            x_range=Range1d(SWEEP_CAPS_MIB[0] / CAP_PADDING, SWEEP_CAPS_MIB[-1] * CAP_PADDING),
            y_range=Range1d(0, 1),
            x_axis_label="bucket cap (MiB)",
            y_axis_label="step (ms)",
            tools="",
            toolbar_location=None,
            title=SWEEP_TITLE,
            min_border_right=12,
        )
        fig.line("cap", "step", source=self.line, line_width=2, color=COMM_COLOUR)
        fig.scatter("cap", "step", source=self.point, size=10, color=DARK_GREY)
        self.no_overlap_line = Span(location=0, dimension="width", line_dash="dashed", line_color=FAINT_GREY)
        self.no_overlap_label = Label(
            x=0.3, y=0, text="no overlap", text_font_size="11px", y_offset=3, text_color=FAINT_GREY
        )
        fig.add_layout(self.no_overlap_line)
        fig.add_layout(self.no_overlap_label)
        self.figure = fig

    def redraw(self, m: TimelineModel, hidden: bool) -> None:
        """Draw the sweep for the model's other controls (a hang draws no point); hidden, no data at all.

        While an exercise conceals its answer the figure keeps its place and its axes (they are the
        reveal's: see the module's docstring) and holds no data: its point is the step time, its
        dashed line the no-overlap step, its line every cap's step.
        """
        low, high = sweep_caps_range(m)
        self.figure.x_range.update(start=low, end=high)
        self.figure.y_range.update(start=0, end=sweep_axis_end(m))
        if hidden:
            self.line.data = {"cap": [], "step": []}
            self.point.data = {"cap": [], "step": []}
            self.no_overlap_line.location = None
            self.no_overlap_label.update(y=0, visible=False)
            self.figure.title.text = SWEEP_HIDDEN_TITLE
            return
        sweep = m.step_time_sweep()
        steps = [float(s) if s < float("inf") else float("nan") for s in sweep.step]
        self.line.data = {"cap": list(map(float, sweep.cap_mib)), "step": steps}
        now = float(m.step_time) if not m.hangs else float("nan")
        self.point.data = {"cap": [float(m.bucket_cap)], "step": [now]}
        self.no_overlap_line.location = m.no_overlap_step
        self.no_overlap_label.update(y=m.no_overlap_step, visible=True)
        hangs = not any(step == step for step in steps)  # every cap NaN: the step hangs at every cap
        self.figure.title.text = TITLE_HANGS if hangs else SWEEP_TITLE


def cap_note(m: TimelineModel) -> str:
    """The sentence beside the cap fields: which DDP call gives these caps (or that none does)."""
    if m.iteration == FIRST_ITERATION:
        note = f"{m.ddp_call}. The first iteration ignores both: one bucket of {format_number(m.bucket_mib[0])} MiB."
    else:
        note = m.ddp_call + "."
    if m.last_bucket_cap:
        if m.iteration == AFTER_REBUILD:
            note += " DDP_SET_LAST_BUCKET_CAP=1: the rebuild gives the first cap to the last bucket, reduced last."
        else:
            note += " DDP_SET_LAST_BUCKET_CAP=1 acts only at the rebuild, so it changes nothing here."
    return html.escape(note)
