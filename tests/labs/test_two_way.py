"""The two-way link between a widget and a model's control (labs/ui/two_way.py), headless.

A small model that refuses bad text and reads "1,5" as 1.5, and a widget that is only a ``value``:
the page sending a value is setting ``widget.value``; the server changing the model is setting
the model's parameter. The labs' own links are checked with their views.
"""

from __future__ import annotations

import panel as pn
import param
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labs.timed import InvalidInput
from labs.ui import two_way
from labs.ui.two_way import TwoWay


class Model(param.Parameterized):
    """One control, ``x`` in [0, 10], typed as text; counts what it was asked to apply."""

    x = param.Number(default=2.0, bounds=(0.0, 10.0))

    def __init__(self, **params):
        super().__init__(**params)
        self.applied: list[str] = []

    def shown(self) -> str:
        return f"{self.x:g}"

    def apply(self, text: str) -> None:
        self.applied.append(text)
        try:
            value = float(text.replace(",", "."))
        except ValueError:
            raise InvalidInput(f"{text!r} is not a number; kept {self.shown()}.") from None
        if not 0 <= value <= 10:
            raise InvalidInput(f"{text} is not in [0, 10]; kept {self.shown()}.")
        self.x = value


class Widget(param.Parameterized):
    """What the page shows and sends; records every value the server gives it."""

    value = param.String(default="")

    def __init__(self, **params):
        super().__init__(**params)
        self.sent: list[str] = []
        self.param.watch(lambda event: self.sent.append(event.new), "value")


def linked(**options) -> tuple[Model, Widget, TwoWay, list[str]]:
    """A model and a widget linked both ways, and the messages reported (``""`` when fine)."""
    model, widget, reports = Model(), Widget(value="2"), []
    link = TwoWay(
        widget,
        shown=model.shown,
        apply=model.apply,
        model=model,
        controls=("x",),
        report=reports.append,
        **options,
    )
    widget.sent.clear()
    return model, widget, link, reports


def page_sends(widget: Widget, text: str) -> None:
    """The page sends ``text``: a change from the page is not a message to it."""
    widget.value = text
    widget.sent.remove(text)


def test_a_value_from_the_page_is_applied_and_shown_as_the_model_reads_it():
    model, widget, _, reports = linked()
    page_sends(widget, "1,5")
    assert model.x == 1.5 and model.applied == ["1,5"]
    assert widget.value == "1.5" and widget.sent == ["1.5"]
    assert reports[-1] == ""


def test_a_refused_value_changes_nothing_and_puts_the_value_in_force_back():
    model, widget, _, reports = linked()
    page_sends(widget, "many")
    assert model.x == 2 and widget.value == "2" and widget.sent == ["2"]
    assert reports == ["", "'many' is not a number; kept 2."]  # the line is cleared, then says why
    page_sends(widget, "4")
    assert reports[-1] == ""


def test_a_text_field_keeps_a_refused_value_for_correction():
    model, widget, _, reports = linked(keep_refused=True)
    page_sends(widget, "many")
    assert model.x == 2 and widget.value == "many" and widget.sent == []  # nothing sent: the page has it
    assert reports == ["", "'many' is not a number; kept 2."]
    page_sends(widget, "2")  # corrected to the value in force: nothing to apply, the refusal goes
    assert model.applied == ["many"] and reports[-1] == ""


@pytest.mark.parametrize("server", [2.0, 7.0], ids=["the same value (a Reset)", "another value"])
def test_a_server_value_replaces_a_kept_refusal(server):
    model, widget, _, reports = linked(keep_refused=True)
    page_sends(widget, "11")
    assert widget.value == "11" and reports[-1].startswith("11 is not in")
    model.x = server  # a Reset, a preset, an exercise's step: even to the value it had
    assert widget.value == model.shown() and widget.sent == [model.shown()] and reports[-1] == ""


def test_a_refused_value_that_crossed_a_server_change_is_sent_back(monkeypatch):
    """Reset showed "0" just before the student's "-1" came: the page may show "0" under a refusal of
    -1, so the kept text is sent once more and the page shows what the refusal is about."""
    model, widget, _, reports = linked(resend_within=10.0, keep_refused=True)
    model.x = 0.0
    widget.sent.clear()
    page_sends(widget, "-1")
    assert model.x == 0 and reports[-1] == "-1 is not in [0, 10]; kept 0."
    assert widget.sent == ["-1 ", "-1"] and widget.value == "-1"


def test_a_value_already_in_force_is_not_applied():
    model, widget, reports = Model(), Widget(value="2"), []
    TwoWay(widget, shown=model.shown, apply=model.apply, report=reports.append)
    model.x = 3.0  # not shown yet: its owner shows it (a redraw)
    page_sends(widget, "3")  # the page's value crossed it
    assert model.applied == [] and widget.sent == [] and reports == [""]


def test_a_model_change_is_shown_once_and_never_applied_back():
    model, widget, _, reports = linked()
    model.x = 7.0
    assert widget.value == "7" and widget.sent == ["7"] and model.applied == []
    assert reports == [""]  # a refusal shown before goes: the field shows the value in force
    model.x = 7.0
    assert widget.sent == ["7"]


