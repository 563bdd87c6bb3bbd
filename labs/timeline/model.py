"""The bucket timeline: one data-parallel training step on one rank, after DDP's bucket rebuild.

Imports only param and numpy (and the pure schedule in :mod:`labs.timeline.schedule`: DDP's bucket
assignment and the all-reduce stream, which this model feeds with its controls).

Units: gradient sizes in MiB (2^20 bytes), bucket caps in MiB, backward times and every time on
the timeline in milliseconds, network bandwidth B in decimal GB/s (10^9 bytes/s), latency α in
microseconds per ring step.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import param

from labs.numbers import NotANumber, parse_number
from labs.timed import InvalidInput, TimedModel, format_number
from labs.timeline.schedule import Schedule, step_schedule

MIB = 2**20
"""Bytes in one MiB."""

EQUAL_LAYERS = "8 equal layers"
EMBEDDING_FIRST = "Large embedding first"
CUSTOM = "Custom"
"""What the "Model" choice reads once the layers match no preset."""

PRESETS: tuple[str, ...] = (EQUAL_LAYERS, EMBEDDING_FIRST)
"""The names of the model presets, in the order the "Model" choice lists them (then Custom)."""

PRESET_LAYERS: tuple[tuple[str, str], ...] = (
    (EQUAL_LAYERS, ", ".join(["8:2"] * 8)),
    (EMBEDDING_FIRST, ", ".join(["128:0.5", *["8:2"] * 8])),
)
"""The presets as ``(name, layers)``: ``size:time`` pairs in forward order (MiB : ms).

"8 equal layers": 8 × 8 MiB, 2 ms each. "Large embedding first": a 128 MiB embedding whose
backward takes 0.5 ms, then the same 8 layers. The embedding comes first in the forward pass, so its
gradient is the last one ready; at the defaults it closes the last bucket (24 MiB of layers + 128 MiB)
exactly when backward ends, and that whole all-reduce is exposed.
"""

AFTER_REBUILD = "After the bucket rebuild (iteration 2 on)"
FIRST_ITERATION = "First iteration (one bucket)"
ITERATIONS = (AFTER_REBUILD, FIRST_ITERATION)

MAX_LAYERS = 512
"""The most layers the Layers field takes."""

SIZE_RANGE_MIB = (0.0, 65536.0)
"""A layer's gradient size: above 0 and at most 64 GiB."""

TIME_RANGE_MS = (0.0, 10000.0)
"""A layer's backward time: at least 0 and at most 10 s."""

SWEEP_CAPS_MIB: tuple[float, ...] = tuple(0.25 * 2 ** (k / 4) for k in range(49))
"""The default bucket caps of :meth:`TimelineModel.step_time_sweep`: 0.25 to 1024 MiB, 4 per octave."""

CONTROL_UNITS: tuple[tuple[str, str], ...] = (
    ("layers", "MiB : ms"),
    ("bucket_cap", "MiB"),
    ("first_bucket_cap", "MiB"),
    ("ranks", ""),
    ("bandwidth", "GB/s"),
    ("latency", "µs"),
    ("straggler", "ms"),
)
"""The unit shown after each typed control's label."""


class Bucket(NamedTuple):
    """One bucket of the step and its all-reduce (times in ms).

    Attributes
    ----------
    layers : tuple of int
        The layers it holds, as forward-order indices from 0, in ready order.
    nbytes : int
        Its size in bytes.
    mib : float
        Its size in MiB.
    ready : float
        When every rank has produced all its gradients.
    start, end : float
        Its all-reduce on the communication stream.
    """

    layers: tuple[int, ...]
    nbytes: int
    mib: float
    ready: float
    start: float
    end: float

    @property
    def cost(self) -> float:
        """How long its all-reduce takes, in ms."""
        return self.end - self.start


class Sweep(NamedTuple):
    """The step time against the bucket cap; unpacks as ``caps, steps``.

    Attributes
    ----------
    cap_mib : numpy.ndarray
        Bucket caps in MiB.
    step : numpy.ndarray
        The step time in ms at each cap, every other control as it is.
    """

    cap_mib: np.ndarray
    step: np.ndarray


def _describe(low: float, high: float, low_inclusive: bool) -> str:
    lower = "at least" if low_inclusive else "above"
    return f"use a number {lower} {format_number(low)} and at most {format_number(high)}"


