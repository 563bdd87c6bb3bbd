"""Panel's template builds a page's document root by root, and Bokeh recounts its models each time (stock Panel).

``BasicTemplate._init_doc`` adds each of a template's roots to the document and sets properties on
them; Bokeh's ``DocumentModelManager.recompute`` (a walk of every reference from every root) runs
after each root added and each change to a property that can hold models. Bokeh's
``doc.models.freeze()`` defers that to one recount when the block ends. This script builds the same
BootstrapTemplate page into a fresh document twice, as Panel does and inside ``freeze()``, and counts
the recounts (a counting wrapper around Bokeh's own method) and times each build.

Run: python template_freeze.py. Prints recounts and build times (median of 7).
"""

import os
import statistics
import time

import panel as pn
from bokeh.document import Document
from bokeh.document.models import DocumentModelManager

recounts = 0
BOKEH_RECOMPUTE = DocumentModelManager.recompute


def counted_recompute(self) -> None:
    """Bokeh's own recompute, counted."""
    global recounts
    recounts += 1
    BOKEH_RECOMPUTE(self)


DocumentModelManager.recompute = counted_recompute


def template() -> pn.template.BootstrapTemplate:
    """A page: a header, a sidebar with widgets, a main area with text, a table-like column and a plot."""
    page = pn.template.BootstrapTemplate(title="Demo")
    page.sidebar.append(pn.Column(*(pn.widgets.FloatSlider(name=f"s{i}") for i in range(4))))
    page.main.append(pn.pane.Markdown("# Title\n\nSome text. " * 20))
    page.main.append(pn.Row(*(pn.indicators.Number(value=i, name=f"n{i}") for i in range(4))))
    page.main.append(pn.Column(*(pn.widgets.TextInput(name=f"t{i}") for i in range(6))))
    return page


def build(frozen: bool) -> tuple[int, float, int]:
    """Build one page into a new document; return the recounts, the time in ms and the document's models."""
    global recounts
    page, doc = template(), Document()
    recounts = 0
    start = time.perf_counter()
    if frozen:
        with doc.models.freeze():
            page.server_doc(doc)
    else:
        page.server_doc(doc)
    return recounts, (time.perf_counter() - start) * 1000, len(doc.models)


def main() -> None:
    """Alternate the two ways, 7 builds each after a warm-up."""
    build(False), build(True)
    results = {False: [], True: []}
    for _ in range(7):
        for frozen in (False, True):
            results[frozen].append(build(frozen))
    for frozen, label in ((False, "Panel's _init_doc"), (True, "inside doc.models.freeze()")):
        counts = sorted({count for count, _, _ in results[frozen]})
        models = sorted({n for _, _, n in results[frozen]})
        median = statistics.median(ms for _, ms, _ in results[frozen])
        print(f"{label:28s} recounts per build: {counts}; models in the document: {models}; build: {median:.1f} ms")
    print(f"(load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