def test_without_watched_controls_the_owner_shows_the_model():
    model, widget = Model(), Widget(value="2")
    link = TwoWay(widget, shown=model.shown, apply=model.apply)
    model.x = 5.0
    assert widget.value == "2"  # e.g. a redraw that first updates a select's options
    link.show()
    assert widget.value == "5" and model.applied == []


def test_in_force_decides_what_needs_no_applying():
    model, widget = Model(), Widget(value="2")
    TwoWay(widget, shown=model.shown, apply=model.apply, in_force=lambda text: text == "keep")
    widget.value = "keep"
    assert model.applied == [] and widget.value == "keep"
    widget.value = "2"  # equal to what is shown, but in_force says otherwise: applied
    assert model.applied == ["2"]


# ----- the resend of an edit that crossed a server change ------------------------------------


def test_an_unchanged_edit_soon_after_a_server_change_is_sent_once_more(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(two_way.time, "monotonic", lambda: clock[0])
    model, widget, _, _ = linked(resend_within=10.0)
    model.x = 0.0  # a Reset: "0" is on its way to the page
    widget.sent.clear()
    clock[0] += 9.0
    page_sends(widget, "6")  # typed before "0" arrived: the page will show "0" unless sent again
    assert model.x == 6
    assert widget.sent == ["6 ", "6"] and widget.value == "6"  # combined into one message by pn.io.hold
    assert model.applied == ["6"]


@pytest.mark.parametrize("first", ["6", "6,0"], ids=["resent as typed", "shown as the model reads it"])
def test_an_edit_that_crosses_the_servers_answer_to_the_edit_before_is_sent_once_more(monkeypatch, first):
    """The fuzz's stale field: the server's answer to one edit ("6" resent, or "6,0" shown as "6")
    reached the page after the student had typed the next, "8", which reads unchanged on the server
    and so was never sent back: the page kept showing "6" while the model held 8."""
    clock = [100.0]
    monkeypatch.setattr(two_way.time, "monotonic", lambda: clock[0])
    model, widget, _, _ = linked(resend_within=10.0)
    model.x = 0.0  # a Reset
    widget.sent.clear()
    clock[0] += 1.0 if first == "6" else 20.0  # the first edit crosses the Reset, or comes long after
    page_sends(widget, first)
    assert widget.sent[-1] == "6" and model.x == 6
    widget.sent.clear()
    clock[0] += 9.0  # long after the Reset, soon after the answer to the first edit
    page_sends(widget, "8")
    assert model.x == 8 and widget.sent == ["8 ", "8"] and widget.value == "8"


@pytest.mark.parametrize("after", [10.5, None], ids=["too late", "no server change"])
def test_no_resend_outside_the_window_or_without_a_server_change(monkeypatch, after):
    clock = [100.0]
    monkeypatch.setattr(two_way.time, "monotonic", lambda: clock[0])
    model, widget, _, _ = linked(resend_within=10.0)
    if after is not None:
        model.x = 0.0
        widget.sent.clear()
        clock[0] += after
    page_sends(widget, "6")
    assert model.x == 6 and widget.sent == []


def test_the_resend_is_one_message(monkeypatch):
    model, widget, _, _ = linked(resend_within=10.0)
    held = []
    original = pn.io.hold

    def hold(*args, **kwargs):
        held.append(True)
        return original(*args, **kwargs)

    monkeypatch.setattr(two_way.pn.io, "hold", hold)
    model.x = 0.0
    page_sends(widget, "6")
    assert held == [True]


# ----- any sequence ends in agreement, without echoes ----------------------------------------

texts = st.sampled_from(["0", "2", "2.0", "1,5", "7", "10", "11", "-1", "many", "", " 3 "])
server_values = st.sampled_from([0.0, 1.5, 2.0, 3.0, 7.0, 10.0])
actions = st.lists(st.one_of(st.tuples(st.just("page"), texts), st.tuples(st.just("server"), server_values)))


def acceptable(text: str) -> bool:
    """Whether :class:`Model` takes ``text``."""
    try:
        return 0 <= float(text.replace(",", ".")) <= 10
    except ValueError:
        return False


@settings(max_examples=200, deadline=None)
@given(actions, st.booleans(), st.booleans())
def test_any_sequence_of_edits_ends_with_widget_and_model_agreeing(steps, resend, keep):
    """The widget shows the value in force, or (a text field) a refused text under its refusal."""
    model, widget, _, reports = linked(resend_within=10.0 if resend else None, keep_refused=keep)
    page = widget.value  # what the page shows: what it sent, or the last message it was sent
    expected_applies = []
    for who, value in steps:
        if who == "page":
            if value == page:
                continue  # the page sends only a change
            before = model.x
            applied = value != model.shown()
            expected_applies += [value] * applied
            page = value
            widget.value = value
            refused = applied and not acceptable(value)
            assert (reports[-1] != "") == refused
            if refused:
                assert model.x == before
        else:
            model.x = value
        page = ([page, *widget.sent])[-1]
        widget.sent.clear()
        assert widget.value == page
        assert widget.value == model.shown() or keep and reports[-1] != "" and not acceptable(widget.value)
    assert model.applied == expected_applies  # no echo: nothing the link wrote was applied again
