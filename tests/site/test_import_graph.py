"""The packages of ``app`` import downwards only: no cycle, and ``app.upstream`` imports nothing else of ``app``.

Read from the source (every ``import`` statement, at any depth, including those inside functions),
so a lazy import cannot hide an upward reach. The layers, lowest first: ``labs`` (the labs, which
know nothing of ``app``), ``app.upstream`` (fixes to the libraries), ``app.web`` (the toolkit every
page uses), ``app.trace``, ``app.course``, ``app.classroom``, ``app.lti`` (the course launched from an
LMS), and ``app.site`` (the server and page scripts: the composition root).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("labs", "app.upstream", "app.web", "app.trace", "app.course", "app.classroom", "app.lti", "app.site")
"""Each package may import those before it, never those after it."""


def package_of(module: str) -> str | None:
    """The layer a dotted module name belongs to (None: outside the project, or ``app`` itself)."""
    parts = module.split(".")
    if parts[0] == "labs":
        return "labs"
    if parts[0] == "app" and len(parts) > 1:
        return ".".join(parts[:2])
    return None


def imports_between_packages() -> dict[tuple[str, str], list[str]]:
    """Every (importer, imported) pair of packages, with the files that make it."""
    found: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted([*(ROOT / "app").rglob("*.py"), *(ROOT / "labs").rglob("*.py")]):
        relative = path.relative_to(ROOT).with_suffix("")
        importer = package_of(".".join(relative.parts))
        if importer is None or importer == "app.__main__":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                imported = package_of(name)
                if imported is not None and imported != importer:
                    found[(importer, imported)].append(str(relative))
    return found


def test_every_package_is_in_a_layer():
    packages = {package for pair in imports_between_packages() for package in pair}
    packages |= {f"app.{p.name}" for p in (ROOT / "app").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages <= set(LAYERS), f"place {sorted(packages - set(LAYERS))} in LAYERS"


def test_no_package_imports_one_above_it():
    upward = [
        f"{importer} imports {imported} (in {', '.join(sorted(set(files)))})"
        for (importer, imported), files in imports_between_packages().items()
        if LAYERS.index(imported) > LAYERS.index(importer)
    ]
    assert upward == []


def test_upstream_imports_nothing_else_of_app():
    reaches = [
        f"{imported} (in {', '.join(sorted(set(files)))})"
        for (importer, imported), files in imports_between_packages().items()
        if importer == "app.upstream" and imported.startswith("app.")
    ]
    assert reaches == []
