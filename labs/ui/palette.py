"""Every colour the course uses, once: as Python constants and as CSS custom properties.

Each constant is a six-digit lowercase hex colour; its docstring says where it is used. The texts
and the controls' colours were chosen for contrast: text at 4.5:1 or more on its background, focus
rings and plot marks at 3:1 or more (``tests/browser/test_a11y_browser.py`` checks the pages with axe), so
a colour changes here or not at all.

Three ways to use them:

- Python (Bokeh figures, inline ``style`` attributes): the constants, e.g. ``color=BLUE``.
- A component's stylesheet, kept in an ``assets/*.css`` file: write ``var(--ol-blue)`` and read it
  with :func:`labs.ui.stylesheet`, which passes it through :func:`inline` to put the colour itself
  in its place. The served CSS is then the same whether or not the page defines the custom
  properties (a shadow root, a test page).
- A static ``.css`` file on a page that includes :data:`ROOT_CSS` (every course page does, through
  ``app/web/shell.py``; the 404 page puts it before its own style): ``var(--ol-blue)`` as it is.
"""

from __future__ import annotations

import re

# -- the course frame ------------------------------------------------------------------------------

NAVY = "#1f3b57"
"""The frame's header background; the skip link's text and border; the 404 page's focus ring;
the roofline's flat roof; the class's result line on the exercise card."""

WHITE = "#ffffff"
"""Page background; text on the navy header and on primary buttons; the skip link's background;
the outline of bars and points in the figures."""

AMBER = "#ffbf47"
"""The focus ring on the navy header (the title link, the skip link)."""

INK = "#212529"
"""The 404 page's body text (Bootstrap's body colour, as on the Panel pages)."""

LINK_BLUE = "#0b5394"
"""The 404 page's links."""

# -- the figures -------------------------------------------------------------------------------

BLUE = "#1f6fb2"
"""Compute (timeline and trace bars), memory (the roofline's bandwidth slope), the queue's backlog
curve, the latest round in the class histogram; also the exercise card's border and the left edge
of a note box."""

ORANGE = "#d4541a"
"""Communication (all-reduce bars), the roofline's compute, the queue's marker, the playhead."""

EXPOSED_RED = "#c0392b"
"""Exposed communication: the part of the all-reduces that no compute hides."""

EXPOSED_DARK = "#3b0000"
"""The exposed stretch of an all-reduce on the trace page: a band at 4.3:1 against the orange bar it
lies on and 17.7:1 against white (the exposed red is 1.3:1 on orange, too faint there)."""

BAR_LABEL_INK = "#000000"
"""Bucket numbers written on the trace page's orange bars: 5.1:1."""

SCROLL_EDGE_GREY = "#6c757d"
"""The right edge drawn on a trace table that scrolls sideways on a phone, where the table goes on."""

PURPLE = "#6a3d9a"
"""The M/M/1 reference (queue) and the ridge point (roofline)."""

STOP_GREEN = "#2a7d3f"
"""The queue's "arrivals stop" time."""

KERNEL_GREEN = "#2a9d3f"
"""The roofline's kernel point."""

KERNEL_LABEL_GREEN = "#1d6e2c"
"""The text next to the roofline's kernel point."""

PALE_BLUE = "#8fb8de"
"""Backward compute slowed by contention (timeline); the first round in the class histogram."""

SLOWED_BLUE_HATCH = "#0b3c66"
"""The hatching over slowed compute (timeline)."""

SLOWED_ORANGE_HATCH = "#5a1d00"
"""The hatching over a slowed all-reduce (timeline)."""

INVALID_MAROON = "#7d0a0a"
"""An all-reduce that read gradients before they were written (timeline)."""

HUNG_GREY = "#4d4d4d"
"""A collective that hangs because a rank skipped a gradient (timeline)."""

STALL_GREY = "#9a9a9a"
"""Backward stopped for a synchronization (timeline)."""

READY_NAVY = "#14213d"
"""The ▲ mark where a bucket's gradients are ready (timeline and trace)."""

ISSUE_BROWN = "#7a3b00"
"""The ▼ mark where a bucket's all-reduce is issued (timeline and trace)."""

# -- text ------------------------------------------------------------------------------------------

DARK_GREY = "#333333"
"""Secondary text (notes under the timeline's controls, a disabled prediction); the optimizer line,
the sweep's point and the stall hatching in the timeline."""

MUTED_GREY = "#444444"
"""Small print: the M/M/1 assumptions, the roofline's notes, the note shown while playing; Bokeh's
titles and tick labels, which a lab's first frame draws (labs/ui/first_frame.py)."""

PLOT_GRID = "#e5e5e5"
"""Bokeh's grid lines and the outline of a plot's frame, as a lab's first frame draws them."""

