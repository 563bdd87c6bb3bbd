"""How many CSS declarations are still written in Python strings, per file (issue 46, item 6).

Counts, in every string literal of the ``.py`` files under the folders given, the declarations
(``property: value``) inside rule blocks (``selector { ... }``: a stylesheet held in a string) and
inside ``style="..."`` attributes (inline styles in HTML text), each separately. A heuristic: a
docstring that shows CSS counts too, which is why the two columns are printed per file.

Usage: ``.venv/bin/python -m bench.css_in_python labs app/course app/classroom app/trace``
"""

from __future__ import annotations

import io
import re
import sys
import tokenize
from pathlib import Path

BLOCK = re.compile(r"[\w\])*>,.:-]\s*\{\{?([^{}]*?:[^{}]*?)\}\}?")
ATTR = re.compile(r"style=\\?['\"]([^'\"]*)")
DECLARATION = re.compile(r"(?:^|[;\s])-?-?[a-z][a-z-]*\s*:\s*[^;]+")


def count(path: Path) -> tuple[int, int]:
    """Declarations in rule blocks and in ``style=`` attributes of ``path``'s string literals."""
    in_rules = in_attributes = 0
    for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if token.type == tokenize.STRING:
            in_rules += sum(len(DECLARATION.findall(m.group(1))) for m in BLOCK.finditer(token.string))
            in_attributes += sum(len(DECLARATION.findall(m.group(1))) for m in ATTR.finditer(token.string))
    return in_rules, in_attributes


def main() -> None:
    """Print each file's counts and the totals."""
    totals = [0, 0]
    for folder in sys.argv[1:] or ["labs", "app"]:
        for path in sorted(Path(folder).rglob("*.py")):
            rules, attributes = count(path)
            if rules or attributes:
                print(f"{rules:4d} in rules {attributes:4d} in style= {path}")
            totals[0] += rules
            totals[1] += attributes
    print(f"total: {totals[0]} in rule blocks, {totals[1]} in style= attributes")


if __name__ == "__main__":
    main()
