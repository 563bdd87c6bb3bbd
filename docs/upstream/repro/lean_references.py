"""Bokeh's reference walk reads every property that can hold a model, stable defaults included (stock Bokeh).

``bokeh.model.util.collect_models`` (run by ``Document`` on every root added and every unfreeze, and
by ``Model.select`` / ``Model.references``) calls ``visit_immediate_value_references`` on each model,
which reads ``getattr(model, attr)`` for every name in ``properties_with_refs()``. A property that is
not set, has no unstable default and is not themed holds its class's stable default, and a stable
default can never hold a model (Bokeh makes model-valued defaults unstable). Yet each such read
builds the default again (theme lookup, class overrides, a copy). This script counts those reads in
one walk of a small document and times them against the walk.

Run: python lean_references.py. Prints counts and times (best of 5).
"""

import os
import time

from bokeh.document import Document
from bokeh.layouts import column
from bokeh.model.util import collect_models
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
    """Count the reads of stable defaults in one walk, and time them."""
    doc = page()
    models = list(doc.models)
    reads, stable = 0, []
    for model in models:
        themed = model.themed_values() or {}
        for attr in model.properties_with_refs():
            reads += 1
            held = attr in model._property_values or attr in model._unstable_default_values or attr in themed
            if not held:
                stable.append((model, attr))
    walk = best(lambda: collect_models(*doc.roots))
    wasted = best(lambda: [getattr(model, attr) for model, attr in stable])
    print(f"models: {len(models)}; properties read by one walk: {reads}; "
          f"of which stable defaults (can hold no model): {len(stable)}")
    print(f"collect_models(*doc.roots): {walk:.2f} ms; reading the stable defaults alone: {wasted:.2f} ms "
          f"({wasted / walk:.0%}) (load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
