"""app.upstream.locked_events: a click's held-back widget changes run under the session's document lock.

Each test puts the mark in place or takes it away itself, so that it checks the same either way when
the suite runs with every fix skipped (tests/upstream/test_upstream.py).
"""

from __future__ import annotations

from functools import partial
from types import SimpleNamespace

import panel as pn
import pytest
from bokeh.document import Document
from panel.io.server import async_execute
from panel.io.state import set_curdoc
from panel.reactive import Syncable

from app.upstream import locked_events


def scheduled_for(monkeypatch, coroutine) -> object:
    """What Panel's ``async_execute`` hands Bokeh for ``coroutine`` in a server session's document."""
    doc = Document()
    handed = []
    monkeypatch.setattr(Document, "session_context", SimpleNamespace(id="a-session"), raising=False)
    monkeypatch.setattr(doc, "add_next_tick_callback", handed.append)
    with set_curdoc(doc):
        async_execute(partial(coroutine, doc))
    assert len(handed) == 1
    return handed[0]


@pytest.fixture
def marks(monkeypatch):
    """Put the fix's marks in place or take them away, for one test (``marks(True)``)."""

    def use(on: bool) -> None:
        for name in locked_events._MARKED:
            function = Syncable.__dict__[name]
            if on:
                monkeypatch.setattr(function, "lock", True, raising=False)
            elif hasattr(function, "lock"):
                monkeypatch.delattr(function, "lock")

    return use


@pytest.mark.parametrize("name", locked_events._MARKED)
def test_panels_event_and_change_coroutines_are_run_under_the_document_lock(name, marks, monkeypatch):
    marks(True)
    widget = pn.widgets.IntInput(value=1)
    scheduled = scheduled_for(monkeypatch, getattr(widget, name))
    assert not getattr(scheduled, "nolock", False)


@pytest.mark.parametrize("name", locked_events._MARKED)
def test_without_the_fix_panel_runs_them_without_it(name, marks, monkeypatch):
    """Panel's own behaviour: delete the fix once this fails (Panel then locks them itself)."""
    marks(False)
    widget = pn.widgets.IntInput(value=1)
    assert getattr(scheduled_for(monkeypatch, getattr(widget, name)), "nolock", False) is True


def test_a_users_own_async_callback_is_still_run_without_the_lock(marks, monkeypatch):
    marks(True)

    async def fetch_something(doc) -> None:
        return None

    assert getattr(scheduled_for(monkeypatch, fetch_something), "nolock", False) is True


def test_it_is_refused_where_panel_no_longer_has_the_coroutines(monkeypatch):
    monkeypatch.delattr(Syncable, "_event_coroutine")
    assert locked_events.applies() == "panel.reactive.Syncable has no _event_coroutine"
