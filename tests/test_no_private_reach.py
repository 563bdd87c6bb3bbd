"""No module of app/ or labs/ outside app/upstream reaches a library's private name (issue 66, item 3).

Read from the source (AST), per module: a name is a *library object* when it is imported from Panel,
Bokeh, param or Tornado (``import panel as pn``, ``from panel.custom import JSComponent``), or is an
attribute chain or call result starting from one (``pn.state``, ``pn.pane.Markdown()``). A class is a
*library subclass* when a base is a library object or a project class that is one (followed across
the project's modules by name). The rule flags:

- ``X._name`` (not a dunder) where ``X`` is a library object: ``pn.state._sessions``;
- ``from <library> import _name`` and a base class whose name starts with ``_``;
- in a library subclass, ``super()._name``, and ``self._name`` / ``cls._name`` / ``def _name`` /
  a class-level ``_name = ...`` where the library class (or its bases) has that name already: a read
  of its private or a shadow of it (the compression handler's ``_lock`` shadowed Tornado's), checked
  by looking the name up on the imported library class and in its source;

except the names Panel documents as the API of custom components (:data:`DOCUMENTED`).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIBRARIES = ("panel", "bokeh", "param", "tornado")

DOCUMENTED = {
    # https://panel.holoviz.org/reference/custom_components/JSComponent.html ("JSComponent Attributes")
    "_esm": "https://panel.holoviz.org/reference/custom_components/JSComponent.html",
    "_importmap": "https://panel.holoviz.org/reference/custom_components/JSComponent.html",
    "_stylesheets": "https://panel.holoviz.org/reference/custom_components/JSComponent.html",
    "_bundle": "https://panel.holoviz.org/how_to/custom_components/esm/build.html",
    "_rename": "https://panel.holoviz.org/reference/custom_components/JSComponent.html",
    "_handle_msg": "https://panel.holoviz.org/reference/custom_components/JSComponent.html",
    # Python to the page's model.on("msg:custom", ...), as the JSComponent page's messaging section shows
    # (its docstring in panel/custom.py says the same; the page not re-read on 2026-12-07)
    "_send_msg": "https://panel.holoviz.org/reference/custom_components/JSComponent.html",
}
"""Underscore names that Panel's docs give as the way to write a custom component, with where."""
HANDLERS = re.compile(r"_handle_\w+")
"""``_handle_<event>``: a component's Python callback for a browser event
(https://panel.holoviz.org/how_to/custom_components/esm/callbacks.html)."""

ALLOWED: set[str] = {
    # CourseTemplate sets BasicTemplate's _template (its Jinja file), the one way Panel's Bootstrap family of
    # templates takes a page of its own (each of Panel's templates sets it so). The public route, pn.Template
    # with a Jinja string (https://panel.holoviz.org/how_to/templates/template_custom.html), would give up the
    # Bootstrap template's header, main and modal areas the course uses; kept, and named here (issue 66).
    "app/web/shell.py: CourseTemplate shadows _template",
}
"""``path: what`` reaches (at any line) let through, each with why."""


def is_private(name: str) -> bool:
    """An underscore name that is not a dunder."""
    return name.startswith("_") and not name.endswith("__")


def modules() -> list[Path]:
    """Every module of app/ and labs/ outside app/upstream."""
    found = sorted((ROOT / "app").rglob("*.py")) + sorted((ROOT / "labs").rglob("*.py"))
    return [path for path in found if "upstream" not in path.relative_to(ROOT).parts[:2]]


def library_imports(tree: ast.Module) -> dict[str, str]:
    """Each name a module binds to a library object, with its dotted path (``{"pn": "panel"}``)."""
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in LIBRARIES:
                    bound[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0]
                    )
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] in LIBRARIES:
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bound


def dotted(node: ast.expr, bound: dict[str, str]) -> str | None:
    """The library path an expression starts from (``pn.pane.Markdown()`` -> ``panel.pane.Markdown()``)."""
    if isinstance(node, ast.Name):
        return bound.get(node.id)
    if isinstance(node, ast.Attribute):
        base = dotted(node.value, bound)
        return f"{base}.{node.attr}" if base else None
    if isinstance(node, ast.Call):
        base = dotted(node.func, bound)
        return f"{base}()" if base else None
    if isinstance(node, ast.Subscript):
        return dotted(node.value, bound)
    return None


