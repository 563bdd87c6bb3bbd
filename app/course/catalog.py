"""Which labs a lesson may use: their models, views, controls and the quantities feedback reads."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from panel.viewable import Viewer

from labs.registry import LabRegistration, registrations
from labs.timed import TimedModel


def lesson_labs() -> tuple[LabRegistration, ...]:
    """Every lab a lesson may name: the registered labs, then the sample trace.

    The sample trace (:mod:`app.trace.page.sample`) is a lab only beside a lesson: it has no page, route
    or index entry of its own (the trace page, ``/trace``, is its home), so it is not in
    :data:`labs.registry.LAB_PACKAGES`.

    Returns
    -------
    tuple of LabRegistration
        The labs in :func:`labs.registry.registrations` order, then the sample trace.
    """
    from app.trace.page.sample import LAB as SAMPLE_TRACE  # app.trace reads files: not needed by the labs

    return (*registrations(), SAMPLE_TRACE)


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
    counts : dict
        The quantities that count whole things, each with its singular (``{"bucket_count": "bucket"}``).
    choices : dict
        The quantities asked about as a choice, each with every text the model can read for it.
    """

    name: str
    title: str
    model: type[TimedModel]
    lesson_view: Callable[[], Viewer]
    units: dict[str, str]
    counts: dict[str, str]
    choices: dict[str, tuple[str, ...]]

    @property
    def controls(self) -> tuple[str, ...]:
        """The controls an exercise may set."""
        return self.model.controls

    @property
    def quantities(self) -> tuple[str, ...]:
        """The quantities an exercise may ask about: measured or counted ones, then choices."""
        return (*self.units, *self.choices)


@functools.cache
def lab_kinds() -> dict[str, LabKind]:
    """Every lab a lesson may name, by key, from the labs' own registrations (labs/registry.py).

    Built once per process (every exercise of every session asks for it); do not change it.

    Returns
    -------
    dict of str to LabKind
        ``{"queue": ..., "roofline": ...}``.
    """
    return {
        lab.slug: LabKind(
            name=lab.slug,
            title=lab.title,
            model=lab.model_class(),
            lesson_view=lab.lesson_view,
            units=dict(lab.units),
            counts=dict(lab.counts),
            choices=dict(lab.choices),
        )
        for lab in lesson_labs()
    }


def import_every_view() -> None:
    """Import every lab's view before the first page is served, so each browser learns its models.

    A view's custom components (``JSComponent`` subclasses such as the labs' ``LabStage``)
    each carry a Bokeh data model, created when their class is. Bokeh puts the definition of every
    data model that exists into each page it serves, and Panel sends a late-made one once per
    process, to the first session that uses it. A lab imported lazily, when a student first opens
    it, is therefore unknown to every page loaded before that moment: opening the lab there fails
    in the browser with "could not resolve type 'SwitchField1'" (the timeline's switch, then a
    component of its own, seen on the trace page under load). Each way of serving calls this at start-up.
    """
    for lab in lesson_labs():
        lab.view_class()
