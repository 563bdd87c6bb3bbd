"""Panel's templates add a page's roots to its document one by one; Bokeh recounts the models each time.

Bokeh recounts a document's models (a walk of every reference from every root) each time a root is
added or a change is unfrozen. Panel's ``BasicTemplate._init_doc`` adds a page's roots one by one
and restyles them: about seven recounts, each of the whole page so far, in one session's first
piece. :func:`install` wraps it in Bokeh's public ``doc.models.freeze()``: the document counts its
models once, when Panel is done, and attaches every model then, its theme applied as it is attached
(``tests/upstream/test_template_freeze.py`` checks that every page's document is the same either way, and
that it is counted at most twice).

The method is private to Panel, so it is read at :func:`install`, never at import; :func:`applies`
refuses the fix where it is gone or no longer takes the document first.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import wraps
from typing import Any

from bokeh.document import Document
from panel.template.base import BasicTemplate

_PANEL_INIT_DOC: Callable[..., Document] | None = None
"""Panel's own ``BasicTemplate._init_doc``, kept by :func:`install`."""


def wrap(init_doc: Callable[..., Document]) -> Callable[..., Document]:
    """``init_doc`` with the document's models counted once, at the end.

    Parameters
    ----------
    init_doc : callable
        A template's ``_init_doc(self, doc=None, ...)``.

    Returns
    -------
    callable
        The same method, run inside ``doc.models.freeze()`` when it is given a document.
    """

    @wraps(init_doc)
    def _init_doc(self: Any, doc: Document | None = None, *args: Any, **kwargs: Any) -> Document:
        if doc is None:
            return init_doc(self, doc, *args, **kwargs)
        with doc.models.freeze():
            return init_doc(self, doc, *args, **kwargs)

    return _init_doc


def panel_init_doc() -> Callable[..., Document]:
    """Panel's own ``BasicTemplate._init_doc``, installed or not (for the tests and ``bench/build_cost.py``).

    Returns
    -------
    callable
        The method as Panel defines it.
    """
    return _PANEL_INIT_DOC or BasicTemplate.__dict__["_init_doc"]


def applies() -> str:
    """Why the fix cannot be installed here, or ``""`` when it can.

    Returns
    -------
    str
        Empty when Panel's templates still build a page's document in ``_init_doc(self, doc, ...)``.
    """
    method = BasicTemplate.__dict__.get("_init_doc")
    if not callable(method):
        return "panel.template.base.BasicTemplate has no _init_doc to wrap"
    if list(inspect.signature(method).parameters)[:2] != ["self", "doc"]:
        return "BasicTemplate._init_doc no longer takes the document first"
    return ""


def install() -> None:
    """Count a template's document once per build (idempotent)."""
    global _PANEL_INIT_DOC
    if _PANEL_INIT_DOC is None:
        _PANEL_INIT_DOC = BasicTemplate.__dict__["_init_doc"]
        BasicTemplate._init_doc = wrap(_PANEL_INIT_DOC)
