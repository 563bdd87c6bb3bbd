"""In-process cost of building each lesson's page, with Bokeh's and Panel's own code and with the lean code.

A session's server CPU is mostly the building of its document: the page's Python objects, their
Bokeh models, the document's bookkeeping and its first serialization. Four modules make Bokeh and
Panel do less of that for the same document (``app/upstream/lean_serialization.py``,
``app/upstream/lean_references.py``, ``app/upstream/lean_models.py`` and
``app/upstream/template_freeze.py``; their tests compare every page's document both ways). This bench builds each
lesson's page (with its lab, in one piece, as a test does: ``tests/page_documents.py``) and
serializes it, alternating between the two kinds of code in one process, so the machine's drift
falls on both alike, and prints the medians side by side.

No server, no browser: it isolates the build from the network and the event loop
(``bench/session_cost.py`` measures a whole session open in Chromium).

Usage: ``.venv/bin/python -m bench.build_cost [--rounds 8]``
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from bokeh.core.has_props import HasProps
from bokeh.model import util as model_util
from panel.template.base import BasicTemplate

from app.course.library import lessons
from app.upstream import lean_models, lean_references, lean_serialization, template_freeze
from tests.page_documents import page_document

_PANEL_INIT_DOC = template_freeze.panel_init_doc()
_LEAN_INIT_DOC = template_freeze.wrap(_PANEL_INIT_DOC)


def use(lean: bool) -> None:
    """Put the lean code (True) or Bokeh's and Panel's own (False) in place."""
    HasProps.__init__ = lean_models.__init__ if lean else lean_models._ORIGINAL
    HasProps.query_properties_with_values = (
        lean_serialization.query_properties_with_values if lean else lean_serialization._ORIGINAL
    )
    model_util.visit_immediate_value_references = (
        lean_references.visit_immediate_value_references if lean else lean_references._ORIGINAL
    )
    BasicTemplate._init_doc = _LEAN_INIT_DOC if lean else _PANEL_INIT_DOC


def build_ms(path: str) -> float:
    """Milliseconds to build the page at ``path`` and serialize its document once."""
    started = time.perf_counter()
    page_document(path).to_json()
    return 1000 * (time.perf_counter() - started)


def measure(path: str, rounds: int, build: Callable[[str], float] = build_ms) -> dict[bool, list[float]]:
    """Build ``path`` ``rounds`` times each way, alternating, after one uncounted build each way."""
    times: dict[bool, list[float]] = {False: [], True: []}
    for lean in (False, True):
        use(lean)
        build(path)
    for _ in range(rounds):
        for lean in (False, True):
            use(lean)
            times[lean].append(build(path))
    use(True)
    return times


def main() -> None:
    """Print each lesson's build, both ways, side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8, help="builds of each page each way (default 8)")
    args = parser.parse_args()
    print(f"Building a lesson page with its lab and serializing it, in-process, median of {args.rounds}, alternating:")
    print(f"  {'lesson':10s} {'own code':>10s} {'lean':>10s} {'less':>6s}")
    for lesson in lessons():
        times = measure(f"/lesson?id={lesson.slug}", args.rounds)
        own, lean = statistics.median(times[False]), statistics.median(times[True])
        print(f"  {lesson.slug:10s} {own:8.0f} ms {lean:8.0f} ms {100 * (1 - lean / own):5.0f}%")


if __name__ == "__main__":
    main()
