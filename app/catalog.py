"""Which labs a lesson may use: their models, views, controls and the quantities feedback reads."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from panel.viewable import Viewer

from labs.timed import TimedModel


@dataclass(frozen=True)
class LabKind:
    """One kind of lab a lesson can sit beside.

    Attributes
    ----------
    name : str
        The key lessons use, e.g. ``"queue"``.
    title : str
        The lab's accessible name, e.g. ``"Queue lab"``.
    model : type
        The model class (a :class:`~labs.timed.TimedModel`).
    lesson_view : callable
        Builds the view a lesson page shows, one per session.
    units : dict
        Unit of each quantity feedback can read, for the messages.
    """

    name: str
    title: str
    model: type[TimedModel]
    lesson_view: Callable[[], Viewer]
    units: dict[str, str]

    @property
    def controls(self) -> tuple[str, ...]:
        """The controls an exercise may set."""
        return self.model.controls

    @property
    def quantities(self) -> tuple[str, ...]:
        """The quantities an exercise may ask about."""
        return tuple(self.units)


def _queue() -> LabKind:
    from labs.queue.model import QueueModel
    from labs.queue.view import QueueLab

    return LabKind(
        name="queue",
        title="Queue lab",
        model=QueueModel,
        lesson_view=QueueLab,
        units={"backlog": "work units", "net_rate": "work units/s", "drain_time": "s"},
    )


def _roofline() -> LabKind | None:
    try:
        from labs.roofline.model import RooflineModel
        from labs.roofline.view import RooflineLab
    except ImportError:  # the roofline lab is not in this checkout yet
        return None
    return LabKind(
        name="roofline",
        title="Roofline lab",
        model=RooflineModel,
        lesson_view=lambda: RooflineLab(presets=False),
        units={"attainable": "GFLOP/s", "ridge": "FLOP/byte"},
    )


def lab_kinds() -> dict[str, LabKind]:
    """Every lab a lesson may name, by key.

    Returns
    -------
    dict of str to LabKind
        ``{"queue": ..., "roofline": ...}``.
    """
    kinds = [kind for kind in (_queue(), _roofline()) if kind is not None]
    return {kind.name: kind for kind in kinds}