def _quote(piece: str) -> str:
    piece = piece.strip()
    return repr(piece if len(piece) <= 24 else piece[:21] + "...")


def parse_layers(raw: object, kept: str = "") -> tuple[np.ndarray, np.ndarray]:
    """Read the Layers field: ``size:time`` pairs in forward order, gradient MiB : backward ms.

    Pairs are separated by commas, semicolons or new lines (so decimals take a point: ``2.5``);
    spaces do not matter and an empty place between two separators is skipped. Sizes are kept to the
    whole byte (at least 1, see :func:`to_bytes`) and times to the nanosecond (10^-6 ms), as a real
    tensor and a real clock would have them.

    Parameters
    ----------
    raw : object
        What was typed, e.g. ``"64:0.5, 8:2, 8:2"``.
    kept : str, optional
        Appended to every refusal, e.g. ``"kept the previous layers"``.

    Returns
    -------
    tuple of numpy.ndarray
        ``(sizes_mib, backward_ms)``, one entry per layer in forward order.

    Raises
    ------
    InvalidInput
        With a message for the student: no layer, more than 512, a pair without its colon or with
        two, an empty, non-numeric, NaN or infinite number, a size not above 0 or a time below 0,
        or either one past its maximum.
    """
    tail = f"; {kept}." if kept else "."
    example = "write each layer as size:time (gradient MiB : backward ms), for example 8:2"
    if not isinstance(raw, str):
        raise InvalidInput(f"Layers: type the layers as text, {example}{tail}")
    pieces = [p for p in raw.replace(";", ",").replace("\n", ",").split(",") if p.strip()]
    if not pieces:
        raise InvalidInput(f"Layers: there is no layer; {example}{tail}")
    if len(pieces) > MAX_LAYERS:
        raise InvalidInput(f"Layers: {len(pieces)} layers are more than this lab takes; use at most {MAX_LAYERS}{tail}")
    sizes, times = [], []
    for number, piece in enumerate(pieces, start=1):
        where = f"layer {number} ({_quote(piece)})"
        if ":" not in piece:
            raise InvalidInput(f"Layers: {where} has no colon; {example} (decimals take a point: 2.5){tail}")
        if piece.count(":") > 1:
            raise InvalidInput(f"Layers: {where} has more than one colon; {example}{tail}")
        size_text, time_text = (part.strip().replace("\u2212", "-") for part in piece.split(":"))
        values = []
        for text, what, unit, (low, high), low_inclusive, side in (
            (size_text, "gradient size", "MiB", SIZE_RANGE_MIB, False, "before"),
            (time_text, "backward time", "ms", TIME_RANGE_MS, True, "after"),
        ):
            if not text:
                raise InvalidInput(f"Layers: {where} has no {what} {side} its colon; {example}{tail}")
            rule = _describe(low, high, low_inclusive)
            try:
                value = parse_number(text)  # the app's one number rule (here no comma: it separates layers)
            except NotANumber as refusal:
                if not refusal.finite:
                    raise InvalidInput(
                        f"Layers: the {what} of layer {number} must be a finite number; {rule}{tail}"
                    ) from None
                raise InvalidInput(f"Layers: in {where}, {_quote(text)} is not a number{tail}") from None
            if value > high or value < low or (value == low and not low_inclusive):
                raise InvalidInput(
                    f"Layers: the {what} of layer {number} cannot be {format_number(value)} {unit}; {rule}{tail}"
                )
            values.append(value)
        sizes.append(values[0])
        times.append(values[1])
    return to_bytes(np.array(sizes)) / MIB, np.round(np.array(times), 6)


def format_layers(sizes_mib: list[float] | np.ndarray, backward_ms: list[float] | np.ndarray) -> str:
    """Write layers back as the Layers field shows them, e.g. ``"64:0.5, 8:2"``.

    Parameters
    ----------
    sizes_mib : sequence of float
        Gradient sizes in MiB, forward order.
    backward_ms : sequence of float
        Backward times in ms, forward order.

    Returns
    -------
    str
        ``size:time`` pairs joined by ``", "``, numbers as the inputs show them.
    """
    return ", ".join(
        f"{format_number(float(s))}:{format_number(float(t))}" for s, t in zip(sizes_mib, backward_ms, strict=True)
    )


