"""Bokeh builds every empty list/dict default of a new model in ``HasProps.__init__`` (stock Bokeh).

``HasProps.__init__`` ends by reading every property whose default is *unstable* (built anew for
each model), so that the model keeps it in ``_unstable_default_values``. Most of those are empty
lists and dicts (``tags``, ``css_classes``, ``stylesheets``, ``js_property_callbacks``, ...) wrapped
in Bokeh's ``PropertyValueContainer``: nothing reads them before the model is serialized, and
serialization leaves them out while they stay empty. This script counts them for the models of a
small document and times building them against making the models.

Run: python lean_models.py. Prints counts and times (best of 5).
"""

import os
import time

from bokeh.core.property.wrappers import PropertyValueContainer
from bokeh.document import Document
from bokeh.layouts import column
from bokeh.models import Button, Div, Select, Slider, TextInput
from bokeh.plotting import figure


def page() -> Document:
    """A document like a small app's: a figure with two glyphs and five widgets."""
    plot = figure(title="t", width=400, height=300)
    plot.line([1, 2, 3], [3, 1, 2])
    plot.scatter([1, 2, 3], [2, 3, 1])
    doc = Document()
    doc.add_root(column(plot, Slider(start=0, end=1, value=0), Select(options=["a"]), TextInput(), Button(), Div()))
    return doc


def best(fn, rounds: int = 5) -> float:
    """Best wall time of ``fn`` in ms."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def empty_containers(model) -> list[str]:
    """The unstable defaults ``__init__`` built that are still empty Bokeh containers."""
    return [name for name, value in model._unstable_default_values.items()
            if isinstance(value, PropertyValueContainer) and len(value) == 0]


def rebuild(pairs) -> None:
    """Build those defaults again, exactly as ``__init__`` did (``descriptor._get``)."""
    for model, name in pairs:
        del model._unstable_default_values[name]
        model.lookup(name)._get(model)


def main() -> None:
    """Count the empty containers built at creation, and time building them."""
    models = list(page().models)
    unstable = sum(len(m._unstable_default_values) for m in models)
    pairs = [(m, name) for m in models for name in empty_containers(m)]
    sent = sum(name in m.properties_with_values(include_defaults=False) for m, name in pairs)
    make = best(page)
    containers = best(lambda: rebuild(pairs))
    print(f"models: {len(models)}; unstable defaults built in __init__: {unstable}; "
          f"of which empty lists/dicts/sets: {len(pairs)} ({len(pairs) / len(models):.1f} a model); "
          f"serialized: {sent}")
    print(f"making the document's models: {make:.2f} ms; building those empty containers alone: "
          f"{containers:.2f} ms ({containers / make:.0%}) (load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
