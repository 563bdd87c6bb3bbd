"""A page's first paint: its text, as HTML in the response, before any script has run (issue 64).

Every word of a course page is drawn by BokehJS once its bundles have loaded, run and fetched the
session's document: on a phone on slow 4G, 5 to 6 seconds in. The first paint puts what the page
will show first (its heading, a lesson's prose and exercise questions, a lab's first frame) in the
HTML the server sends, under the template's ``<main>``, readable and scrollable at once and without
scripts. The live page is built under it, hidden, and takes its place in one step
(``assets/first_paint.js``): in the task that draws the live page, once every root of ``<main>`` is
drawn and, where the first paint names a component (``until``), that component has said so with an
``overlap-drawn`` event. The first paint's text is rendered once per process (it is the same for
every student); the page passes it to :func:`app.web.shell.page`.
"""

from __future__ import annotations

import html
from pathlib import Path

from markupsafe import Markup

from labs.ui import stylesheet
from labs.ui.stage import PANELS_GAP, PANELS_MAX, WIDE

ASSETS = Path(__file__).parent / "assets"

FIRST_PAINT_CSS = stylesheet(ASSETS / "first_paint.css", WIDE=WIDE, PANELS=PANELS_MAX + PANELS_GAP)
"""How the first paint looks (as the live page does) and the live page hidden under it."""

FIRST_PAINT_JS = (ASSETS / "first_paint.js").read_text(encoding="utf-8")
"""What removes the first paint once the live page is drawn."""

UNTIL = ("", "lesson", "lab")
"""What a first paint may wait for besides ``<main>``'s roots: nothing, the lesson's text, the lab's stage."""


def scoped(css: str, scope: str) -> str:
    """A component's plain stylesheet (rules of selectors and declarations, no ``@`` rules) kept to ``scope``.

    A component's stylesheet is written for its shadow root, where a rule for ``p`` or ``a`` reaches
    its own elements only; in the page itself it would reach the header's too.

    Parameters
    ----------
    css : str
        The stylesheet; its ``:host`` rules are left out (the page has no host).
    scope : str
        A selector every rule is put under (``"#first-paint .index"``).

    Returns
    -------
    str
        The rules, each selector under ``scope``.

    Raises
    ------
    ValueError
        For a stylesheet with an ``@`` rule, which this does not rewrite.
    """
    if "@" in css:
        raise ValueError("scoped() rewrites plain rules only, not @media or other at-rules")
    rules = []
    for rule in css.split("}"):
        if "{" not in rule:
            continue
        selectors, body = rule.split("{", 1)
        kept = [f"{scope} {selector.strip()}" for selector in selectors.split(",") if ":host" not in selector]
        if kept:
            rules.append(f"{', '.join(kept)} {{{body}}}")
    return "\n".join(rules)


def first_paint_html(heading_html: str, body_html: str, until: str = "", stylesheets: tuple[str, ...] = ()) -> Markup:
    """The first paint of a page, for the course template's ``<main>``.

    Parameters
    ----------
    heading_html : str
        Trusted HTML: the page's heading as the live page shows it (:func:`app.web.shell.page`).
    body_html : str
        Trusted HTML: what the page shows under its heading first.
    until : str
        The component whose drawing ends the first paint (:data:`UNTIL`): ``"lesson"`` (the lesson's
        text, ``app/course/assets/lesson_text.js``), ``"lab"`` (a lab's stage,
        ``labs/ui/assets/stage.js``), or ``""`` for the roots of ``<main>`` alone.
    stylesheets : tuple of str
        Further CSS the body needs (the live components' own stylesheets, which apply in their
        shadow roots only).

    Returns
    -------
    markupsafe.Markup
        The ``<div id="first-paint">`` with its style, then the script that removes it.

    Raises
    ------
    ValueError
        For an ``until`` not in :data:`UNTIL`.
    """
    if until not in UNTIL:
        raise ValueError(f"a first paint waits for one of {UNTIL}, not {until!r}")
    style = "\n".join((FIRST_PAINT_CSS, *stylesheets))
    return Markup(
        f'<div id="first-paint" data-until="{html.escape(until)}"><style>{style}</style>'
        f"{heading_html}{body_html}</div>\n<script>{FIRST_PAINT_JS}</script>"
    )