FAINT_GREY = "#555555"
"""The timeline's "no overlap" line and label; the bucket table's placeholder."""

ERROR_RED = "#a4000f"
"""Refusals and alerts: a field's error, a bad link, an unreadable trace, a wrong instructor token;
the lost-connection notice's top border; the answer line in the class histogram."""

GATE_BROWN = "#7a4b00"
"""Why Play or a control is held back during an exercise."""

DONE_GREEN = "#1b6e2a"
"""Done: a finished exercise step, a completed lesson on the index."""

CORRECT_GREEN = "#14591f"
"""The text of "Correct" feedback."""

CORRECT_BACKGROUND = "#e3f4e6"
"""The background of "Correct" feedback."""

WRONG_RED = "#8a1c12"
"""The text of "Not quite" feedback."""

WRONG_BACKGROUND = "#fdeceb"
"""The background of "Not quite" feedback."""

NOTICE_INK = "#1a1a1a"
"""The lost-connection notice's text."""

NOTICE_BACKGROUND = "#fff8e6"
"""The lost-connection notice's background."""

CODE_BLUE = "#1d3f6e"
"""Inline code in the lesson prose (Panel's own is 2.3:1 on white; this is 10:1)."""

CODE_BACKGROUND = "#eef2f7"
"""The background of inline code in the lesson prose."""

# -- controls --------------------------------------------------------------------------------------

BUTTON_BLUE = "#1a5a96"
"""Bokeh's primary buttons (Play), their focus ring, and the plot description's summary link."""

BUTTON_BLUE_HOVER = "#134a7e"
"""A primary Bokeh button under the pointer."""

CARD_BUTTON_BLUE = "#1f5f99"
"""The exercise card's and the connection notice's primary buttons."""

CARD_BUTTON_EDGE = "#1f4f80"
"""Their border, the text of their secondary buttons, and their colour under the pointer."""

FOCUS_ORANGE = "#b35900"
"""The focus ring of text fields, switches, the exercise card and the connection notice."""

INPUT_EDGE = "#8a8f98"
"""The border of text inputs."""

DISABLED_BACKGROUND = "#eef1f4"
"""A disabled prediction input."""

NOTE_BACKGROUND = "#f3f6fa"
"""A note box under a lab."""

CARD_BACKGROUND = "#fbfdff"
"""The exercise card."""

TABLE_EDGE = "#767676"
"""The cell borders of a plot's data table."""

EXPLANATION_EDGE = "#999999"
"""The left border of an exercise's explanation."""

PANEL_EDGE = "#c9d3de"
"""The border of a lab's control panel (a decoration: each field has its own edge)."""

PANEL_BACKGROUND = "#f8fafc"
"""A lab's control panel."""

SPOTLIGHT_BACKGROUND = "#fff4e5"
"""A control an exercise step has just brought into view, for a moment."""

# --------------------------------------------------------------------------------------------------

PREFIX = "--ol-"
"""What every custom property's name starts with."""

_HEX = re.compile(r"#[0-9a-f]{6}")
_VAR = re.compile(r"var\(--ol-([a-z0-9-]+)\)")


def colours() -> dict[str, str]:
    """Every colour of this module by its constant's name.

    Returns
    -------
    dict of str to str
        For example ``{"NAVY": "#1f3b57", ...}``, in the order they are defined.
    """
    return {name: value for name, value in globals().items() if name.isupper() and _HEX.fullmatch(str(value))}


def property_name(constant: str) -> str:
    """The CSS custom property of a constant: ``BUTTON_BLUE`` is ``--ol-button-blue``.

    Parameters
    ----------
    constant : str
        A constant's name.

    Returns
    -------
    str
        The property's name.
    """
    return PREFIX + constant.lower().replace("_", "-")


CUSTOM_PROPERTIES = {property_name(name): value for name, value in colours().items()}
"""Every colour as a CSS custom property: ``{"--ol-navy": "#1f3b57", ...}``."""

ROOT_CSS = ":root { " + " ".join(f"{name}: {value};" for name, value in CUSTOM_PROPERTIES.items()) + " }"
"""A stylesheet defining every custom property on the document, for a page's ``<style>``."""


def inline(css: str) -> str:
    """Put the colour itself in place of every ``var(--ol-…)`` in ``css``.

    Parameters
    ----------
    css : str
        CSS naming this palette's colours as custom properties.

    Returns
    -------
    str
        The same CSS with hex colours, independent of where it is used.

    Raises
    ------
    KeyError
        When ``css`` names a property this palette does not have (a typo is caught on import).
    """
    return _VAR.sub(lambda match: CUSTOM_PROPERTIES[PREFIX + match.group(1)], css)
