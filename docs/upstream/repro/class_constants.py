"""Panel works out, per model built, a design's stylesheets and a component's ESM that depend only on the class.

Stock Panel. ``Design._get_modifiers`` (``panel/theme/base.py``) resolves the theme's ``base_css``
and ``css`` files again for every model it styles (``pathlib.Path``, ``relative_to`` Panel's theme
directory, a resource path), and ``ReactiveESM._render_esm`` (``panel/custom.py``) looks for a
compiled bundle on disk, and reads and dedents the ``_esm`` source, for every model of a custom
component. This script builds a BootstrapTemplate page with 40 widgets and 10 JSComponents into a
document, counting the calls to each method, their time (wrappers that call Panel's own), and how
many distinct answers they returned.

Run: python class_constants.py. Prints calls, distinct answers and time, per page (median of 5 builds).
"""

import os
import statistics
import time

import panel as pn
import param
from bokeh.document import Document
from panel.custom import JSComponent, ReactiveESM
from panel.theme.base import Design

calls: dict[str, list] = {"_get_modifiers": [], "_render_esm": []}
spent: dict[str, float] = {"_get_modifiers": 0.0, "_render_esm": 0.0}


def timed(owner: type, name: str) -> None:
    """Replace the classmethod ``owner.name`` by one that records its answer and time, calling Panel's."""
    panel_method = owner.__dict__[name].__func__

    def recorded(cls, *args, **kwargs):
        start = time.perf_counter()
        answer = panel_method(cls, *args, **kwargs)
        spent[name] += time.perf_counter() - start
        calls[name].append((cls, repr(answer)))
        return answer

    setattr(owner, name, classmethod(recorded))


class Badge(JSComponent):
    """A small custom component."""

    value = param.Integer(default=0)
    _esm = """
    export function render({ model }) {
      const el = document.createElement("span")
      el.textContent = String(model.value)
      return el
    }
    """


def page() -> pn.template.BootstrapTemplate:
    """A template with 40 widgets and 10 custom components."""
    widgets = [pn.widgets.FloatSlider(name=f"s{i}") for i in range(20)]
    widgets += [pn.widgets.TextInput(name=f"t{i}") for i in range(20)]
    badges = [Badge(value=i) for i in range(10)]
    return pn.template.BootstrapTemplate(title="t", main=[pn.Column(*widgets), pn.Row(*badges)])


def main() -> None:
    """Build the page five times, counting and timing the two methods in each build."""
    timed(Design, "_get_modifiers")
    timed(ReactiveESM, "_render_esm")
    page().server_doc(Document())  # warm-up
    builds, per_build = [], []
    for _ in range(5):
        for record in calls.values():
            record.clear()
        for key in spent:
            spent[key] = 0.0
        template = page()
        start = time.perf_counter()
        template.server_doc(Document())
        builds.append((time.perf_counter() - start) * 1000)
        per_build.append({name: (len(record), len(set(record)), spent[name] * 1000) for name, record in calls.items()})
    print(f"page build: {statistics.median(builds):.1f} ms (median of 5; load average {os.getloadavg()[0]:.1f})")
    for name in calls:
        n, distinct = per_build[-1][name][:2]
        ms = statistics.median(build[name][2] for build in per_build)
        print(f"{name:15s} calls: {n:3d}; distinct (class, answer) pairs: {distinct:2d}; time in it: {ms:.1f} ms")


if __name__ == "__main__":
    main()
