"""Every Panel template builds a notebook widget that only ``pn.Template`` ever reads (stock Panel).

``BaseTemplate.__init__`` calls ``self._build_layout()``: a ``Str`` pane holding the template's
``repr``, an ``HTML`` pane and a "Launch server" ``Button`` with a watcher, in a ``Column``, kept as
``_layout``. ``BasicTemplate`` and its subclasses (Bootstrap, Material, FastList, ...) never read
``_layout`` again, served or in a notebook; ``pn.Template.add_panel`` is the only reader in Panel.
This script shows what a served page's template builds and times it against the template's creation.

Run: python template_layout.py. Prints the objects built and times (median of 21).
"""

import os
import re
import statistics
import time
from pathlib import Path

import panel
import panel as pn


def median_ms(fn, rounds: int = 21) -> float:
    """Median wall time of ``fn`` in ms."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    """Show the notebook widget of a BootstrapTemplate and time building it."""
    page = pn.template.BootstrapTemplate(title="Demo", main=[pn.pane.Markdown("text " * 50)],
                                         sidebar=[pn.widgets.FloatSlider(name="x")])
    layout = page._layout
    print("BootstrapTemplate._layout:", type(layout).__name__, [type(obj).__name__ for obj in layout])
    readers = []
    for path in sorted(Path(panel.__file__).parent.rglob("*.py")):
        if "tests" in path.parts:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"self\._layout\b", line) and "templat" in str(path):
                readers.append(f"{path.name}:{number}: {line.strip()}")
    print("every use of self._layout in panel/template:", *readers, sep="\n  ")
    whole = median_ms(lambda: pn.template.BootstrapTemplate(title="Demo"))
    empty = pn.template.BootstrapTemplate(title="Demo")
    layout_only = median_ms(empty._build_layout)
    print(f"BootstrapTemplate(title=...): {whole:.2f} ms; its _build_layout() alone: {layout_only:.2f} ms "
          f"({layout_only / whole:.0%}) (load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
