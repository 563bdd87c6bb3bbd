"""bench.lib.student: the class bench finds an exercise's verdict in this checkout's cards and in an older one's."""

from __future__ import annotations

import json

from app.course.exercise_card import CARD_FIELDS
from bench.lib.student import _verdict_index, feedback_said_correct

OLDER_FIELDS = [name for name in CARD_FIELDS if name not in ("setup_label", "retry_label")]
"""A card's fields before the setup and retry buttons (df51928, the code issue 47 was filed on)."""


def _card(fields: list[str], verdict: str) -> list:
    values = {name: "" for name in fields} | {"label": "Exercise: A", "prediction": "1", "verdict": verdict}
    return [values[name] for name in fields]


def _event(name: str, value: object) -> dict:
    return {"kind": "ModelChanged", "attr": name, "new": value}


def test_the_verdict_is_found_where_this_checkouts_cards_hold_it():
    verdict = _verdict_index(None, len(CARD_FIELDS))
    assert verdict == CARD_FIELDS.index("verdict")
    changed = _event("card_updates", json.dumps({"3": _card(list(CARD_FIELDS), "correct")}))
    assert feedback_said_correct([changed], verdict)
    wrong = _event("card_updates", json.dumps({"3": _card(list(CARD_FIELDS), "wrong")}))
    assert not feedback_said_correct([wrong], verdict)


def test_an_older_pages_cards_are_read_by_the_fields_it_sent_or_else_by_the_word():
    assert _verdict_index(OLDER_FIELDS, len(OLDER_FIELDS)) == OLDER_FIELDS.index("verdict")
    assert _verdict_index(None, len(OLDER_FIELDS)) is None  # not this checkout's width: the word itself
    older = _event("cards", [_card(OLDER_FIELDS, ""), _card(OLDER_FIELDS, "correct")])
    assert feedback_said_correct([older], None)
    assert not feedback_said_correct([older], CARD_FIELDS.index("verdict"))  # the index of today's order misses it
    assert not feedback_said_correct([_event("cards", [_card(OLDER_FIELDS, "wrong")])], None)
