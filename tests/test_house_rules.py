"""The house's rules for app/ and labs/, checked on the source: small modules, and CSS in .css files.

A component's CSS lives in an asset file read with :func:`labs.ui.stylesheet` (see how
``app/web/connection.py`` reads ``assets/connection.css``), never in a Python string; an exercise's
runner stays small enough to read (``docs/architecture.md``, "Adding a step kind").
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(path for folder in ("app", "labs") for path in (ROOT / folder).rglob("*.py"))

MAX_LINES = 400
"""The most lines a module in app/ or labs/ may have."""

CSS_ALLOWED: set[str] = set()
"""Modules whose strings may still hold CSS: none (shell.py's page CSS moved to app/web/assets/shell.css in
issue #64)."""

MAX_DECLARATIONS = 4
"""The most CSS declarations one string may hold (a short ``style`` attribute in an HTML fragment); more is a
stylesheet, and belongs in a file."""

_PROPERTY = (
    r"(?:margin|padding|font|color|background|border|display|position|width|height|min-width|min-height|"
    r"max-width|max-height|overflow|flex|gap|align|justify|text|line-height|box|outline|cursor|z-index|top|"
    r"left|right|bottom|grid|white-space|vertical-align|opacity|transition|content|resize|visibility|inset|"
    r"place|order|letter-spacing|word|list-style|float|clear|fill|stroke|--[a-z][a-z0-9-]*)(?:-[a-z]+)*"
)
DECLARATION = re.compile(rf"(?<![\w-]){_PROPERTY}\s*:\s*[^;{{}}<>\n\"'`]+?(?=\s*[;}}\"']|\s*$)")
"""``property: value`` as CSS writes it, ended by ``;``, ``}``, a quote or the string's end (prose has none of these
right after a colon and a short value)."""
RULE = re.compile(rf"[^{{}}]*\{{[^{{}}]*(?<![\w-]){_PROPERTY}\s*:[^{{}}]*\}}")
"""``selector { property: value }``: a stylesheet's rule."""


def css_in_strings(source: str) -> list[tuple[int, str]]:
    """Each string constant of ``source`` holding a CSS rule or more than MAX_DECLARATIONS declarations."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            declarations = len(DECLARATION.findall(node.value))
            if RULE.search(node.value) or declarations > MAX_DECLARATIONS:
                found.append((node.lineno, node.value[:60]))
    return found


def test_the_css_finder_finds_a_stylesheet_and_a_long_inline_style_but_not_prose():
    sheet = 'CSS = """\n.share { margin: 4px 0; max-width: 100%; }\n"""'
    inline = "HTML = '<p style=\"margin:0;padding:2px;color:red;font-size:1rem;border:0\">'"
    prose = '"""Parameters: the rate; the width: in pixels; the margin: 4 px (see below); height: 2."""'
    short = "HTML = \"<p style='margin:2px 0;font-size:0.95rem'>\""
    assert css_in_strings(sheet) and css_in_strings(inline)
    assert not css_in_strings(prose) and not css_in_strings(short)


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(ROOT)) for p in SOURCES])
def test_no_python_string_holds_css(path):
    if str(path.relative_to(ROOT)) in CSS_ALLOWED:
        return
    found = css_in_strings(path.read_text(encoding="utf-8"))
    assert not found, f"CSS in a Python string (move it to a .css file read with labs.ui.stylesheet): {found}"


def test_no_module_in_app_or_labs_is_over_400_lines():
    sizes = {str(p.relative_to(ROOT)): len(p.read_text(encoding="utf-8").splitlines()) for p in SOURCES}
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}


def test_the_exercise_runner_has_under_15_methods_and_properties():
    from app.course.exercise import ExerciseRunner

    own = [
        name
        for name, value in vars(ExerciseRunner).items()
        if not (name.startswith("__") and name.endswith("__"))
        and (inspect.isfunction(value) or isinstance(value, property))
    ]
    assert len(own) < 15, own
