"""Lesson Markdown to HTML through markdown-it-py's public API, configured as Panel's Markdown pane is.

Panel's ``pn.pane.Markdown`` (renderer ``"markdown-it"``, Panel 1.9) renders with markdown-it-py's
``gfm-like`` preset, strikethrough and tables enabled, the ``deflist``, ``footnote``, ``tasklists``
and (anchors not disabled) ``anchors`` plugins of mdit-py-plugins, and fenced code highlighted by
Python-Markdown's ``CodeHilite``; it dedents the text first. :func:`render` does the same with those
libraries' public API, so a lesson page no longer calls the pane's private ``_transform_object``
(issue 66); ``tests/course/test_markdown_html.py`` holds the HTML of every lesson as both produced it.
"""

from __future__ import annotations

import textwrap
from functools import cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.tasklists import tasklists_plugin


def highlight(code: str, language: str, attrs: Any) -> str:
    """A fenced block's code as Panel's pane highlights it (``CodeHilite``), or as it is if that fails.

    Parameters
    ----------
    code : str
        The block's text.
    language : str
        Its info string's language (``"text"``, ``"python"``), or ``""``.
    attrs : object
        markdown-it's attributes of the fence (unused, as in Panel).

    Returns
    -------
    str
        The highlighted HTML, or ``code`` unchanged.
    """
    try:
        from markdown.extensions.codehilite import CodeHilite

        return CodeHilite(src=code, lang=language).hilite()
    except Exception:  # noqa: BLE001 - as Panel's pane: no highlighter, or one that fails, leaves the code plain
        return code


@cache
def parser() -> MarkdownIt:
    """The markdown-it parser, built once per process.

    Returns
    -------
    markdown_it.MarkdownIt
        Configured as Panel's Markdown pane configures its own (see the module's docstring).
    """
    built = (
        MarkdownIt("gfm-like", renderer_cls=RendererHTML)
        .enable("strikethrough")
        .enable("table")
        .use(deflist_plugin)
        .use(footnote_plugin)
        .use(tasklists_plugin)
        .use(anchors_plugin, permalink=True)
    )
    built.options["highlight"] = highlight
    return built


def render(markdown: str) -> str:
    """Lesson Markdown as HTML.

    Parameters
    ----------
    markdown : str
        Trusted lesson text.

    Returns
    -------
    str
        The HTML, the same as Panel's Markdown pane renders for the page.
    """
    return parser().render(textwrap.dedent(markdown))