def to_bytes(size_mib: float | np.ndarray) -> np.ndarray:
    """Gradient sizes in whole bytes, as a tensor has: MiB × 2^20 rounded, at least 1 byte.

    Parameters
    ----------
    size_mib : float or numpy.ndarray
        Sizes in MiB, above 0.

    Returns
    -------
    numpy.ndarray
        int64 byte counts.
    """
    return np.maximum(1, np.rint(np.asarray(size_mib, dtype=float) * MIB)).astype(np.int64)


def cap_to_bytes(cap_mib: float) -> int:
    """A bucket cap in bytes the way DDP converts ``bucket_cap_mb``: ``int(cap × 2^20)``, truncated.

    Parameters
    ----------
    cap_mib : float
        The cap in MiB.

    Returns
    -------
    int
        The cap in bytes.
    """
    return int(cap_mib * MIB)


def nice_step(duration: float) -> float:
    """The largest 1, 2 or 5 × 10^k that is at most a tenth of ``duration`` (10 to 25 Steps).

    Parameters
    ----------
    duration : float
        A positive time.

    Returns
    -------
    float
        The step size.
    """
    target = duration / 10
    exponent = int(np.floor(np.log10(target))) + 1
    while True:
        for mantissa in (5.0, 2.0, 1.0):
            value = mantissa * 10.0**exponent
            if value <= target * (1 + 1e-12):
                return value
        exponent -= 1


def preset_layers(name: str) -> str:
    """The Layers text of a preset.

    Parameters
    ----------
    name : str
        One of :data:`PRESETS`.

    Returns
    -------
    str
        Its ``size:time`` pairs in forward order.

    Raises
    ------
    KeyError
        If there is no such preset.
    """
    for preset, layers in PRESET_LAYERS:
        if preset == name:
            return layers
    raise KeyError(name)


def _default_step_end() -> float:
    sizes, times = parse_layers(preset_layers(EQUAL_LAYERS))
    return step_schedule(to_bytes(sizes), times, cap_to_bytes(1.0), cap_to_bytes(25.0), 8, 10.0, 0.0).step_end


