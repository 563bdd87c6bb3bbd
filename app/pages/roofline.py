"""The standalone roofline lab page (``/roofline``), for ``panel serve app/pages/roofline.py``.

``python -m app`` serves every registered lab through :mod:`app.pages.lab`; this file lets
``panel serve`` serve this one too.
"""

from __future__ import annotations

import importlib

import panel as pn

from app.pages.lab import build_lab_page

LAB = importlib.import_module("labs.roofline").LAB


def build() -> pn.template.base.BaseTemplate:
    """Build the page for one session: a fresh model and view."""
    return build_lab_page(LAB)


if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
    build().servable()