@cache
def resolve(path: str) -> object | None:
    """The library object at a dotted path (``"tornado.web.StaticFileHandler"``), or None."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            found = getattr(found, part, None)
        return found
    return None


@cache
def library_has(path: str, name: str) -> bool:
    """Whether the library class at ``path`` (or a base of it) has ``name``, as attribute or in its source."""
    cls = resolve(path)
    if not isinstance(cls, type):
        return False
    if hasattr(cls, name):
        return True
    return any(f"self.{name}" in source_names(base) for base in cls.__mro__)


@cache
def source_names(cls: type) -> frozenset[str]:
    """Every ``self._name`` a library class's own source writes or reads (empty for the project's and builtins)."""
    if (cls.__module__ or "").split(".")[0] not in LIBRARIES:
        return frozenset()
    try:
        return frozenset(re.findall(r"\bself\._\w+", inspect.getsource(cls)))
    except (OSError, TypeError):
        return frozenset()


def project_classes() -> dict[str, list[str]]:
    """Each project class's name, with the library classes it derives from (directly or through the project's)."""
    direct: dict[str, list[str]] = {}
    project_bases: dict[str, list[str]] = {}
    for path in modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bound = library_imports(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                paths = [dotted(base, bound) for base in node.bases]
                direct.setdefault(node.name, []).extend(p for p in paths if p)
                project_bases.setdefault(node.name, []).extend(
                    base.id if isinstance(base, ast.Name) else base.attr
                    for base, p in zip(node.bases, paths, strict=True)
                    if p is None and isinstance(base, ast.Name | ast.Attribute)
                )
    derived = {name: list(paths) for name, paths in direct.items()}
    for _ in range(10):  # through the project's own hierarchy, a few levels deep
        for name, bases in project_bases.items():
            for base in bases:
                for path in derived.get(base, []):
                    if path not in derived[name]:
                        derived[name].append(path)
    return derived


def reaches(path: Path, derived: dict[str, list[str]]) -> list[str]:
    """Every reach into a library's private names in one module, as ``"line: what"``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bound = library_imports(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] in LIBRARIES:
            found += [f"{node.lineno}: from {node.module} import {a.name}" for a in node.names if is_private(a.name)]
        elif isinstance(node, ast.Attribute) and is_private(node.attr) and dotted(node.value, bound):
            found.append(f"{node.lineno}: {dotted(node.value, bound)}.{node.attr}")
        elif isinstance(node, ast.ClassDef) and derived.get(node.name):
            found += class_reaches(node, derived[node.name], bound)
    return found


def class_reaches(cls: ast.ClassDef, libraries: list[str], bound: dict[str, str]) -> list[str]:
    """The reaches of one library subclass: private bases, super()/self/cls reads, overrides and shadows."""
    found = []
    for base in cls.bases:
        name = dotted(base, bound)
        if name and is_private(name.rsplit(".", 1)[-1]):
            found.append(f"{cls.lineno}: class {cls.name}({name})")

    def library_name(name: str) -> bool:
        documented = name in DOCUMENTED or HANDLERS.fullmatch(name)
        return is_private(name) and not documented and any(library_has(lib, name) for lib in libraries)

    for node in cls.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and library_name(node.name):
            found.append(f"{node.lineno}: {cls.name} overrides def {node.name}")
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        for target in targets:
            if isinstance(target, ast.Name) and library_name(target.id):
                found.append(f"{node.lineno}: {cls.name} shadows {target.id}")
    for node in ast.walk(cls):
        if not isinstance(node, ast.Attribute) or not library_name(node.attr):
            continue
        value = node.value
        is_super = isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super"
        if is_super or (isinstance(value, ast.Name) and value.id in ("self", "cls")):
            found.append(f"{node.lineno}: {cls.name} reads {'super()' if is_super else value.id}.{node.attr}")
    return found


def test_no_module_outside_app_upstream_reaches_a_library_private():
    derived = project_classes()
    found = {f"{path.relative_to(ROOT)}:{line}" for path in modules() for line in reaches(path, derived)}
    assert sorted(reach for reach in found if re.sub(r":\d+:", ":", reach, count=1) not in ALLOWED) == []


def test_the_rule_finds_each_kind_of_reach():
    source = """
import panel as pn
from panel.custom import JSComponent
from panel.reactive import _Private
from tornado.web import StaticFileHandler

html = pn.pane.Markdown()._transform_object("x")
sessions = pn.state._sessions

class Handler(StaticFileHandler):
    _lock = None
    def get(self):
        return super()._stat()

class Card(JSComponent):
    _esm = "x"
    _stylesheets = []
    def _handle_click(self, event): ...
    def _get_model(self, doc, root=None, parent=None, comm=None): ...

class Mine(Card):
    def build(self):
        return self._models
"""
    tree = ast.parse(source)
    bound = library_imports(tree)
    derived = {"Handler": ["tornado.web.StaticFileHandler"], "Card": ["panel.custom.JSComponent"]}
    derived["Mine"] = derived["Card"]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "panel.reactive":
            found.append("import")
        elif isinstance(node, ast.Attribute) and is_private(node.attr) and dotted(node.value, bound):
            found.append(f"{dotted(node.value, bound)}.{node.attr}")
        elif isinstance(node, ast.ClassDef):
            found += [line.split(": ", 1)[1] for line in class_reaches(node, derived[node.name], bound)]
    assert sorted(found) == sorted(
        [
            "import",
            "panel.pane.Markdown()._transform_object",
            "panel.state._sessions",
            "Handler shadows _lock",
            "Handler reads super()._stat",
            "Card overrides def _get_model",
            "Mine reads self._models",
        ]
    )
