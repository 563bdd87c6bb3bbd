"""Every lab's custom models exist before the first page is served (app.course.catalog.import_every_view).

Bokeh writes the definition of every data model that exists into each page it serves; a lab whose
view were first imported when a student opened it would be unknown to every page loaded before.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CHECK = """
import sys
import app.site.panel_plugin  # what `panel serve ... --plugins app.site.panel_plugin` imports at start-up
from bokeh.model import Model
from panel.custom import ReactiveESM

def every_subclass(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from every_subclass(sub)

views = [name for name in sys.modules if name.startswith("labs.") and name.endswith(".view")]
custom = {c.__name__: c._data_model.__name__ for c in every_subclass(ReactiveESM) if c.__module__.startswith("labs.")}
missing = [name for name in custom.values() if name not in Model.model_class_reverse_map]
print(sorted(views), sorted(custom), missing)
assert {"labs.queue.view", "labs.roofline.view", "labs.timeline.view"} <= set(views), views
assert "LabStage" in custom and not missing, (custom, missing)
"""


def test_serving_imports_every_labs_view_and_its_custom_models():
    """In a fresh process, as ``panel serve`` starts: the labs' components (the stage) are known before any page."""
    result = subprocess.run(
        [sys.executable, "-c", CHECK],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert result.returncode == 0, result.stderr[-2000:]
