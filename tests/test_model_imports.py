"""Model modules stay pure: param and numpy only (plus the shared model base)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LABS = Path(__file__).resolve().parents[1] / "labs"
ALLOWED = {"__future__", "param", "numpy", "typing", "labs.timed"}


@pytest.mark.parametrize("path", [*sorted(LABS.glob("*/model.py")), LABS / "timed.py"], ids=str)
def test_model_imports_only_param_and_numpy(path):
    imported = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module)
    assert imported <= ALLOWED, imported - ALLOWED
