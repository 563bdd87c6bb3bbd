"""Every lab the course has, each described once by its own package.

A lab is a package ``labs/<lab>/`` whose ``__init__`` holds one :class:`LabRegistration`: its URL
name, accessible title, the index entry, its model and view classes (as ``module:Class`` strings,
imported only when a page needs them, so that importing a model never imports Panel), how the
standalone page and a lesson page build the view, and the quantities exercises may ask about.
``app/`` walks :data:`LAB_PACKAGES` to build the routes, the index entries, the standalone pages
and the exercise runner's view of each lab. Adding a lab adds one line here.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

LAB_PACKAGES: tuple[str, ...] = (
    "labs.queue",
    "labs.roofline",
    "labs.timeline",
)


@dataclass(frozen=True)
class LabRegistration:
    """What the app needs to know about one lab.

    Attributes
    ----------
    slug : str
        The URL name and the key lessons use, e.g. ``"queue"`` (page ``/queue``).
    title : str
        The lab's accessible name and index link, e.g. ``"Queue lab"``.
    blurb : str
        One sentence for the index, after the link.
    intro : str
        The standalone page's first sentence.
    model : str
        ``"module:Class"`` of the model (a :class:`~labs.timed.TimedModel`).
    view : str
        ``"module:Class"`` of the view (a ``panel.viewable.Viewer`` taking ``model=``).
    page_options : mapping
        Keyword arguments for the view on the standalone page.
    lesson_options : mapping
        Keyword arguments for the view beside a lesson.
    units : mapping
        The quantities an exercise may ask about, with their units.
    counts : mapping
        The quantities among ``units`` that count whole things, each with its singular
        (``{"bucket_count": "bucket"}``): feedback prints them as whole numbers, "1 bucket", "3 buckets".
    choices : mapping
        The quantities an exercise asks about as a choice, each with every text the model's attribute
        can read (``{"regime": ("memory-bound", "compute-bound", ...)}``); not in ``units``.
    """

    slug: str
    title: str
    blurb: str
    intro: str
    model: str
    view: str
    page_options: Mapping[str, Any] = field(default_factory=dict)
    lesson_options: Mapping[str, Any] = field(default_factory=dict)
    units: Mapping[str, str] = field(default_factory=dict)
    counts: Mapping[str, str] = field(default_factory=dict)
    choices: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def model_class(self) -> type:
        """The model class, imported now."""
        return _load(self.model)

    def view_class(self) -> type:
        """The view class, imported now."""
        return _load(self.view)

    def page_view(self) -> Any:
        """A new view for the standalone page (one per session), laid out for a page of its own."""
        return self.view_class()(placement="page", **self.page_options)

    def lesson_view(self) -> Any:
        """A new view for beside a lesson (one per session)."""
        return self.view_class()(**self.lesson_options)


def _load(target: str) -> Any:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def registrations() -> tuple[LabRegistration, ...]:
    """Every registered lab, in :data:`LAB_PACKAGES` order.

    Returns
    -------
    tuple of LabRegistration
        One per lab package; each package's ``__init__`` defines ``LAB``.
    """
    return tuple(importlib.import_module(package).LAB for package in LAB_PACKAGES)
