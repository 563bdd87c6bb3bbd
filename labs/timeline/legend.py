"""The Gantt's key: a swatch of every colour, hatch and mark the timeline draws, with what it means.

The swatches are drawn with CSS gradients in the hatches the figure uses (``/`` slowed, ``.`` stopped,
``x`` read too early, ``-`` never ends), so that the key reads in greyscale as the plot does.
"""

from __future__ import annotations

import html
from pathlib import Path

from labs.timeline.text import COMM, COMPUTE
from labs.ui import stylesheet
from labs.ui.palette import (
    BLUE,
    DARK_GREY,
    EXPOSED_RED,
    HUNG_GREY,
    INVALID_MAROON,
    ISSUE_BROWN,
    ORANGE,
    PALE_BLUE,
    READY_NAVY,
    SLOWED_BLUE_HATCH,
    SLOWED_ORANGE_HATCH,
    STALL_GREY,
    WHITE,
    inline,
)


def _hatch(base: str, line: str, angle: int) -> str:
    return f"background: repeating-linear-gradient({angle}deg, {line} 0 2px, {base} 2px 6px)"


COMMON: tuple[tuple[str, str], ...] = (
    (f"background: {BLUE}", COMPUTE),
    (f"background: {ORANGE}", COMM),
    (f"background: {EXPOSED_RED}26; border: 1px solid {EXPOSED_RED}", "exposed tail"),
)
"""What every step draws: a swatch's CSS and its meaning."""

MARKS: tuple[tuple[str, str, str], ...] = (
    ("▲", READY_NAVY, "bucket ready"),
    ("▼", ISSUE_BROWN, "all-reduce issued"),
    ("┆", DARK_GREY, "optimizer starts"),
    ("│", ORANGE, "now (t)"),
)
"""Each mark's glyph, colour and meaning."""

WRONG: tuple[tuple[str, str], ...] = (
    (_hatch(PALE_BLUE, SLOWED_BLUE_HATCH, -45), "/ backward slowed by contention"),
    (_hatch(ORANGE, SLOWED_ORANGE_HATCH, -45), "/ all-reduce slowed by contention"),
    (
        f"background: radial-gradient(circle, {DARK_GREY} 1.2px, transparent 1.5px) 0 0 / 5px 5px, {STALL_GREY}",
        ". backward stopped for a synchronization",
    ),
    (
        f"background: repeating-linear-gradient(45deg, {WHITE} 0 1.5px, transparent 1.5px 6px), "
        f"repeating-linear-gradient(-45deg, {WHITE} 0 1.5px, {INVALID_MAROON} 1.5px 6px)",
        "x read before it was written, or still running for the optimizer",
    ),
    (_hatch(HUNG_GREY, WHITE, 0), "- never ends (a rank skips a gradient)"),
)
"""What only a broken overlap draws, behind a disclosure: a swatch's CSS and its meaning."""

LEGEND_CSS = "<style>" + stylesheet(Path(__file__).parent / "assets" / "legend.css", compact=True) + "</style>"


def _swatches(entries: tuple[tuple[str, str], ...]) -> list[str]:
    return [
        f'<li><span class="swatch" style="{css}" aria-hidden="true"></span>{html.escape(meaning)}</li>'
        for css, meaning in entries
    ]


def legend_html() -> str:
    """The key as HTML: what every step draws in one line, what goes wrong behind a disclosure.

    Returns
    -------
    str
        A named list of swatches and marks, then a ``<details>`` with the hatches, with its own style.
    """
    marks = [
        f'<li><span class="mark" style="color:{colour}" aria-hidden="true">{glyph}</span>{html.escape(meaning)}</li>'
        for glyph, colour, meaning in MARKS
    ]
    return inline(
        f'{LEGEND_CSS}<div class="key"><ul class="key-list" aria-label="Key to the Gantt">'
        f"{''.join(_swatches(COMMON) + marks)}</ul>"
        "<details><summary>Key to what breaks the overlap</summary>"
        f'<ul class="key-list" aria-label="Key to what breaks the overlap">{"".join(_swatches(WRONG))}</ul>'
        "</details></div>"
    )
