"""``pn.config.set(design=...)`` saves and restores every config parameter for one value (stock Panel).

``_config.set`` (a context manager) reads every config parameter on the way in and again on the way
out, then restores whatever differs, each read through the session-aware
``_config.__getattribute__``. A template renders each of its parts inside
``with config.set(design=self.design)``. This script times that block, with an empty body, while
a document is being built (``state.curdoc`` set, as during a session's build), against saving and
restoring only ``design``. It also counts the blocks a BootstrapTemplate page build enters.

Run: python lean_config.py. Prints times per block (median of 7 rounds of 200) and the count.
"""

import os
import statistics
import time
from contextlib import contextmanager

import panel as pn
from bokeh.document import Document
from panel.config import _config, config
from panel.io.state import set_curdoc


@contextmanager
def set_only(**values):
    """Set the given parameters for the block and put back what each was."""
    before = {name: getattr(config, name) for name in values}
    for name, value in values.items():
        setattr(config, name, value)
    try:
        yield
    finally:
        for name, value in before.items():
            setattr(config, name, value)


def per_block_ms(manager) -> float:
    """Median ms of entering and leaving ``manager(design=Bootstrap)`` with an empty body."""
    rounds = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(200):
            with manager(design=pn.theme.Bootstrap):
                pass
        rounds.append((time.perf_counter() - start) * 1000 / 200)
    return statistics.median(rounds)


def blocks_in_a_page_build() -> int:
    """How many ``config.set`` blocks a BootstrapTemplate with three parts enters as it builds."""
    entered = 0
    panel_set = _config.set

    def counted(self, **kwargs):
        nonlocal entered
        entered += 1
        return panel_set(self, **kwargs)

    _config.set = counted
    try:
        page = pn.template.BootstrapTemplate(title="t", main=[pn.pane.Markdown("a")], sidebar=[pn.widgets.TextInput()])
        page.header.append(pn.pane.Markdown("h"))
        page.server_doc(Document())
    finally:
        _config.set = panel_set
    return entered


def main() -> None:
    """Time both ways inside a document's build, and count the blocks of one page."""
    with set_curdoc(Document()):
        parameters = sum(1 for name in config.param if name != "name")
        panel_ms, only_ms = per_block_ms(config.set), per_block_ms(set_only)
    print(f"config parameters read twice per block: {parameters}")
    print(f"with config.set(design=...): {panel_ms:.3f} ms a block; saving only design: {only_ms:.3f} ms "
          f"(load average {os.getloadavg()[0]:.1f})")
    print(f"config.set blocks entered building one BootstrapTemplate page: {blocks_in_a_page_build()}")


if __name__ == "__main__":
    main()
