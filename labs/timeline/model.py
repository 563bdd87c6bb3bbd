"""The bucket timeline: one data-parallel training step on one rank, and what breaks its overlap.

Imports only param and numpy (and the pure modules beside it: the Layers field's language in
:mod:`labs.timeline.layers`, the presets in :mod:`labs.timeline.presets`, and DDP's bucket layouts
and the step's event simulation in :mod:`labs.timeline.schedule`, which this model feeds with its
controls).

Units: gradient sizes in MiB (2^20 bytes), bucket caps in MiB, backward times and every time on
the timeline in milliseconds, network bandwidth B in decimal GB/s (10^9 bytes/s), latency α in
microseconds per ring step.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import param

from labs.timed import InvalidInput, TimedModel, format_number
from labs.timeline.layers import (
    MAX_LAYERS,
    MIB,
    SIZE_RANGE_MIB,
    TIME_RANGE_MS,
    cap_to_bytes,
    format_layers,
    parse_layers,
    to_bytes,
)
from labs.timeline.presets import (
    CUSTOM,
    EMBEDDING_FIRST,
    EQUAL_LAYERS,
    PRESET_LAYERS,
    PRESETS,
    matching_preset,
    preset_layers,
)
from labs.timeline.schedule import FIRST_ITERATION as FIRST_LAYOUT
from labs.timeline.schedule import REBUILT, REGISTRATION, Effects, Schedule, step_end, step_schedule

__all__ = [
    "AFTER_REBUILD",
    "CUSTOM",
    "DEFAULT_CAPS",
    "EMBEDDING_FIRST",
    "EQUAL_LAYERS",
    "FIND_UNUSED",
    "FIRST_ITERATION",
    "ITERATIONS",
    "MAX_LAYERS",
    "MIB",
    "NONE",
    "PRESETS",
    "PRESET_LAYERS",
    "SIZE_RANGE_MIB",
    "SWEEP_CAPS_MIB",
    "TIME_RANGE_MS",
    "Bucket",
    "Sweep",
    "TimelineModel",
    "format_layers",
    "nice_step",
    "parse_layers",
    "preset_layers",
    "to_bytes",
]

AFTER_REBUILD = "After the bucket rebuild (iteration 2 on)"
FIRST_ITERATION = "First iteration (one bucket)"
FIND_UNUSED = "find_unused_parameters=True (registration order, never rebuilt)"
ITERATIONS = (AFTER_REBUILD, FIRST_ITERATION, FIND_UNUSED)
LAYOUT_OF = {AFTER_REBUILD: REBUILT, FIRST_ITERATION: FIRST_LAYOUT, FIND_UNUSED: REGISTRATION}
"""The bucket layout (:mod:`labs.timeline.schedule`) each Iteration choice shows."""

DEFAULT_CAPS = (1.0, 25.0)
"""DDP's caps when ``bucket_cap_mb`` is not given: a 1 MiB first bucket, 25 MiB after it."""

NONE = "none"
"""How the Missing event and Rank skips a gradient choices read when off."""

SWEEP_CAPS_MIB: tuple[float, ...] = tuple(0.25 * 2 ** (k / 4) for k in range(49))
"""The default bucket caps of :meth:`TimelineModel.step_time_sweep`: 0.25 to 1024 MiB, 4 per octave."""

_ON = frozenset({"on", "yes", "true", "1", "checked"})
_OFF = frozenset({"off", "no", "false", "0", "unchecked"})


