"""A page's scripts, loaded so that BokehJS arrives first, and Bokeh's embed code waiting for them.

Bokeh's page template writes one ``<script src>`` tag per bundle in the head. Chromium asks for all
of them at once and they share the network, so on a phone's slow 4G (4 Mbit/s, 150 ms, CPU 4×)
BokehJS, the largest (351 kB gzipped of 0.8 MB) and the first to run, arrived last, after 2.0 s,
and only then did BokehJS, its widgets and tables, Bootstrap and Panel run, 0.7 s more with the
network idle. :func:`scripts_html` writes the same scripts as one call of
``assets/bundle_loader.js`` instead: the bundles up to BokehJS are fetched alone, the rest the
moment they have arrived, and BokehJS runs while the rest comes in. The scripts still run in the
page's order, each once it is in; Bokeh's inline code after them runs after them, as before.

They are no longer parser-blocking, so the page's ``DOMContentLoaded`` comes before they have run.
Bokeh's embed code (``bokeh.embed.wrappers._ONLOAD``, which Panel sets to run it at
``DOMContentLoaded``) must then wait for the loader's promise, ``window.overlapBundles``:
:mod:`app.upstream.bundle_onload` makes it, and a page uses the loader only where that fix is
installed (:func:`app.web.shell.course_scripts`).

It also leaves out the BokehJS bundles no course page uses (:data:`UNUSED_BUNDLES`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path

from markupsafe import Markup

from app.web.delivery.browser_code import script

ASSETS = Path(__file__).parent / "assets"

LOADER_JS = script(ASSETS / "bundle_loader.js")
"""``assets/bundle_loader.js`` without its comment lines: a function of the bundles and steps."""

UNUSED_BUNDLES = ("/bokeh-mathjax.", "/bokeh-gl.")
"""Parts of the URLs of BokehJS bundles no course page uses, left out of every page.

Panel 1.9.4 adds MathJax (1.8 MB, 0.6 MB gzipped) to any page holding an HTML or Markdown pane
(``bundle_resources`` in ``panel/io/resources.py``: any ``panel.models.markup.HTML`` in the roots)
and has no setting to say otherwise; its server pages always load WebGL (0.2 MB). No lesson has TeX
and no plot draws with ``output_backend="webgl"`` (``tests/web/test_page_bytes.py`` checks both).
"""

CLASSIC_SCRIPT_TYPES = ("", "text/javascript", "application/javascript")
"""``type`` attributes of classic scripts, the kind the loader runs; others (a module, es-module-shims'
``esms-options``) stay tags of their own."""

FIRST_TO_RUN = ("/bokeh.min.js", "/bokeh.js")
"""BokehJS's main bundle (minified or not): every other bundle needs it, so it is fetched first."""

FAILURE = "Part of this page did not arrive, so it cannot start. Check the connection and reload the page."
"""What the page says, in an alert at the top, when one of its scripts cannot be loaded."""


@dataclass
class PageScripts:
    """Bokeh's script tags for a page, read in order.

    Attributes
    ----------
    static : list of str
        Tags that stay as they are, before the loader: all but classic scripts (es-module-shims'
        ``esms-options``), and inline code that came before the first bundle.
    steps : list of dict
        What runs, in the page's order: ``{"src": url}`` for a bundle, ``{"code": js}`` for inline
        code that came after one.
    """

    static: list[str] = field(default_factory=list)
    steps: list[dict[str, str]] = field(default_factory=list)


class _ScriptReader(HTMLParser):
    """Reads ``<script>`` elements: their attributes and text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: list[tuple[dict[str, str], str, str]] = []
        self._open: tuple[dict[str, str], str] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self._open = ({name: value or "" for name, value in attrs}, self.get_starttag_text() or "")
            self._text = []

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._open is not None:
            attributes, start = self._open
            self.scripts.append((attributes, start, "".join(self._text)))
            self._open = None


def read_scripts(bokeh_js: str) -> PageScripts:
    """Bokeh's script tags for a page (the template variable ``bokeh_js``), read in order.

    Parameters
    ----------
    bokeh_js : str
        The ``<script>`` tags Bokeh's page template puts in the head.

    Returns
    -------
    PageScripts
        The tags that stay and the steps the loader runs; bundles in :data:`UNUSED_BUNDLES` left out.
    """
    reader = _ScriptReader()
    reader.feed(bokeh_js)
    reader.close()
    page = PageScripts()
    for attributes, start, text in reader.scripts:
        source = attributes.get("src")
        if attributes.get("type", "") not in CLASSIC_SCRIPT_TYPES or not (source or page.steps):
            page.static.append(f"{start}{text}</script>")
        elif not source:
            page.steps.append({"code": text})
        elif not any(part in source for part in UNUSED_BUNDLES):
            page.steps.append({"src": source})
    return page


def _json(value: object) -> str:
    """``value`` as JSON that cannot end the ``<script>`` element it sits in."""
    return json.dumps(value).replace("</", "<\\/")


@lru_cache(maxsize=32)
def scripts_html(bokeh_js: str | None, after: tuple[str, ...] = ()) -> Markup:
    """A page's scripts as the loader runs them: what replaces Bokeh's tags in the head.

    The same for every student who opens the same kind of page, so kept once made (a few kinds).

    Parameters
    ----------
    bokeh_js : str or None
        Bokeh's ``<script>`` tags for the page (the template variable ``bokeh_js``).
    after : tuple of str
        More inline JavaScript to run once the page's own scripts have run (the course's fixes).

    Returns
    -------
    markupsafe.Markup
        The tags to put in the head: what stays as it was, then one inline script calling the
        loader. Empty for a page without scripts.
    """
    page = read_scripts(bokeh_js or "")
    if not page.steps:
        return Markup("\n".join(page.static))
    page.steps.extend({"code": code} for code in after)
    bundles = [step["src"] for step in page.steps if "src" in step]
    first = next((i for i, url in enumerate(bundles) if url.split("?")[0].endswith(FIRST_TO_RUN)), len(bundles) - 1)
    early, late = bundles[: first + 1], bundles[first + 1 :]
    call = f"({LOADER_JS})({_json(early)}, {_json(late)}, {_json(page.steps)}, {_json(FAILURE)})"
    return Markup("\n".join([*page.static, f"<script>{call}</script>"]))
