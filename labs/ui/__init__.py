"""View pieces shared by the labs: a named region, typed number fields, browser playback."""

from __future__ import annotations

from pathlib import Path
from string import Template

from labs.ui.palette import inline

ASSETS = Path(__file__).parent / "assets"
"""The browser code and stylesheets of the labs: real ``.js`` and ``.css`` files, each read once per process by
the module that sends it."""


def browser_code(*names: str) -> str:
    """The named files of :data:`ASSETS` joined in order: one program for a page component or callback.

    Parameters
    ----------
    *names : str
        File names in ``labs/ui/assets/``, the ones that define functions first (``"formats.js"``
        before ``"player.js"``, which calls them).

    Returns
    -------
    str
        The files' text, one after the other.
    """
    return "\n".join((ASSETS / name).read_text(encoding="utf-8") for name in names)


def stylesheet(path: Path, compact: bool = False, **values: object) -> str:
    """A ``.css`` file's text as a component's stylesheet: the palette's colours and the given values put in.

    The course's CSS lives in files; each module reads its own once, on import, and hands the text to
    Panel (``stylesheets=[...]``, or a ``<style>`` in a Div's HTML). Handing Panel the file's path
    instead would add a Bokeh ``ImportedStyleSheet`` model to every page and a request the browser
    must make before it can draw the component (Panel does not serve a path given to one object).

    Parameters
    ----------
    path : pathlib.Path
        The ``.css`` file.
    compact : bool
        Join the lines without line breaks or indentation (CSS sent in a Div's HTML on each change).
    **values : object
        Values for the file's ``${NAME}`` placeholders (sizes the Python code also uses).

    Returns
    -------
    str
        The CSS, with each ``var(--ol-…)`` replaced by the colour itself (:func:`labs.ui.palette.inline`).

    Raises
    ------
    KeyError
        When the file names a placeholder not given, or a colour the palette does not have.
    """
    text = Template(path.read_text(encoding="utf-8")).substitute(values)
    if compact:
        text = "".join(line.strip() for line in text.splitlines())
    return inline(text)
