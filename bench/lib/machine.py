"""How fast this machine is against the one the budgets were set on, measured in the same run.

A latency budget in milliseconds holds only on a machine as fast as the one it was set on: the same
code on a core three times slower takes about three times as long for every session build and
every click. So the benches that check budgets time one fixed piece of CPython work here, in the
same run, and scale their time budgets by how much slower than the reference machine this one is
(never tighter than the budget itself). A regression in the app then fails on both machines, and a
slow machine does not fail a design a fast one passes.

The work is the one the course's issues quote: CPython adding 10 million integers in a loop.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

REFERENCE_MACHINE_S = 0.68
"""Seconds the work takes on the reference machine (the 2-core development box, December 2026,
quiet: 0.68-0.70 s, best of three). The slow 2-core machine of the issues takes about 2.0 s (×2.9)."""

ADDITIONS = 10_000_000


def best_seconds(action: Callable[[], object], repeats: int) -> float:
    """The shortest of ``repeats`` timings of ``action()``: the run least disturbed by the rest of the machine.

    Parameters
    ----------
    action : callable
        Called with no arguments; what it returns is dropped.
    repeats : int
        How many times to time it (at least one).

    Returns
    -------
    float
        Seconds, wall clock (``time.perf_counter``), in this process.
    """
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def integer_additions_s(repeats: int = 3, additions: int = ADDITIONS) -> float:
    """Seconds CPython takes to add ``additions`` integers in a loop, best of ``repeats``.

    Parameters
    ----------
    repeats : int
        How many times to time it; the fastest counts (the others met interference).
    additions : int
        How many integers: :data:`ADDITIONS` (the work the budgets are scaled by) unless a bench
        quotes a smaller reference.

    Returns
    -------
    float
        Seconds, wall clock, in this process.
    """

    def add() -> int:
        total = 0
        for i in range(additions):
            total += i
        return total

    return best_seconds(add, repeats)


@dataclass(frozen=True)
class MachineSpeed:
    """How long the reference work takes on this machine, and the factor the time budgets are scaled by.

    Attributes
    ----------
    seconds : float
        The reference work here.
    reference : float
        The same on the reference machine.
    """

    seconds: float
    reference: float = REFERENCE_MACHINE_S

    @property
    def slowdown(self) -> float:
        """How many times slower than the reference machine; 1 for as fast or faster."""
        return max(1.0, self.seconds / self.reference)

    def text(self) -> str:
        """One line saying what was measured and what it does to the budgets."""
        return (
            f"machine: {ADDITIONS / 1e6:.0f}M integer additions in {self.seconds:.2f} s here, "
            f"{self.reference:.2f} s on the reference machine: time budgets × {self.slowdown:.2f}"
        )

    def per_student(self, server_cpu_s: float, students: int) -> str:
        """Server CPU per student here and in reference units, and students per core-minute both ways."""
        if students <= 0:
            return "no students"
        each = server_cpu_s / students
        units = each / self.seconds
        here = 60 / each if each > 0 else float("inf")
        return (
            f"server CPU per student {1e3 * each:.0f} ms = {units:.2f} × the reference work; "
            f"about {here:.0f} students per core-minute here, "
            f"{here * self.seconds / self.reference:.0f} on the reference machine's scale"
        )


def measure() -> MachineSpeed:
    """Time the reference work now (best of three) and return it with the reference machine's figure."""
    return MachineSpeed(integer_additions_s())
