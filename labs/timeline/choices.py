"""The bucket timeline's choices as text, and how a typed numbered choice or switch is read.

The constants and pure functions :class:`labs.timeline.controls.TimelineControls` declares its
controls with and reads typed text by: the Iteration and Communication library choices, DDP's
default caps, the numbered choices' ``"none"``, the step a duration suggests.
"""

from __future__ import annotations

from typing import Any

from labs.numbers import nice_at_most
from labs.timed import InvalidInput
from labs.timeline.buckets import FIRST_ITERATION as FIRST_LAYOUT
from labs.timeline.buckets import REBUILT, REBUILT_SMALL_LAST, REGISTRATION
from labs.timeline.layers import cap_to_bytes, parse_layers, to_bytes
from labs.timeline.presets import EQUAL_LAYERS, preset_layers
from labs.timeline.schedule import step_schedule

AFTER_REBUILD = "After the bucket rebuild (iteration 2 on)"
FIRST_ITERATION = "First iteration (one bucket)"
FIND_UNUSED = "find_unused_parameters=True (registration order, never rebuilt)"
ITERATIONS = (AFTER_REBUILD, FIRST_ITERATION, FIND_UNUSED)
NCCL = "NCCL (moves the bytes itself)"
MPI_PROGRESS = "MPI with a progress thread"
MPI_NO_PROGRESS = "MPI without a progress thread"
LIBRARIES = (NCCL, MPI_PROGRESS, MPI_NO_PROGRESS)
"""The Communication library choices: only MPI without a progress thread changes the schedule."""
LAYOUT_OF = {AFTER_REBUILD: REBUILT, FIRST_ITERATION: FIRST_LAYOUT, FIND_UNUSED: REGISTRATION}
"""The bucket layout (:mod:`labs.timeline.schedule`) each Iteration choice shows."""


def layout_of(iteration: str, last_bucket_cap: bool = False) -> str:
    """The bucket layout an Iteration choice shows, with or without ``DDP_SET_LAST_BUCKET_CAP=1``.

    The variable acts only in ``Reducer::rebuild_buckets``: the first iteration's one bucket and the
    never-rebuilt layout of ``find_unused_parameters=True`` stay as they are.

    Parameters
    ----------
    iteration : str
        One of :data:`ITERATIONS`.
    last_bucket_cap : bool, optional
        Whether ``DDP_SET_LAST_BUCKET_CAP=1`` is set.

    Returns
    -------
    str
        One of :data:`labs.timeline.buckets.LAYOUTS`.
    """
    if last_bucket_cap and iteration == AFTER_REBUILD:
        return REBUILT_SMALL_LAST
    return LAYOUT_OF[iteration]


DEFAULT_CAPS = (1.0, 25.0)
"""DDP's caps when ``bucket_cap_mb`` is not given: a 1 MiB first bucket, 25 MiB after it."""

NONE = "none"
"""How the Missing event and Rank skips a gradient choices read when off."""

LAYERS_KEPT_CHARS = 60
"""The longest Layers text a refusal quotes as kept; longer ones are counted ("the previous 24 layers")."""

_ON = frozenset({"on", "yes", "true", "1", "checked"})
_OFF = frozenset({"off", "no", "false", "0", "unchecked"})


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
    return nice_at_most(duration / 10, slack=1e-12)


def default_step_end() -> float:
    """When the default step (equal layers, DDP's caps, 8 ranks) ends: the default horizon's basis."""
    sizes, times = parse_layers(preset_layers(EQUAL_LAYERS))
    return step_schedule(to_bytes(sizes), times, cap_to_bytes(1.0), cap_to_bytes(25.0), 8, 10.0, 0.0).step_end


def numbered(word: str, value: int | None) -> str:
    """A numbered choice's text: ``"none"`` or ``"bucket 2"``."""
    return NONE if value is None else f"{word} {value}"


def layers_kept(layers: str) -> str:
    """What a Layers refusal says is kept: the layers themselves (``layers``) when they fit on a line.

    The refused text stays in the field, so the message is where the student reads what holds.
    """
    count = layers.count(":")
    if len(layers) <= LAYERS_KEPT_CHARS:
        return f"kept {layers}"
    return f"kept the previous {count} layers"


def parse_numbered(model: Any, name: str, raw: object) -> int | None:
    """A Missing event or Rank skips a gradient choice: None, or a bucket or layer of ``model`` by number."""
    word = model.numbered_choices[name]
    label = model.param[name].label
    count = model.bucket_count if word == "bucket" else model.layer_count
    kept = f"kept {model.choice_text(name)}"
    if raw is None or (isinstance(raw, str) and raw.strip().lower() in {NONE, ""}):
        return None
    text = raw.strip().lower().removeprefix(word).strip() if isinstance(raw, str) else raw
    if isinstance(text, bool) or not (isinstance(text, int) or (isinstance(text, str) and text.isdigit())):
        raise InvalidInput(f"{label}: {str(raw).strip()!r} is not a choice; choose none or a {word} by number; {kept}.")
    number = int(text)
    if not 1 <= number <= count:
        raise InvalidInput(f"{label}: there is no {word} {number}; this step has {count} {word}s; {kept}.")
    return number


def parse_switch(model: Any, name: str, raw: object) -> bool:
    """A switch's state from True or False, or on/off (and their synonyms); refused otherwise, ``model`` kept."""
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in _ON or text in _OFF:
        return text in _ON
    state = "on" if getattr(model, name) else "off"
    raise InvalidInput(f"{model.param[name].label}: {str(raw).strip()!r} is neither on nor off; kept {state}.")
