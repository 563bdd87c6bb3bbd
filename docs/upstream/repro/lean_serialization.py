"""Bokeh computes the value of every property it then leaves out of a serialization (stock Bokeh).

``HasProps.query_properties_with_values(include_defaults=False)`` (what ``Model.to_serializable`` and
so ``Document.to_json`` use) works out which properties it will send, then still calls
``descriptor.get_value`` on every other one before skipping it. This script counts those reads in a
small document and times them against the whole query.

Run: python lean_serialization.py. Prints counts and times (best of 5).
"""

import os
import time

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


def main() -> None:
    """Count and time the reads whose values are thrown away."""
    doc = page()
    models = list(doc.models)
    query = lambda descriptor: descriptor.serialized  # noqa: E731 (what to_serializable passes)
    read, sent, unsent = 0, 0, []
    for model in models:
        themed = model.themed_values() or {}
        selected = model._property_values.keys() | model._unstable_default_values.keys() | themed.keys()
        for key in model.properties(_with_props=True):
            if query(model.lookup(key)):
                read += 1
                if key not in selected:
                    unsent.append((model, model.lookup(key)))
        sent += len(model.query_properties_with_values(query, include_defaults=False))

    whole = best(lambda: [m.query_properties_with_values(query, include_defaults=False) for m in models])
    wasted = best(lambda: [descriptor.get_value(model) for model, descriptor in unsent])
    print(f"models: {len(models)}; serialized properties read: {read}; returned: {sent}; "
          f"not selected (read, then skipped): {len(unsent)}")
    print(f"query_properties_with_values over the document: {whole:.2f} ms; "
          f"get_value of the skipped ones alone: {wasted:.2f} ms ({wasted / whole:.0%})")
    print(f"Document.to_json(): {best(doc.to_json):.2f} ms (load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
