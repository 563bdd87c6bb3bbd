"""The bucket timeline's preset networks, by name, as Layers text."""

from __future__ import annotations

import numpy as np

from labs.timeline.layers import parse_layers, to_bytes

EQUAL_LAYERS = "8 equal layers"
EQUAL_LAYERS_BF16 = "8 equal layers, bf16 gradients"
EMBEDDING_FIRST = "Large embedding first"
CUSTOM = "Custom"
"""What the "Model" choice reads once the layers match no preset."""

PRESETS: tuple[str, ...] = (EQUAL_LAYERS, EQUAL_LAYERS_BF16, EMBEDDING_FIRST)
"""The names of the model presets, in the order the "Model" choice lists them (then Custom)."""

PRESET_LAYERS: tuple[tuple[str, str], ...] = (
    (EQUAL_LAYERS, ", ".join(["8:2"] * 8)),
    (EQUAL_LAYERS_BF16, ", ".join(["4:2"] * 8)),
    (EMBEDDING_FIRST, ", ".join(["128:0.5", *["8:2"] * 8])),
)
"""The presets as ``(name, layers)``: ``size:time`` pairs in forward order (MiB : ms).

"8 equal layers": 8 × 8 MiB, 2 ms each. "8 equal layers, bf16 gradients": the same network with
2-byte gradients instead of 4-byte ones, so 4 MiB a layer and the same backward time. "Large
embedding first": a 128 MiB embedding whose backward takes 0.5 ms, then the same 8 layers. The
embedding comes first in the forward pass, so its gradient is the last one ready; at the defaults it
closes the last bucket (24 MiB of layers + 128 MiB) exactly when backward ends, and that whole
all-reduce is exposed.
"""


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


def matching_preset(sizes_mib: np.ndarray, backward_ms: np.ndarray) -> str:
    """The preset whose layers these are (to the byte and the nanosecond), or :data:`CUSTOM`.

    Parameters
    ----------
    sizes_mib, backward_ms : numpy.ndarray
        The layers, forward order, as :func:`labs.timeline.layers.parse_layers` gives them.

    Returns
    -------
    str
        A name from :data:`PRESETS`, or :data:`CUSTOM`.
    """
    for name, text in PRESET_LAYERS:
        preset_sizes, preset_times = parse_layers(text)
        if np.array_equal(to_bytes(sizes_mib), to_bytes(preset_sizes)) and np.array_equal(backward_ms, preset_times):
            return name
    return CUSTOM
