"""Slips a student makes with the course's units, computed with the lab's own model."""

from __future__ import annotations

from app.course.spec import Exercise
from app.course.variants import run_steps

MIB_AS_MB = 2**20 / 10**6
"""How much faster the network looks to a student who takes a MiB (2^20 bytes) for an MB (10^6 bytes)."""
NETWORK_CONTROLS = ("bandwidth", "intra_bandwidth")
"""The timeline's bandwidths (GB/s, 10^9 bytes/s) a byte count is divided by."""


def mib_taken_as_mb(exercise: Exercise) -> float:
    """What the lab reads for ``exercise`` when every MiB is taken as 10^6 bytes instead of 2^20.

    Dividing 10^6-byte megabytes by GB/s gives the same times as the true bytes over a bandwidth
    2^20/10^6 times higher, so the lab is asked with every bandwidth scaled by that much.
    """
    model = run_steps(exercise)
    scaled = {name: getattr(model, name) * MIB_AS_MB for name in NETWORK_CONTROLS if name in model.param}
    return float(run_steps(exercise, as_if=scaled).reading(exercise.quantity, exercise.at))
