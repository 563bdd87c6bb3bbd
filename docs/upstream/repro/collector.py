"""Panel's post-discard ``gc.collect()`` is a full collection: its pause grows with the sessions still open.

Stock Panel. ``panel.io.document._destroy_document`` schedules ``_garbage_collect`` (debounced by
``GC_DEBOUNCE``, 5 s) after a session is discarded, and that runs ``gc.collect()``: a full
collection, which walks every tracked object in the process, including every session still open,
while holding the event loop. This script keeps 10, 40 and 80 template pages alive (each built into
its own document, as a session's page is), discards one more, and times ``gc.collect()`` (what Panel
runs), ``gc.collect(1)``, and ``gc.collect()`` after ``gc.freeze()`` of what was alive before.

Run: python collector.py (builds 80 pages, about 20 s). Prints the pauses.
"""

import gc
import os
import time

import panel as pn
from bokeh.document import Document


def page() -> Document:
    """One session's page: a template with a few widgets, built into its own document."""
    template = pn.template.BootstrapTemplate(
        title="t", sidebar=[pn.widgets.FloatSlider(name=f"s{i}") for i in range(5)],
        main=[pn.pane.Markdown("text " * 50), pn.Column(*(pn.widgets.TextInput(name=f"t{i}") for i in range(10)))],
    )
    return template.server_doc(Document())


def pause_ms(collect) -> float:
    """Wall time of one collection, in ms."""
    start = time.perf_counter()
    collect()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    """Time the three collections with more and more pages open."""
    open_pages = []
    for target in (10, 40, 80):
        while len(open_pages) < target:
            open_pages.append(page())
        gc.collect()
        page()  # a discarded session's page: garbage, some of it in cycles
        full = pause_ms(gc.collect)
        page()
        young = pause_ms(lambda: gc.collect(1))
        gc.collect()
        gc.freeze()  # what is alive now is left out of later collections
        page()
        frozen = pause_ms(gc.collect)
        gc.unfreeze()
        print(f"{target:3d} pages open, {len(gc.get_objects()):,} tracked objects: gc.collect() {full:.0f} ms; "
              f"gc.collect(1) {young:.0f} ms; gc.collect() after gc.freeze() {frozen:.0f} ms")
    print(f"(load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
