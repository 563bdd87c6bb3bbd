"""labs/ui/palette.py: every colour once, as constants and custom properties, and nowhere else."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from labs.ui import palette

ROOT = Path(__file__).resolve().parents[2]
HEX = re.compile(r"#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b")
SOURCES = sorted(
    path
    for folder in ("app", "labs")
    for pattern in ("*.py", "*.js", "*.css", "*.html")
    for path in (ROOT / folder).rglob(pattern)
    if path.name != "palette.py"
)


def test_every_colour_is_six_digit_hex_and_written_once():
    colours = palette.colours()
    assert len(colours) > 30
    assert all(re.fullmatch(r"#[0-9a-f]{6}", value) for value in colours.values())
    assert len(set(colours.values())) == len(colours), "two names for one colour"


def test_every_colour_is_a_custom_property_on_the_root():
    for name, value in palette.colours().items():
        assert f"{palette.property_name(name)}: {value};" in palette.ROOT_CSS
    assert palette.property_name("BUTTON_BLUE_HOVER") == "--ol-button-blue-hover"
    assert palette.ROOT_CSS.startswith(":root {")


def test_inline_puts_the_colours_in_place_of_the_properties():
    css = "a { color: var(--ol-navy); border: 1px solid var(--ol-focus-orange); }"
    assert palette.inline(css) == f"a {{ color: {palette.NAVY}; border: 1px solid {palette.FOCUS_ORANGE}; }}"
    with pytest.raises(KeyError, match="--ol-no-such-colour"):
        palette.inline("a { color: var(--ol-no-such-colour); }")


def comment(line: str) -> bool:
    """A Python comment line, which may name a colour it explains (Panel's own, say)."""
    return line.lstrip().startswith("# ")


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_colour_is_written_outside_the_palette(path):
    text = path.read_text(encoding="utf-8")
    found = [match for line in text.splitlines() if not comment(line) for match in HEX.findall(line)]
    assert not found, f"use labs/ui/palette.py instead of {found}"
    palette.inline(text)  # every var(--ol-…) the file names is in the palette (KeyError if not)
