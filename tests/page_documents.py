"""Every page's session document, built as a server builds it, and ways to compare two builds of it.

Used by the tests of the modules that make Bokeh and Panel do less work for the same document
(``app/upstream/lean_*.py``, ``app/upstream/template_freeze.py``): each builds or reads every page's document with
the library's own code and with the lean code, and compares.
"""

from __future__ import annotations

import json
import re
import weakref
from collections.abc import Callable
from typing import Any
from unittest import mock
from urllib.parse import parse_qs

import pytest
from bokeh.document import Document
from bokeh.server.contexts import BokehSessionContext
from panel.io.state import state

from app.site.server import routes
from app.site.sessions import warm_up_paths

PAGE_PATHS = warm_up_paths(routes())
"""One path (with its query) per page kind: every route, every lesson, every lab."""

_NUMBER = re.compile(
    r'(?<="p)\d+(?=")'  # a model id, "p1018"
    r'|(?<=__ref:p)\d+(?=")'  # Panel's tag naming a model, "__ref:p1018"
    r'|(?<=-)\d{8,}(?=")'  # a root's name with a Python object id, "main-140307240808080"
    r'|(?<=[A-Za-z])\d{5}(?=")'  # a Parameterized object's default name, "ConnectionWatch00164"
)


def page_document(path: str, served: bool = False) -> Document:
    """The document one session of ``path`` (with its query) starts with, built as a server builds it.

    With ``served``, the document belongs to a Bokeh session context, as on a server: what a page
    builds once the browser says it has loaded (``pn.state.onload``) waits for ``state._on_load(doc)``,
    Panel's own handler of that message. Without it, everything is built at once (as in a script).
    """
    route, _, query = path.partition("?")
    args = {name: [value.encode() for value in values] for name, values in parse_qs(query).items()}
    doc = Document()
    if served:
        context = BokehSessionContext("a-served-session", None, doc)
        doc._session_context = weakref.ref(context)
        doc._kept_context = context  # the document holds its context's only reference, as Bokeh's session does
    with mock.patch.object(type(state), "session_args", new_callable=mock.PropertyMock, return_value=args):
        state.curdoc = doc
        try:
            routes()[route]().server_doc(doc)
        finally:
            state.curdoc = None
    return doc


def renumbered(text: str) -> str:
    """``text`` with each id and counter replaced by its order of first appearance (they differ between builds)."""
    seen: dict[str, str] = {}
    return _NUMBER.sub(lambda match: seen.setdefault(match.group(), f"#{len(seen)}"), text)


def document_shape(doc: Document) -> tuple[str, int]:
    """What the browser is sent and the template's sizing per root (ids renumbered), and how many models."""
    sent = json.dumps([doc.to_json().content, doc._template_variables.get("sizing_modes", {})], default=repr)
    return renumbered(sent), len(doc.models)


def shapes_without_and_with(path: str, use: Callable[[bool], None]) -> tuple[tuple[str, int], tuple[str, int]]:
    """The shape (:func:`document_shape`) of ``path``'s document with a fix off (``use(False)``), then on."""
    use(False)
    own = document_shape(page_document(path))
    use(True)
    return own, document_shape(page_document(path))


def switch(
    monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, lean_version: Any, own_version: Any
) -> Callable[[bool], None]:
    """A function ``use(lean)`` that puts the lean or the library's own ``owner.name`` in place for one test."""

    def use(lean: bool) -> None:
        monkeypatch.setattr(owner, name, lean_version if lean else own_version)

    return use