class TimelineModel(TimedModel):
    """One data-parallel training step on one rank after DDP's bucket rebuild (times in ms).

    **Backward.** The network's layers are given in forward order, each with a gradient size and a
    backward time. Backward starts at t = 0 with the last layer and ends with the first; a layer's
    gradient is ready when its backward slot ends.

    **Buckets.** After the rebuild (iteration 2 on), gradients are bucketed in ready order by
    :func:`assign_buckets`: the first bucket closes once it holds at least the first bucket cap,
    every later one at the bucket cap, the last holds the rest. The first iteration instead
    reduces one bucket holding every gradient.

    **Straggler.** This rank is on time; the slowest rank produces every gradient d ms later, so
    every bucket is globally ready d ms after its last gradient here. A collective cannot start
    before every rank is ready, so on this rank the wait shows up as communication after backward.

    **All-reduce stream.** Buckets are reduced in bucket order on one stream: bucket k starts at
    ``max(ready_k, end_{k−1})`` and takes ``2(p−1)·α + 2(p−1)/p · n / B``.

    **Step.** It ends at ``max(backward end, last all-reduce end)``, when the optimizer may start;
    the exposed communication is ``step end − backward end`` on this rank (the slowest rank's
    backward ends d later: see :attr:`slowest_rank_exposed`). The no-overlap reference is backward,
    then one all-reduce of everything once all ranks are ready.

    **Time.** ``t`` is in ms since backward began; the horizon is the step end; one Step is
    :func:`nice_step` of the step (10 to 25 Steps per step). Editing a control keeps t, clamped.

    Every output is derived from the controls; nothing is stored but the controls and t.
    """

    controls = (
        "layers",
        "bucket_cap",
        "first_bucket_cap",
        "ranks",
        "bandwidth",
        "latency",
        "straggler",
        "preset",
        "iteration",
    )
    typed_controls = ("layers", "bucket_cap", "first_bucket_cap", "ranks", "bandwidth", "latency", "straggler")
    """The controls typed into a field: Layers as text, the others one number each."""
    number_controls = typed_controls[1:]
    """The controls typed as one number each."""
    choice_controls = ("preset", "iteration")
    """The controls chosen from a list (their ``objects``; Model's Custom is shown, not chosen)."""
    CUSTOM = CUSTOM

    t = param.Number(
        default=0.0,
        bounds=(0.0, None),
        doc="Elapsed time in ms since this rank's backward began; never past the horizon.",
    )
    step_size = param.Number(
        default=nice_step(_default_step_end()),
        bounds=(0.0, None),
        inclusive_bounds=(False, True),
        doc="Derived, kept in step with the controls: how far one Step advances t, in ms.",
    )
    horizon = param.Number(
        default=_default_step_end(),
        bounds=(0.0, None),
        inclusive_bounds=(False, True),
        doc="Derived, kept in step with the controls: the step end in ms, where Step and Play stop.",
    )
    preset = param.Selector(
        objects=[*PRESETS, CUSTOM],
        default=EQUAL_LAYERS,
        label="Model",
        doc=(
            "A preset network: choosing one writes its layers into Layers; editing Layers shows "
            f"{CUSTOM!r} unless the layers match a preset."
        ),
    )
    layers = param.String(
        default=preset_layers(EQUAL_LAYERS),
        label="Layers",
        doc="size:time pairs in forward order: each layer's gradient size in MiB and backward time in ms.",
    )
    bucket_cap = param.Number(
        default=25.0,
        bounds=(0.0, 1024.0),
        inclusive_bounds=(False, True),
        label="Bucket cap",
        doc="DDP's bucket_cap_mb in MiB: every bucket after the first closes once it holds at least this much.",
    )
    first_bucket_cap = param.Number(
        default=1.0,
        bounds=(0.0, 1024.0),
        inclusive_bounds=(False, True),
        label="First bucket cap",
        doc="The first bucket (the last layers' gradients) closes once it holds at least this many MiB.",
    )
    ranks = param.Number(
        default=8.0,
        bounds=(2.0, 4096.0),
        label="Ranks p",
        doc="p: how many ranks take part in each all-reduce; a whole number.",
    )
    bandwidth = param.Number(
        default=10.0,
        bounds=(0.01, 10000.0),
        label="Network bandwidth B",
        doc="B: network bandwidth per rank in decimal GB/s (10⁹ bytes/s).",
    )
    latency = param.Number(
        default=0.0,
        bounds=(0.0, 10000.0),
        label="Latency α",
        doc="α: the latency of one ring step in µs; a ring all-reduce takes 2(p−1) steps.",
    )
    straggler = param.Number(
        default=0.0,
        bounds=(0.0, 10000.0),
        label="Straggler delay",
        doc="d: the slowest rank produces every gradient d ms later than this rank, delaying every bucket.",
    )
    iteration = param.Selector(
        objects=list(ITERATIONS),
        default=AFTER_REBUILD,
        label="Iteration",
        doc="After the rebuild, buckets follow the observed ready order; the first iteration has one bucket.",
    )

    def __init__(self, **params):
        super().__init__(**params)
        if "layers" not in params and self.preset != CUSTOM:
            self.layers = preset_layers(self.preset)
        self._parsed_text: str | None = None
        self._parsed: tuple[np.ndarray, np.ndarray] = (np.empty(0), np.empty(0))
        self._memo_key: tuple | None = None
        self._memo: Schedule | None = None
        self._layer_arrays()  # refuse bad layers given to the constructor
        self.preset = self._matching_preset()
        self.param.watch(self._layers_changed, "layers")
        self.param.watch(self._preset_chosen, "preset")
        self.param.watch(self._controls_changed, list(self.controls))
        self._controls_changed()

    # ----- controls ------------------------------------------------------------------------------

    def parse(self, name: str, raw: object) -> float | str:
        """Turn what a student typed into a valid value for control ``name``, or refuse it.

        As :meth:`labs.timed.TimedModel.parse` for the numeric controls, except that Ranks p must
        be a whole number. Layers takes ``size:time`` text (see :func:`parse_layers`) and gives it
        back written the standard way; Model and Iteration take one of their choices.

        Parameters
        ----------
        name : str
            The parameter name of a control.
        raw : object
            The typed text, a number, or a choice.

        Returns
        -------
        float or str
            The value to set.

        Raises
        ------
        InvalidInput
            If the value is refused; the message says why and what is kept.
        """
        if name == "layers":
            return format_layers(*parse_layers(raw, kept="kept the previous layers"))
        if name in self.choice_controls:
            label = self.param[name].label
            current = getattr(self, name)
            choices = [c for c in self.param[name].objects if c != CUSTOM]
            text = raw.strip() if isinstance(raw, str) else raw
            if text not in choices:
                listed = " or ".join(repr(c) for c in choices)
                if text == CUSTOM:
                    raise InvalidInput(f"{label}: {CUSTOM!r} means edited layers; edit Layers, or choose {listed}.")
                raise InvalidInput(f"{label}: {str(raw).strip()!r} is not a choice; choose {listed}; kept {current!r}.")
            return text
        value = super().parse(name, raw)
        if name == "ranks" and not float(value).is_integer():
            raise InvalidInput(
                f"Ranks p must be a whole number of ranks, not {format_number(value)}; "
                f"{self.describe_range(name)}; kept {format_number(self.ranks)}."
            )
        return value

    def apply(self, name: str, raw: object) -> float | str:
        """Set control ``name`` from typed text, a number or a choice, keeping t; refuse bad input.

        Parameters
        ----------
        name : str
            The parameter name of a control listed in ``controls``.
        raw : object
            The typed text, a number, or a choice.

        Returns
        -------
        float or str
            The value now in force (Layers written the standard way).

        Raises
        ------
        InvalidInput
            If the value is refused; nothing changes then.
        """
        return super().apply(name, raw)

    def choose_preset(self, name: str) -> str:
        """Choose a preset network for the "Model" choice: its layers replace the Layers field.

        Parameters
        ----------
        name : str
            One of :data:`PRESETS`.

        Returns
        -------
        str
            The preset now in force.

        Raises
        ------
        InvalidInput
            If there is no such preset; nothing changes then.
        """
        return self.apply("preset", name)

    def reset(self) -> None:
        """Put every control back to its default and t back to 0 (horizon and step follow)."""
        super().reset()
        self._controls_changed()

    def _matching_preset(self) -> str:
        sizes, times = self._layer_arrays()
        for name, text in PRESET_LAYERS:
            preset_sizes, preset_times = parse_layers(text)
            if np.array_equal(to_bytes(sizes), to_bytes(preset_sizes)) and np.array_equal(times, preset_times):
                return name
        return CUSTOM

    def _layers_changed(self, _event: param.parameterized.Event) -> None:
        self.preset = self._matching_preset()

    def _preset_chosen(self, event: param.parameterized.Event) -> None:
        if event.new == CUSTOM:
            self.preset = self._matching_preset()  # Custom is what edited layers read as, not a choice
        else:
            self.layers = preset_layers(event.new)

    def _controls_changed(self, *_events: param.parameterized.Event) -> None:
        end = self.schedule.step_end
        self.param.update(horizon=end, step_size=nice_step(end), t=min(self.t, end))

    # ----- the network -----------------------------------------------------------------------------

    def _layer_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        if self._parsed_text != self.layers:
            self._parsed = parse_layers(self.layers)
            self._parsed_text = self.layers
        return self._parsed

    @property
    def layer_count(self) -> int:
        """L, the number of layers."""
        return len(self._layer_arrays()[0])

    @property
    def sizes_mib(self) -> np.ndarray:
        """Each layer's gradient size in MiB, forward order."""
        return self._layer_arrays()[0].copy()

    @property
    def backward_times(self) -> np.ndarray:
        """Each layer's backward time in ms, forward order."""
        return self._layer_arrays()[1].copy()

    @property
    def sizes_bytes(self) -> np.ndarray:
        """Each layer's gradient size in whole bytes (see :func:`to_bytes`), forward order."""
        return to_bytes(self._layer_arrays()[0])

    @property
    def total_bytes(self) -> int:
        """All gradients together, in bytes."""
        return int(self.sizes_bytes.sum())

    @property
    def first_cap_bytes(self) -> int:
        """The first bucket's limit in bytes."""
        return cap_to_bytes(self.first_bucket_cap)

    @property
    def cap_bytes(self) -> int:
        """Every later bucket's limit in bytes."""
        return cap_to_bytes(self.bucket_cap)

    @property
    def first_iteration(self) -> bool:
        """Whether the first iteration (one bucket) is shown."""
        return self.iteration == FIRST_ITERATION

    # ----- the step ------------------------------------------------------------------------------

    def _schedule_for(self, cap: int) -> Schedule:
        sizes, times = self._layer_arrays()
        return step_schedule(
            to_bytes(sizes),
            times,
            self.first_cap_bytes,
            cap,
            self.ranks,
            self.bandwidth,
            self.latency,
            self.straggler,
            one_bucket=self.first_iteration,
        )

    @property
    def schedule(self) -> Schedule:
        """The whole timeline under the current controls (computed once per set of controls)."""
        key = tuple(getattr(self, name) for name in self.controls)
        if key != self._memo_key or self._memo is None:
            self._memo = self._schedule_for(self.cap_bytes)
            self._memo_key = key
        return self._memo

    @property
    def buckets(self) -> tuple[Bucket, ...]:
        """The buckets in bucket order (the order they are reduced): layers, size, ready, start, end."""
        s = self.schedule
        return tuple(
            Bucket(
                layers=layers,
                nbytes=int(s.bucket_bytes[k]),
                mib=float(s.bucket_bytes[k] / MIB),
                ready=float(s.bucket_ready[k]),
                start=float(s.bucket_start[k]),
                end=float(s.bucket_end[k]),
            )
            for k, layers in enumerate(s.buckets)
        )

    @property
    def bucket_count(self) -> int:
        """K, the number of buckets."""
        return len(self.schedule.buckets)

    @property
    def bucket_bytes(self) -> np.ndarray:
        """Each bucket's size in bytes."""
        return self.schedule.bucket_bytes.copy()

    @property
    def bucket_mib(self) -> np.ndarray:
        """Each bucket's size in MiB."""
        return self.schedule.bucket_bytes / MIB

    @property
    def bucket_ready(self) -> np.ndarray:
        """When each bucket is ready on every rank, in ms."""
        return self.schedule.bucket_ready.copy()

    @property
    def bucket_start(self) -> np.ndarray:
        """When each bucket's all-reduce starts, in ms."""
        return self.schedule.bucket_start.copy()

    @property
    def bucket_end(self) -> np.ndarray:
        """When each bucket's all-reduce ends, in ms."""
        return self.schedule.bucket_end.copy()

    @property
    def bucket_cost(self) -> np.ndarray:
        """How long each bucket's all-reduce takes, in ms."""
        return self.schedule.bucket_end - self.schedule.bucket_start

    @property
    def backward_end(self) -> float:
        """When this rank's backward ends, in ms: the sum of the backward times."""
        return self.schedule.backward_end

    @property
    def step_time(self) -> float:
        """The step end in ms: max(backward end, last all-reduce end), when the optimizer may start."""
        return self.schedule.step_end

    @property
    def exposed(self) -> float:
        """Exposed communication in ms: step end − backward end on this rank."""
        return self.schedule.step_end - self.schedule.backward_end

    @property
    def exposed_interval(self) -> tuple[float, float]:
        """The exposed tail ``(backward end, step end)`` in ms, for shading."""
        return self.schedule.backward_end, self.schedule.step_end

    @property
    def comm_time(self) -> float:
        """The all-reduce stream's busy time in ms: the sum of every bucket's all-reduce."""
        return float(self.bucket_cost.sum())

    @property
    def no_overlap_step(self) -> float:
        """The reference step without overlap, in ms: backward, then one all-reduce of everything."""
        return self.schedule.no_overlap_step

    @property
    def slowest_backward_end(self) -> float:
        """When the slowest rank's backward ends, in ms: this rank's backward end plus the straggler delay."""
        return self.schedule.backward_end + self.straggler

    @property
    def slowest_rank_exposed(self) -> float:
        """Exposed communication on the slowest rank, in ms: step end − its backward end."""
        return max(0.0, self.schedule.step_end - self.slowest_backward_end)

    def bucket_table(self) -> dict[str, np.ndarray]:
        """The buckets as a table, one row each, for reading exact numbers.

        Returns
        -------
        dict of str to numpy.ndarray
            ``"bucket"`` (1, 2, ...), ``"layers"`` (the layers it holds, numbered from 1 in forward
            order, as text such as ``"8, 7"``), ``"mib"``, ``"bytes"``, ``"ready"``, ``"start"``,
            ``"end"`` and ``"cost"`` (ms).
        """
        s = self.schedule
        return {
            "bucket": np.arange(1, len(s.buckets) + 1),
            "layers": np.array([", ".join(str(i + 1) for i in b) for b in s.buckets]),
            "mib": s.bucket_bytes / MIB,
            "bytes": s.bucket_bytes.copy(),
            "ready": s.bucket_ready.copy(),
            "start": s.bucket_start.copy(),
            "end": s.bucket_end.copy(),
            "cost": s.bucket_end - s.bucket_start,
        }

    def intervals(self) -> dict[str, dict[str, np.ndarray]]:
        """The Gantt bars of the step, to draw and clip at t.

        Returns
        -------
        dict
            ``"compute"``: one bar per layer's backward, in the order they run (last layer
            first), with ``"start"``, ``"end"`` (ms), ``"layer"`` (its number from 1 in forward
            order) and ``"label"`` (``"layer 8"``). ``"comm"``: one bar per bucket's all-reduce,
            in bucket order, with ``"start"``, ``"end"``, ``"ready"`` (ms), ``"bucket"`` (from 1),
            ``"mib"`` and ``"label"`` (``"8 MiB"``). ``"exposed"``: the tail after backward, one
            bar from backward end to step end, labelled ``"exposed"``.
        """
        s = self.schedule
        order = np.arange(len(s.layer_end))[::-1]
        mib = s.bucket_bytes / MIB
        return {
            "compute": {
                "start": s.layer_start[order],
                "end": s.layer_end[order],
                "layer": order + 1,
                "label": np.array([f"layer {i + 1}" for i in order]),
            },
            "comm": {
                "start": s.bucket_start.copy(),
                "end": s.bucket_end.copy(),
                "ready": s.bucket_ready.copy(),
                "bucket": np.arange(1, len(s.buckets) + 1),
                "mib": mib,
                "label": np.array([f"{format_number(float(m))} MiB" for m in mib]),
            },
            "exposed": {
                "start": np.array([s.backward_end]),
                "end": np.array([s.step_end]),
                "label": np.array(["exposed"]),
            },
        }

    def trajectory(self) -> dict[str, np.ndarray]:
        """Breakpoints of the step's progress from t = 0 to the step end (exact under linear interpolation).

        Returns
        -------
        dict of str to numpy.ndarray
            ``"t"`` in ms at 0, every backward slot's end, every all-reduce's start and end, and
            the horizon; ``"backward_pct"``, the percent of this rank's backward done;
            ``"reduced_mib"``, the MiB all-reduced so far (each bucket's bytes counted linearly
            over its all-reduce); and ``"reduced_pct"``, the same as a percent of all gradients.
        """
        s = self.schedule
        t = np.unique(np.concatenate([[0.0, self.horizon], s.layer_end, s.bucket_start, s.bucket_end]))
        t = t[(t >= 0) & (t <= self.horizon)]
        backward = np.ones_like(t) if s.backward_end <= 0 else np.minimum(t, s.backward_end) / s.backward_end
        cost = s.bucket_end - s.bucket_start
        with np.errstate(divide="ignore", invalid="ignore"):
            fraction = np.where(
                cost[:, None] > 0,
                np.clip((t[None, :] - s.bucket_start[:, None]) / cost[:, None], 0.0, 1.0),
                (t[None, :] >= s.bucket_end[:, None]).astype(float),
            )
        reduced = (fraction * s.bucket_bytes[:, None]).sum(axis=0)
        total = float(s.bucket_bytes.sum())
        return {
            "t": t,
            "backward_pct": 100.0 * backward,
            "reduced_mib": reduced / MIB,
            "reduced_pct": 100.0 * reduced / total,
        }

    def step_time_sweep(self, caps_mib: list[float] | np.ndarray | None = None) -> Sweep:
        """The step under every other control as it is, for a range of bucket caps.

        In the first iteration every cap gives the same one-bucket step. Exposed time at a cap is
        its step minus :attr:`backward_end`, which no cap changes.

        Parameters
        ----------
        caps_mib : sequence of float, optional
            Bucket caps in MiB, each above 0; by default :data:`SWEEP_CAPS_MIB`, 0.25 to 1024 MiB.

        Returns
        -------
        Sweep
            ``(cap_mib, step)``: the caps and the step time in ms at each.
        """
        caps = np.array(SWEEP_CAPS_MIB if caps_mib is None else caps_mib, dtype=float)
        steps = np.array([self._schedule_for(cap_to_bytes(float(cap))).step_end for cap in caps])
        return Sweep(cap_mib=caps, step=steps)
