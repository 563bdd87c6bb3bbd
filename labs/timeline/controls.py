"""What a student can set in the bucket timeline lab, and how what they type or choose is read.

:class:`TimelineControls` declares every control (bounds, labels, docs) and turns typed text and
choices into values or refusals; :class:`labs.timeline.model.TimelineModel` adds what follows from
them. Imports only param and numpy (and the pure modules beside it).
"""

from __future__ import annotations

import param

from labs.timed import InvalidInput, TimedModel, format_number
from labs.timeline.choices import (
    AFTER_REBUILD,
    DEFAULT_CAPS,
    FIND_UNUSED,
    FIRST_ITERATION,
    ITERATIONS,
    LIBRARIES,
    MPI_NO_PROGRESS,
    MPI_PROGRESS,
    NCCL,
    NONE,
    default_step_end,
    layers_kept,
    layout_of,
    nice_step,
    numbered,
    parse_numbered,
    parse_switch,
)
from labs.timeline.layers import MAX_LAYERS, format_layers, parse_layers
from labs.timeline.presets import CUSTOM, EQUAL_LAYERS, PRESETS, preset_layers

__all__ = [
    "AFTER_REBUILD",
    "DEFAULT_CAPS",
    "FIND_UNUSED",
    "FIRST_ITERATION",
    "ITERATIONS",
    "LIBRARIES",
    "MPI_NO_PROGRESS",
    "MPI_PROGRESS",
    "NCCL",
    "NONE",
    "TimelineControls",
    "layout_of",
    "nice_step",
]


class TimelineControls(TimedModel):
    """The bucket timeline's controls and their text forms (see :class:`~labs.timeline.model.TimelineModel`).

    A subclass provides ``bucket_count`` and ``layer_count``, which bound the numbered choices.
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
        "machine_ranks",
        "intra_bandwidth",
        "preset",
        "iteration",
        "missing_event",
        "skipped_layer",
        "optimizer_waits",
        "sync_each",
        "last_bucket_cap",
        "nccl_group",
        "progress",
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
        "machine_ranks",
        "intra_bandwidth",
    )
    """The controls typed into a field: Layers as text, the others one number each."""
    number_controls = typed_controls[1:]
    """The controls typed as one number each."""
    choice_controls = ("preset", "iteration", "missing_event", "skipped_layer", "progress")
    """The controls chosen from a list (Model's Custom is shown, not chosen)."""
    numbered_choices = {"missing_event": "bucket", "skipped_layer": "layer"}
    """The choices of a bucket or a layer by its number ("none", "bucket 1", ...), and their word."""
    switch_controls = ("optimizer_waits", "sync_each", "last_bucket_cap", "nccl_group")
    """The controls that are on or off (checkboxes)."""
    CUSTOM = CUSTOM

    t = param.Number(
        default=0.0,
        bounds=(0.0, None),
        doc="Elapsed time in ms since this rank's backward began; never past the horizon.",
    )
    step_size = param.Number(
        default=nice_step(default_step_end()),
        bounds=(0.0, None),
        inclusive_bounds=(False, True),
        doc="Derived, kept in step with the controls: how far one Step advances t, in ms.",
    )
    horizon = param.Number(
        default=default_step_end(),
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
        doc=(
            "The first bucket DDP fills (the last layers' gradients; the first layers' with "
            "DDP_SET_LAST_BUCKET_CAP=1) closes once it holds at least this many MiB."
        ),
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
        doc=(
            "B: the network bandwidth per rank between machines, in decimal GB/s (10⁹ bytes/s); the ring "
            "runs at its slowest link (see Ranks per machine)."
        ),
    )
    machine_ranks = param.Number(
        default=1.0,
        bounds=(1.0, 4096.0),
        label="Ranks per machine",
        doc=(
            "How many of the ranks share one machine; a whole number. 1: every ring link crosses machines "
            "(at B). Between 1 and p: the ring runs at the slower of B and the bandwidth inside a machine. "
            "p or more: one machine, so the ring runs at the bandwidth inside it."
        ),
    )
    intra_bandwidth = param.Number(
        default=100.0,
        bounds=(0.01, 10000.0),
        label="Bandwidth inside a machine",
        doc="The bandwidth per rank between ranks on one machine (NVLink, PCIe), in decimal GB/s.",
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
    last_bucket_cap = param.Boolean(
        default=False,
        label="DDP_SET_LAST_BUCKET_CAP=1 (small bucket last)",
        doc=(
            "On: the rebuild fills the buckets from the end of the ready order and turns the list back, so "
            "the first cap's small bucket holds the last gradients ready and is reduced last (after the "
            "rebuild only)."
        ),
    )

    nccl_group = param.Boolean(
        default=False,
        label="Launch the buckets as one NCCL group",
        doc=(
            "On: every bucket's all-reduce is launched between ncclGroupStart and ncclGroupEnd, so none is "
            "submitted before the host has issued the last bucket; they then run in bucket order, and each "
            "counts as complete only when the whole group does (the last one's end)."
        ),
    )
    progress = param.Selector(
        objects=list(LIBRARIES),
        default=NCCL,
        label="Communication library",
        doc=(
            "NCCL's kernels move the bytes on the GPU by themselves, and MPI with a progress thread has a "
            "thread of its own that keeps them moving: both overlap backward. MPI without a progress thread "
            "moves bytes only while the host is inside an MPI call, which it first enters for the final wait "
            "after issuing the last bucket: no all-reduce starts before then, so nothing overlaps."
        ),
    )

    # ----- controls (``apply``, as TimedModel's, sets a control from what ``parse`` gives, keeping t) ---

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
            return format_layers(*parse_layers(raw, kept=layers_kept(self.layers)))
        if name in self.numbered_choices:
            return parse_numbered(self, name, raw)
        if name in self.switch_controls:
            return parse_switch(self, name, raw)
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
        if name == "machine_ranks" and not float(value).is_integer():
            raise InvalidInput(
                f"Ranks per machine must be a whole number of ranks, not {format_number(value)}; "
                f"{self.describe_range(name)}; kept {format_number(self.machine_ranks)}."
            )
        return value

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
        return numbered(self.numbered_choices[name], getattr(self, name))

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
