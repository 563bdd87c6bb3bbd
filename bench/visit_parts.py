"""Where one student's visit spends its server CPU: the class bench's visit split by part.

The visit is :func:`bench.visit_cost.visit` (the lesson page built and serialized, then the guided
exercise's clicks), with every fix installed and Bokeh's settings as ``python -m app`` serves. Each
part is a function or method timed with ``time.process_time`` while it runs, counted once where it
calls itself; two kinds of figure:

- **parts**: the page's build (Panel's template turning the page into Bokeh models, the lesson's
  own objects, the lab's), the clicks' handlers, the serialization. Parts nest (the lab's view is
  built inside the lesson's), so they do not add up.
- **models by component**: Panel's ``_get_model`` of each component class, less what it spends
  building its children's models: what each kind of component costs to turn into Bokeh models.

Usage: ``.venv/bin/python -m bench.visit_parts [--visits 10]``
"""

from __future__ import annotations

import argparse
import functools
import importlib
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from panel.viewable import Viewable

from app import upstream
from app.web import serving_settings
from bench.visit_cost import VISIT, visit

PARTS: dict[str, tuple[str, str | None, str]] = {
    "page build: the template's Bokeh models": ("panel.template.base", "BaseTemplate", "server_doc"),
    "page build: the lesson's objects": ("app.site.pages.lesson", None, "lesson_view"),
    "  of which the queue lab's view": ("labs.queue.view", "QueueLab", "__init__"),
    "  of which the exercises' runners": ("app.course.exercise", "ExerciseRunner", "__init__"),
    "serialization (Document.to_json)": ("bokeh.document.document", "Document", "to_json"),
    "clicks: the time bar's commands": ("labs.ui.transport", "Transport", "_on_command"),
    "the lab redrawn (build and clicks)": ("labs.ui.lab_view", "LabView", "refresh"),
    "a card's change sent to the page": ("app.course.lesson_text", "LessonText", "_card_changed"),
    "a card's fields drawn (build and clicks)": ("app.course.exercise", "ExerciseRunner", "_draw"),
    "the verdict (judging, progress)": ("app.course.exercise", "ExerciseRunner", "_finish"),
}
"""A part's name, and where it runs: module, class (None for a module's function), attribute."""


class Timer:
    """CPU seconds spent inside wrapped callables, by name; nested calls of one name count once."""

    def __init__(self) -> None:
        self.spent: Counter = Counter()
        self.calls: Counter = Counter()
        self._depth: Counter = Counter()

    def wrap(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        """``function``, timed under ``name``."""

        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            self._depth[name] += 1
            started = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                self._depth[name] -= 1
                if not self._depth[name]:
                    self.spent[name] += time.process_time() - started
                    self.calls[name] += 1

        return timed


class ModelTimer:
    """CPU seconds in each component class's ``_get_model``, less its children's (exclusive)."""

    def __init__(self) -> None:
        self.spent: Counter = Counter()
        self.calls: Counter = Counter()
        self._children: list[float] = []

    def wrap(self, function: Callable[..., Any]) -> Callable[..., Any]:
        """A ``_get_model``, timed under its object's class name."""

        @functools.wraps(function)
        def timed(component: Any, *args: Any, **kwargs: Any) -> Any:
            started = time.process_time()
            self._children.append(0.0)
            try:
                return function(component, *args, **kwargs)
            finally:
                took = time.process_time() - started
                inside = self._children.pop()
                name = type(component).__name__
                self.spent[name] += took - inside
                self.calls[name] += 1
                if self._children:
                    self._children[-1] += took

        return timed


def subclasses(cls: type) -> set[type]:
    """Every subclass of ``cls``, at any depth."""
    found: set[type] = set()
    for sub in cls.__subclasses__():
        found |= {sub} | subclasses(sub)
    return found


def instrument(parts: Timer, models: ModelTimer) -> None:
    """Wrap each of :data:`PARTS` and every component class's own ``_get_model``."""
    for name, (module_name, class_name, attribute) in PARTS.items():
        module = importlib.import_module(module_name)
        owner = getattr(module, class_name) if class_name else module
        setattr(owner, attribute, parts.wrap(name, getattr(owner, attribute)))
    for cls in {Viewable} | subclasses(Viewable):
        if "_get_model" in vars(cls):
            cls._get_model = models.wrap(vars(cls)["_get_model"])


def main() -> None:
    """Time warm visits and print each part's CPU per visit."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visits", type=int, default=10, help="counted visits after three to warm up (default 10)")
    args = parser.parse_args()
    upstream.install()
    serving_settings.install()
    parts, models = Timer(), ModelTimer()
    instrument(parts, models)
    for _ in range(3):
        visit()
    for timer in (parts, models):
        timer.spent.clear()
        timer.calls.clear()
    started = time.process_time()
    for _ in range(args.visits):
        visit()
    whole = (time.process_time() - started) / args.visits
    per = 1000 / args.visits
    print(f"One student's visit ({VISIT}), in-process CPU, mean of {args.visits}: {1000 * whole:.1f} ms")
    print("parts (nested parts overlap):")
    for name in PARTS:
        print(f"  {name:44}{parts.spent[name] * per:8.1f} ms  ({parts.calls[name] / args.visits:.0f} calls)")
    total = sum(models.spent.values())
    print(f"models by component ({total * per:.1f} ms in all), the ten dearest:")
    for name, spent in models.spent.most_common(10):
        print(f"  {name:44}{spent * per:8.1f} ms  ({models.calls[name] / args.visits:.0f} built)")


if __name__ == "__main__":
    main()
