"""Document events as bokehjs writes them into a ``PATCH-DOC``, and predicates on the server's events.

Property changes go server-ward as ``ModelChanged`` events; widget events (a button click, a
``JSComponent``'s ``send_msg``, the page's ``document_ready``) as a ``MessageSent`` event of type
``bokeh_event``. Values are in Bokeh's wire encoding: plain JSON for strings, numbers and booleans,
``{"type": "map", "entries": [...]}`` for a JS object.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.lib.protocol import Event

Predicate = Callable[[list[Event]], bool]
"""``predicate(events) -> bool`` on the events of one server ``PATCH-DOC``."""


def js_object(values: dict[str, Any]) -> dict[str, Any]:
    """A JS object as bokehjs serializes it: a Bokeh ``map`` of its entries (plain JSON values only).

    Parameters
    ----------
    values : dict
        String keys, JSON values.

    Returns
    -------
    dict
        ``{"type": "map", "entries": [[key, value], ...]}``.
    """
    return {"type": "map", "entries": [[key, value] for key, value in values.items()]}


def change(model_id: str, attr: str, new: Any) -> Event:
    """A ``ModelChanged`` event: one property of one model set, as typing into a widget does.

    Parameters
    ----------
    model_id : str
        The model's id.
    attr : str
        The property.
    new : Any
        The new value, already in Bokeh's wire encoding.

    Returns
    -------
    dict
        The event.
    """
    return {"kind": "ModelChanged", "model": {"id": model_id}, "attr": attr, "new": new}


def bokeh_event(name: str, model_id: str | None = None) -> Event:
    """A ``MessageSent`` event carrying a bokehjs ``BokehEvent`` with no values but its model.

    Parameters
    ----------
    name : str
        For example ``"document_ready"`` (no model) or ``"button_click"``.
    model_id : str, optional
        The model the event is about.

    Returns
    -------
    dict
        The event.
    """
    entries = [] if model_id is None else [["model", {"id": model_id}]]
    values: dict[str, Any] = {"type": "map", "entries": entries} if entries else {"type": "map"}
    return {
        "kind": "MessageSent",
        "msg_type": "bokeh_event",
        "msg_data": {"type": "event", "name": name, "values": values},
    }


def data_event(model_id: str, data: dict[str, Any]) -> Event:
    """The ``data_event`` a Panel ``JSComponent``'s ``model.send_msg(data)`` sends.

    Parameters
    ----------
    model_id : str
        The component's ``ReactiveESM`` model id.
    data : dict
        The message: string keys, JSON values (sent as a JS object).

    Returns
    -------
    dict
        The event.
    """
    values = {"type": "map", "entries": [["model", {"id": model_id}], ["data", js_object(data)]]}
    return {
        "kind": "MessageSent",
        "msg_type": "bokeh_event",
        "msg_data": {"type": "event", "name": "data_event", "values": values},
    }


def changed(model_id: str, attr: str, test: Callable[[Any], bool] | None = None) -> Predicate:
    """A predicate on a PATCH-DOC's events: ``attr`` of ``model_id`` was set (to a value passing ``test``).

    Parameters
    ----------
    model_id : str
        The Bokeh model id, e.g. ``"p1234"``.
    attr : str
        The property name, e.g. ``"text"``.
    test : callable, optional
        Called with the new value; the predicate holds only if it returns true.

    Returns
    -------
    callable
        ``predicate(events) -> bool``.
    """

    def predicate(events: list[Event]) -> bool:
        return any(sets(event, model_id, attr) and (test is None or test(event.get("new"))) for event in events)

    return predicate


def any_patch(events: list[Event]) -> bool:
    """A predicate that any server PATCH-DOC satisfies.

    Parameters
    ----------
    events : list of dict
        The PATCH-DOC's events (not looked at).

    Returns
    -------
    bool
        Always true.
    """
    return True


def sets(event: Event, model_id: str, attr: str) -> bool:
    """Whether ``event`` is a ``ModelChanged`` that sets ``attr`` of ``model_id``.

    Parameters
    ----------
    event : dict
        One document event.
    model_id : str
        The model's id.
    attr : str
        The property.

    Returns
    -------
    bool
        True for exactly that change (its new value is ``event["new"]``).
    """
    return (
        event.get("kind") == "ModelChanged"
        and event.get("attr") == attr
        and (event.get("model") or {}).get("id") == model_id
    )
