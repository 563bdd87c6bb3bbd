"""Each property update of a Panel custom component walks every model under it (stock Panel).

``ReactiveCustomBase._set_on_model`` ends every update of a ``JSComponent``'s data model with
``_patch_datamodel_ref``, a ``Model.select({'type': DataModel})`` over everything reachable from the
data model. A component holding a child (a layout of widgets) thus walks the whole child on every
change, even of an integer. This script builds the same component with a child of 10 and of 200
widgets, changes its integer 50 times, and times the updates and the walk alone.

Run: python lean_datamodel_refs.py. Prints models reachable, and ms per update (median of 3 runs).
"""

import os
import statistics
import time

import panel as pn
import param
from bokeh.document import Document
from bokeh.model import DataModel
from panel.custom import Child, JSComponent


class Card(JSComponent):
    """A custom component with a counter and a child."""

    count = param.Integer(default=0)
    body = Child()
    _esm = "export function render({ model }) { return document.createElement('div') }"


def per_update_ms(widgets: int) -> tuple[int, float, float]:
    """Models under the data model, ms per ``count`` update, ms per walk of Panel's tagging."""
    card = Card(body=pn.Column(*(pn.widgets.IntInput(name=f"w{i}") for i in range(widgets))))
    doc = Document()
    root = card.get_root(doc)
    doc.add_root(root)
    data = root.data
    reachable = len(data.references())
    runs, walks = [], []
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(50):
            card.count += 1
        runs.append((time.perf_counter() - start) * 1000 / 50)
        start = time.perf_counter()
        for _ in range(50):
            list(data.select({"type": DataModel}))  # the walk _patch_datamodel_ref makes
        walks.append((time.perf_counter() - start) * 1000 / 50)
    return reachable, statistics.median(runs), statistics.median(walks)


def main() -> None:
    """Compare a small and a large child."""
    for widgets in (10, 200):
        reachable, update, walk = per_update_ms(widgets)
        print(f"child of {widgets:3d} widgets: {reachable:4d} models under the data model; "
              f"count += 1: {update:.2f} ms; the tagging walk alone: {walk:.2f} ms")
    print(f"(load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