class Bucket(NamedTuple):
    """One bucket of the step and its all-reduce (times in ms; ``inf`` for a time that never comes).

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
    issue : float
        When the host issues its all-reduce.
    start, end : float
        Its all-reduce on the communication stream.
    """

    layers: tuple[int, ...]
    nbytes: int
    mib: float
    ready: float
    issue: float
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
        The step time in ms at each cap, every other control as it is (``inf`` where the step hangs).
    """

    cap_mib: np.ndarray
    step: np.ndarray


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


def _default_step_end() -> float:
    sizes, times = parse_layers(preset_layers(EQUAL_LAYERS))
    return step_schedule(to_bytes(sizes), times, cap_to_bytes(1.0), cap_to_bytes(25.0), 8, 10.0, 0.0).step_end


def _durations(s: Schedule) -> np.ndarray:
    """Each bucket's all-reduce time: ``inf`` for one that never ends, ``nan`` for one never started."""
    with np.errstate(invalid="ignore"):
        return s.bucket_end - s.bucket_start


def _numbered(word: str, value: int | None) -> str:
    return NONE if value is None else f"{word} {value}"


class TimelineModel(TimedModel):
    """One data-parallel training step on one rank, DDP's buckets and what breaks the overlap (ms).

    **Backward.** The network's layers are given in forward order, each with a gradient size and a
    backward time. Backward starts at t = 0 with the last layer and ends with the first; a layer's
    gradient is written when its backward slot ends.

    **Buckets** (the Iteration choice). After the rebuild (iteration 2 on), gradients are bucketed in
    ready order: the first bucket closes once it holds at least the first bucket cap, every later
    one at the bucket cap, the last holds the rest. The first iteration reduces one bucket holding
    every gradient. With ``find_unused_parameters=True`` the buckets are assigned over the layers in
    registration (forward) order and the list reversed, and never rebuilt: the first cap falls on the
    first layers, whose bucket is reduced last.

    **Straggler.** This rank is on time; the slowest rank produces every gradient d ms later, so
    every bucket is globally ready d ms after its last gradient here.

    **Host and stream.** The host issues bucket k at ``max(ready_k, issue_{k−1}) + g`` (launch gap
    g); its all-reduce starts at ``max(issue_k, end_{k−1})`` on the one stream and needs
    ``2(p−1)·α + 2(p−1)/p · n / B`` of solo time.

    **What breaks the ideal** (:class:`labs.timeline.schedule.Effects`): contention (backward at
    1/s_c of its rate while an all-reduce is in flight, the all-reduce at 1/s_m while backward
    runs), a missing event on one bucket (issued without waiting for its gradients), an optimizer
    that does not wait, a synchronization after every bucket (backward stops while each runs), and
    a rank that skips one layer's gradient (the step hangs unless the reducer marks unused
    gradients ready, as with ``find_unused_parameters=True``).

    **Step.** The optimizer starts at ``max(backward end, last all-reduce end)`` (at backward end if
    it does not wait); exposed communication is ``step end − backward end``. A result is invalid
    when an all-reduce read a gradient before every rank wrote it or the optimizer read one before
    its all-reduce ended. The no-overlap reference is backward, then one all-reduce of everything.

    **Time.** ``t`` is in ms since backward began; the horizon is the end of everything drawn (the
    step end, or the end of an all-reduce the optimizer did not wait for, or a stretch past the
    last event of a step that hangs); one Step is :func:`nice_step` of it. Editing a control keeps
    t, clamped.

    Every output is derived from the controls; the horizon and the step size are kept in step with
    them by one reaction (the shared transport reads them as parameters).
    """

    controls = (
        "layers",
        "bucket_cap",
        "first_bucket_cap",
        "ranks",
        "bandwidth",
        "latency",
        "straggler",
        "compute_slowdown",
        "comm_slowdown",
        "launch_gap",
        "preset",
        "iteration",
        "missing_event",
        "skipped_layer",
        "optimizer_waits",
        "sync_each",
    )
    typed_controls = (
        "layers",
        "bucket_cap",
        "first_bucket_cap",
        "ranks",
        "bandwidth",
        "latency",
        "straggler",
        "compute_slowdown",
        "comm_slowdown",
        "launch_gap",
    )
    """The controls typed into a field: Layers as text, the others one number each."""
    number_controls = typed_controls[1:]
    """The controls typed as one number each."""
    choice_controls = ("preset", "iteration", "missing_event", "skipped_layer")
    """The controls chosen from a list (Model's Custom is shown, not chosen)."""
    numbered_choices = {"missing_event": "bucket", "skipped_layer": "layer"}
    """The choices of a bucket or a layer by its number ("none", "bucket 1", ...), and their word."""
    switch_controls = ("optimizer_waits", "sync_each")
    """The controls that are on or off (checkboxes)."""
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
        doc="Derived, kept in step with the controls: the end of what is drawn in ms, where Step and Play stop.",
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
    compute_slowdown = param.Number(
        default=1.0,
        bounds=(1.0, 100.0),
        label="Compute slowdown while communicating",
        doc="s_c: while an all-reduce is in flight, backward runs at 1/s_c of its solo speed (1 = no contention).",
    )
    comm_slowdown = param.Number(
        default=1.0,
        bounds=(1.0, 100.0),
        label="Communication slowdown while computing",
        doc="s_m: while backward runs, an all-reduce runs at 1/s_m of its solo speed (1 = no contention).",
    )
    launch_gap = param.Number(
        default=0.0,
        bounds=(0.0, 10000.0),
        label="Launch gap",
        doc="g: the host spends g ms issuing each all-reduce, after its bucket is ready and the last one was issued.",
    )
    iteration = param.Selector(
        objects=list(ITERATIONS),
        default=AFTER_REBUILD,
        label="Iteration",
        doc=(
            "After the rebuild, buckets follow the observed ready order; the first iteration has one "
            "bucket; find_unused_parameters=True keeps the registration-order layout, reversed."
        ),
    )
    missing_event = param.Integer(
        default=None,
        allow_None=True,
        bounds=(1, MAX_LAYERS),
        label="Missing event",
        doc="A bucket whose all-reduce is issued without waiting for its gradients (none: every one waits).",
    )
    skipped_layer = param.Integer(
        default=None,
        allow_None=True,
        bounds=(1, MAX_LAYERS),
        label="Rank skips a gradient",
        doc="A layer whose gradient one other rank never produces (a rank-dependent branch); none: every rank does.",
    )
    optimizer_waits = param.Boolean(
        default=True,
        label="Optimizer waits for the all-reduce",
        doc="On: the optimizer starts once the last all-reduce ends. Off: it starts when backward ends.",
    )
    sync_each = param.Boolean(
        default=False,
        label="Synchronize after every bucket",
        doc="On: backward stops while each all-reduce runs (a global synchronization after each collective).",
    )

    def __init__(self, **params):
        preset = params.get("preset", EQUAL_LAYERS)
        if "layers" not in params and preset != CUSTOM:
            params["layers"] = preset_layers(preset)
        self._parsed_text: str | None = None
        self._parsed: tuple[np.ndarray, np.ndarray] = (np.empty(0), np.empty(0))
        self._memo: dict[str, tuple[tuple, object]] = {}
        super().__init__(**params)
        self._layer_arrays()  # refuse bad layers given to the constructor
        self.preset = matching_preset(*self._layer_arrays())
        self._controls_changed()

    # ----- controls ------------------------------------------------------------------------------

    def parse(self, name: str, raw: object) -> float | str | int | bool | None:
        """Turn what a student typed or chose into a valid value for control ``name``, or refuse it.

        As :meth:`labs.timed.TimedModel.parse` for the numeric controls, except that Ranks p must
        be a whole number. Layers takes ``size:time`` text (see :func:`parse_layers`) and gives it
        back written the standard way; Model and Iteration take one of their choices; Missing
        event and Rank skips a gradient take ``"none"``, ``"bucket 2"`` / ``"layer 2"`` or the number;
        the switches take True or False (or on/off).

        Parameters
        ----------
        name : str
            The parameter name of a control.
        raw : object
            The typed text, a number, a choice or a switch's state.

        Returns
        -------
        float, str, int, bool or None
            The value to set.

        Raises
        ------
        InvalidInput
            If the value is refused; the message says why and what is kept.
        """
        if name == "layers":
            return format_layers(*parse_layers(raw, kept="kept the previous layers"))
        if name in self.numbered_choices:
            return self._parse_numbered(name, raw)
        if name in self.switch_controls:
            return self._parse_switch(name, raw)
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

    def _parse_numbered(self, name: str, raw: object) -> int | None:
        word = self.numbered_choices[name]
        label = self.param[name].label
        count = self.bucket_count if word == "bucket" else self.layer_count
        kept = f"kept {self.choice_text(name)}"
        if raw is None or (isinstance(raw, str) and raw.strip().lower() in {NONE, ""}):
            return None
        text = raw.strip().lower().removeprefix(word).strip() if isinstance(raw, str) else raw
        if isinstance(text, bool) or not (isinstance(text, int) or (isinstance(text, str) and text.isdigit())):
            raise InvalidInput(
                f"{label}: {str(raw).strip()!r} is not a choice; choose none or a {word} by number; {kept}."
            )
        number = int(text)
        if not 1 <= number <= count:
            raise InvalidInput(f"{label}: there is no {word} {number}; this step has {count} {word}s; {kept}.")
        return number

    def _parse_switch(self, name: str, raw: object) -> bool:
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in _ON or text in _OFF:
            return text in _ON
        state = "on" if getattr(self, name) else "off"
        raise InvalidInput(f"{self.param[name].label}: {str(raw).strip()!r} is neither on nor off; kept {state}.")

    def choice_text(self, name: str) -> str:
        """A numbered choice as its select shows it: ``"none"``, ``"bucket 2"``, ``"layer 5"``.

        Parameters
        ----------
        name : str
            ``"missing_event"`` or ``"skipped_layer"``.

        Returns
        -------
        str
            The option's text.
        """
        return _numbered(self.numbered_choices[name], getattr(self, name))

    def choice_options(self, name: str) -> list[str]:
        """Every option a numbered choice has now: ``"none"``, then each bucket or layer.

        Parameters
        ----------
        name : str
            ``"missing_event"`` or ``"skipped_layer"``.

        Returns
        -------
        list of str
            The options' texts.
        """
        word = self.numbered_choices[name]
        count = self.bucket_count if word == "bucket" else self.layer_count
        return [NONE, *(f"{word} {k}" for k in range(1, count + 1))]

    def apply(self, name: str, raw: object) -> float | str | int | bool | None:
        """Set control ``name`` from typed text, a number or a choice, keeping t; refuse bad input.

        Parameters
        ----------
        name : str
            The parameter name of a control listed in ``controls``.
        raw : object
            The typed text, a number, a choice or a switch's state.

        Returns
        -------
        float, str, int, bool or None
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

    @param.depends("layers", watch=True)
    def _layers_changed(self) -> None:
        self.preset = matching_preset(*self._layer_arrays())

    @param.depends("preset", watch=True)
    def _preset_chosen(self) -> None:
        if self.preset == CUSTOM:
            self.preset = matching_preset(*self._layer_arrays())  # Custom is what edited layers read as
        else:
            self.layers = preset_layers(self.preset)

    @param.depends(*controls, watch=True)
    def _controls_changed(self) -> None:
        gone = {}
        if self.missing_event is not None and self.missing_event > self.bucket_count:
            gone["missing_event"] = None  # that bucket no longer exists
        if self.skipped_layer is not None and self.skipped_layer > self.layer_count:
            gone["skipped_layer"] = None
        if gone:
            self.param.update(**gone)  # comes back here once more
            return
        end = self.display_end
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

    @property
    def ddp_call(self) -> str:
        """Which DDP call gives the current caps, in words (PyTorch 2.13, checked by the fixtures).

        ``bucket_cap_mb`` left unset gives 25 MiB buckets after a 1 MiB first one; an explicit
        ``bucket_cap_mb`` caps every bucket, the first included.
        """
        first, cap = self.first_bucket_cap, self.bucket_cap
        if (first, cap) == DEFAULT_CAPS:
            return "DDP(model): bucket_cap_mb unset gives a 1 MiB first bucket, then 25 MiB buckets"
        if first == cap:
            return f"DDP(model, bucket_cap_mb={format_number(cap)}): an explicit cap applies to the first bucket too"
        return (
            "No DDP call gives these two caps: bucket_cap_mb unset gives 1 and 25 MiB, and an explicit "
            "bucket_cap_mb sets the first bucket's cap too"
        )

    # ----- the step ------------------------------------------------------------------------------

    @property
    def effects(self) -> Effects:
        """What breaks the ideal overlap, from the controls (indices from 0)."""
        return Effects(
            compute_slowdown=self.compute_slowdown,
            comm_slowdown=self.comm_slowdown,
            launch_gap=self.launch_gap,
            missing_event=None if self.missing_event is None else self.missing_event - 1,
            optimizer_waits=self.optimizer_waits,
            sync_each=self.sync_each,
            skipped_layer=None if self.skipped_layer is None else self.skipped_layer - 1,
            marks_unused=self.iteration == FIND_UNUSED,
        )

    def _schedule_for(self, cap: int, effects: Effects | None = None) -> Schedule:
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
            layout=LAYOUT_OF[self.iteration],
            effects=self.effects if effects is None else effects,
        )

    def _memoized(self, what: str, names: tuple[str, ...], compute):
        key = tuple(getattr(self, name) for name in names)
        held = self._memo.get(what)
        if held is None or held[0] != key:
            held = self._memo[what] = (key, compute())
        return held[1]

    @property
    def schedule(self) -> Schedule:
        """The whole timeline under the current controls (computed once per set of controls)."""
        return self._memoized("schedule", self.controls, lambda: self._schedule_for(self.cap_bytes))

    @property
    def buckets(self) -> tuple[Bucket, ...]:
        """The buckets in bucket order (the order they are reduced): layers, size, ready, issue, start, end."""
        s = self.schedule
        return tuple(
            Bucket(
                layers=layers,
                nbytes=int(s.bucket_bytes[k]),
                mib=float(s.bucket_bytes[k] / MIB),
                ready=float(s.bucket_ready[k]),
                issue=float(s.bucket_issue[k]),
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
    def bucket_issue(self) -> np.ndarray:
        """When the host issues each bucket's all-reduce, in ms."""
        return self.schedule.bucket_issue.copy()

    @property
    def bucket_start(self) -> np.ndarray:
        """When each bucket's all-reduce starts, in ms (``inf``: never)."""
        return self.schedule.bucket_start.copy()

    @property
    def bucket_end(self) -> np.ndarray:
        """When each bucket's all-reduce ends, in ms (``inf``: never)."""
        return self.schedule.bucket_end.copy()

    @property
    def bucket_cost(self) -> np.ndarray:
        """How long each bucket's all-reduce takes, in ms (``inf``: never ends; ``nan``: never starts)."""
        return _durations(self.schedule)

    @property
    def backward_end(self) -> float:
        """When this rank's backward ends, in ms (the sum of the backward times, without contention)."""
        return self.schedule.backward_end

    @property
    def backward_lost(self) -> float:
        """Backward time lost to contention, in ms: its length minus its solo time and its stalls."""
        return self.schedule.backward_lost

    @property
    def backward_stalled(self) -> float:
        """How long backward stood still for synchronizations, in ms."""
        return self.schedule.backward_stalled

    @property
    def hangs(self) -> bool:
        """Whether the step hangs: an all-reduce that one rank never issues."""
        return self.schedule.hangs

    @property
    def hung_bucket(self) -> int | None:
        """The bucket (numbered from 1) whose all-reduce never completes, or None."""
        hung = self.schedule.hung_bucket
        return None if hung is None else hung + 1

    @property
    def completed(self) -> int:
        """How many all-reduces complete (all of them unless the step hangs)."""
        return self.schedule.completed

    @property
    def valid(self) -> bool:
        """Whether every all-reduce read written gradients and the optimizer read reduced ones."""
        return self.schedule.valid

    @property
    def read_early(self) -> tuple[int, ...]:
        """Layers (numbered from 1) whose gradient an all-reduce read before every rank wrote it."""
        return tuple(i + 1 for i in self.schedule.read_early)

    @property
    def optimizer_early(self) -> tuple[int, ...]:
        """Layers (numbered from 1) whose gradient the optimizer read before their all-reduce ended."""
        return tuple(i + 1 for i in self.schedule.optimizer_early)

    @property
    def step_time(self) -> float:
        """The step end in ms: when the optimizer starts (``inf`` when the step hangs)."""
        return self.schedule.step_end

    @property
    def exposed(self) -> float:
        """Exposed communication in ms: step end − backward end on this rank (``inf`` when it hangs)."""
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

    @property
    def straggler_wait(self) -> float:
        """Of this rank's exposed time, the part spent waiting for the slowest rank's gradients, in ms.

        The rest, :attr:`slowest_rank_exposed`, is what the slowest rank itself sees after its
        backward: communication the network still had to do.
        """
        return self.exposed - self.slowest_rank_exposed

    @property
    def read_early_count(self) -> int:
        """How many layers' gradients an all-reduce read before every rank had written them."""
        return len(self.schedule.read_early)

    @property
    def optimizer_early_count(self) -> int:
        """How many layers' gradients the optimizer read before their all-reduce ended."""
        return len(self.schedule.optimizer_early)

    @property
    def display_end(self) -> float:
        """Where the drawn timeline ends, in ms: the last thing that happens (past it, for a hang)."""
        s = self.schedule
        times = np.concatenate([s.layer_end, s.bucket_issue, s.bucket_start, s.bucket_end, [s.backward_end]])
        last = float(times[np.isfinite(times)].max(initial=0.0))
        if s.hangs:
            return max(last * 1.25, last + 1.0)
        return max(last, s.step_end) if last > 0 else 1.0

    def bucket_table(self) -> dict[str, np.ndarray]:
        """The buckets as a table, one row each, for reading exact numbers.

        Returns
        -------
        dict of str to numpy.ndarray
            ``"bucket"`` (1, 2, ...), ``"layers"`` (the layers it holds, numbered from 1 in forward
            order, as text such as ``"8, 7"``), ``"mib"``, ``"bytes"``, ``"ready"``, ``"issue"``,
            ``"start"``, ``"end"`` and ``"cost"`` (ms; ``inf`` for what never happens), and
            ``"note"``: what went wrong with it, if anything (``""`` otherwise).
        """
        s = self.schedule
        return {
            "bucket": np.arange(1, len(s.buckets) + 1),
            "layers": np.array([", ".join(str(i + 1) for i in b) for b in s.buckets]),
            "mib": s.bucket_bytes / MIB,
            "bytes": s.bucket_bytes.copy(),
            "ready": s.bucket_ready.copy(),
            "issue": s.bucket_issue.copy(),
            "start": s.bucket_start.copy(),
            "end": s.bucket_end.copy(),
            "cost": _durations(s),
            "note": np.array([self._bucket_note(k) for k in range(len(s.buckets))]),
        }

    def _bucket_note(self, k: int) -> str:
        s = self.schedule
        layers = s.buckets[k]
        early = [i for i in layers if i in s.read_early]
        if early:
            return "read early: " + ", ".join(f"layer {i + 1}" for i in sorted(early))
        if s.hung_bucket == k:
            return f"never completes: a rank never produces layer {self.skipped_layer}'s gradient"
        if s.hung_bucket is not None and k > s.hung_bucket:
            return f"never starts: queued behind bucket {s.hung_bucket + 1}"
        if any(i in s.optimizer_early for i in layers):
            return "the optimizer read it before this all-reduce ended"
        return ""

    def intervals(self) -> dict[str, dict[str, np.ndarray]]:
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
        s = self.schedule
        horizon = self.horizon
        order = np.arange(len(s.layer_end))[::-1]
        began = np.isfinite(s.bucket_start)
        mib = s.bucket_bytes / MIB
        states = np.array([self._bucket_state(k) for k in range(len(s.buckets))])
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

    def _bucket_state(self, k: int) -> str:
        s = self.schedule
        if any(i in s.read_early for i in s.buckets[k]):
            return "read early"
        if s.hung_bucket == k:
            return "hung"
        if not s.hangs and s.bucket_end[k] > s.optimizer_start:
            return "unfinished"
        return "done"

    def trajectory(self) -> dict[str, np.ndarray]:
        """Breakpoints of the step's progress from t = 0 to the horizon (exact under linear interpolation).

        Returns
        -------
        dict of str to numpy.ndarray
            ``"t"`` in ms at 0, every point where a rate changes (slot ends, all-reduce starts and
            ends, contention's edges) and the horizon; ``"backward_pct"``, the percent of this
            rank's backward work done; ``"reduced_mib"``, the MiB all-reduced so far; and
            ``"reduced_pct"``, the same as a percent of all gradients.
        """
        s = self.schedule
        t = np.concatenate([[0.0, self.horizon], s.layer_end, s.bucket_start, s.bucket_end, s.progress_t, s.reduced_t])
        t = np.unique(t[np.isfinite(t) & (t >= 0) & (t <= self.horizon)])
        work = np.interp(t, s.progress_t, s.progress_work)
        backward = np.ones_like(t) if s.backward_solo <= 0 else work / s.backward_solo
        reduced = np.interp(t, s.reduced_t, s.reduced_bytes)
        total = float(s.bucket_bytes.sum())
        return {
            "t": t,
            "backward_pct": 100.0 * backward,
            "reduced_mib": reduced / MIB,
            "reduced_pct": 100.0 * reduced / total,
        }

    def step_time_sweep(self, caps_mib: list[float] | np.ndarray | None = None) -> Sweep:
        """The step under every other control as it is, for a range of bucket caps.

        In the first iteration every cap gives the same one-bucket step. A missing event names a
        bucket of the current layout, so the sweep leaves it out (every bucket waits); every other
        control counts. Where the step hangs the sweep reads ``inf``.

        Parameters
        ----------
        caps_mib : sequence of float, optional
            Bucket caps in MiB, each above 0; by default :data:`SWEEP_CAPS_MIB`, 0.25 to 1024 MiB
            (computed once per set of the other controls).

        Returns
        -------
        Sweep
            ``(cap_mib, step)``: the caps and the step time in ms at each.
        """

        def compute() -> Sweep:
            caps = np.array(SWEEP_CAPS_MIB if caps_mib is None else caps_mib, dtype=float)
            effects = self.effects._replace(missing_event=None)
            sizes, times = self._layer_arrays()
            fixed = (to_bytes(sizes), times, self.first_cap_bytes)
            network = (self.ranks, self.bandwidth, self.latency, self.straggler, LAYOUT_OF[self.iteration], effects)
            steps = np.array([step_end(*fixed, cap_to_bytes(float(cap)), *network) for cap in caps])
            return Sweep(cap_mib=caps, step=steps)

        if caps_mib is not None:
            return compute()
        others = tuple(name for name in self.controls if name not in ("bucket_cap", "missing_event"))
        return self._memoized("sweep", others, compute)
