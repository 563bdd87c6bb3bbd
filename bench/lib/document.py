"""A pulled Bokeh document as the raw client sees it: its models by id, kept current with the server.

The ``PULL-DOC-REPLY`` holds the document's roots as serialized objects
(``{"type": "object", "name": ..., "id": ..., "attributes": {...}}``, nested models inline or as
``{"id": ...}`` references). :class:`DocIndex` indexes every model by id, finds models by type
name and property values, and takes in the server's later ``PATCH-DOC`` events.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from bench.lib.protocol import Event, ProtocolFailure


@dataclass
class ModelInfo:
    """One model of a pulled document.

    Attributes
    ----------
    id : str
        The Bokeh id.
    name : str
        The model's type name (``"Div"``, ``"labs.ui.playback.PlaybackState"``, ...).
    attributes : dict
        Its serialized non-default properties (nested models as ``{"id": ...}`` or full objects).
    """

    id: str
    name: str
    attributes: dict[str, Any]


def _walk(value: Any) -> Iterator[dict[str, Any]]:
    """Every serialized Bokeh object (``{"type": "object", "id": ...}``) inside ``value``."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if item.get("type") == "object" and "id" in item:
                yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _refs(value: Any) -> Iterator[str]:
    """Ids of the models ``value`` refers to, directly or nested in lists, maps and objects."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "id" in item and isinstance(item["id"], str) and item.get("type") in (None, "object"):
                yield item["id"]
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


class DocIndex:
    """The models of a ``PULL-DOC-REPLY`` by id, with lookups by type and property.

    :class:`bench.lib.raw_session.RawSession` keeps it up to date with the server's PATCH-DOCs (:meth:`apply`): a page
    may add parts after it has loaded (``app.web.shell.deferred``), and those arrive as new models in
    a ``ModelChanged`` event.

    Parameters
    ----------
    doc : dict
        The reply's ``content["doc"]``.
    """

    def __init__(self, doc: dict[str, Any]):
        self.models: dict[str, ModelInfo] = {}
        self._add(doc.get("roots", []))

    def _add(self, value: Any) -> None:
        """Index every serialized model inside ``value`` that is not indexed yet."""
        for obj in _walk(value):
            if obj["id"] not in self.models:
                self.models[obj["id"]] = ModelInfo(obj["id"], obj.get("name", ""), obj.get("attributes") or {})

    def apply(self, events: list[Event]) -> None:
        """Take a server PATCH-DOC's events in: new models, and new property values of known ones.

        Parameters
        ----------
        events : list of dict
            The PATCH-DOC's events (only ``ModelChanged`` changes a property here; models inside
            any event are indexed).
        """
        for event in events:
            self._add(event)
            if event.get("kind") == "ModelChanged":
                model = self.models.get((event.get("model") or {}).get("id", ""))
                if model is not None and isinstance(event.get("attr"), str):
                    model.attributes[event["attr"]] = event.get("new")

    def find(self, name: str | None = None, **attrs: Any) -> list[ModelInfo]:
        """Models whose type name ends with ``name`` and whose attributes equal ``attrs``.

        Parameters
        ----------
        name : str, optional
            For example ``"Div"`` or ``"PlaybackState"`` (matched against the end of the type name).
        **attrs
            Property values that must match exactly, e.g. ``label="Lock prediction"``.

        Returns
        -------
        list of ModelInfo
            In document order.
        """
        found = []
        for model in self.models.values():
            if name is not None and not (model.name == name or model.name.endswith("." + name)):
                continue
            if all(model.attributes.get(key) == value for key, value in attrs.items()):
                found.append(model)
        return found

    def one(self, name: str | None = None, within: set[str] | None = None, **attrs: Any) -> ModelInfo:
        """Exactly one model matching :meth:`find` (optionally among the ids in ``within``).

        Parameters
        ----------
        name : str, optional
            As for :meth:`find`.
        within : set of str, optional
            Only these ids qualify (e.g. from :meth:`descendants`).
        **attrs
            As for :meth:`find`.

        Returns
        -------
        ModelInfo
            The match.

        Raises
        ------
        ProtocolFailure
            If none or several match.
        """
        matches = [m for m in self.find(name, **attrs) if within is None or m.id in within]
        if len(matches) != 1:
            raise ProtocolFailure(f"expected one {name or 'model'} with {attrs}, found {len(matches)}")
        return matches[0]

    def descendants(self, model_id: str) -> set[str]:
        """Ids of every model reachable from ``model_id`` through its properties (itself included).

        Parameters
        ----------
        model_id : str
            Where to start.

        Returns
        -------
        set of str
            The ids reached.
        """
        seen = {model_id}
        todo = [model_id]
        while todo:
            model = self.models.get(todo.pop())
            if model is None:
                continue
            for ref in _refs(model.attributes):
                if ref not in seen:
                    seen.add(ref)
                    todo.append(ref)
        return seen
