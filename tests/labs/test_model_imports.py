"""Model modules stay pure: param and numpy only (plus the shared model base)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LABS = Path(__file__).resolve().parents[2] / "labs"
# Model modules, the shared base, and the pure modules models are built from (e.g. a lab's schedule).
PURE = [
    *sorted(LABS.glob("*/model.py")),
    *sorted(LABS.glob("*/schedule.py")),
    LABS / "timeline" / "buckets.py",
    LABS / "timeline" / "layers.py",
    LABS / "timeline" / "presets.py",
    LABS / "timeline" / "controls.py",
    LABS / "timeline" / "choices.py",
    LABS / "timeline" / "drawn.py",
    LABS / "timeline" / "readings.py",
    LABS / "timeline" / "stream.py",
    LABS / "timed.py",
    LABS / "numbers.py",
]
# The one number parser and formatter (labs/numbers.py) reads and writes text with the standard library.
TEXT_STDLIB = {"math", "re"}
ALLOWED = {"__future__", "param", "numpy", "typing"} | {
    ".".join(path.relative_to(LABS.parent).with_suffix("").parts) for path in PURE
}


@pytest.mark.parametrize("path", PURE, ids=str)
def test_model_imports_only_param_and_numpy(path):
    imported = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module)
    allowed = ALLOWED | (TEXT_STDLIB if path.name == "numbers.py" else set())
    assert imported <= allowed, imported - allowed
