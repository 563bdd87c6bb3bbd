"""app.course.lesson_text: a lesson's prose and exercise cards in one component, headless."""

from __future__ import annotations

import json

from bokeh.document import Document
from panel.io.state import set_curdoc

from app.course.exercise_card import CARD_FIELDS, ExerciseCard
from app.course.lesson_text import LessonText, prose_digest, prose_html


def _text_with_two_cards():
    seen: list[tuple[str, dict]] = []
    first = ExerciseCard(on_action=lambda msg: seen.append(("first", msg)), label="Exercise: One")
    second = ExerciseCard(on_action=lambda msg: seen.append(("second", msg)), label="Exercise: Two")
    text = LessonText(["Some *prose*.", first, "More prose.", second])
    return text, first, second, seen


def test_parts_keep_the_lessons_order_and_prose_is_html():
    text, *_ = _text_with_two_cards()
    assert text.order == [["prose", 0], ["card", 0], ["prose", 1], ["card", 1]]
    assert text.prose == ["<p>Some <em>prose</em>.</p>\n", "<p>More prose.</p>\n"]
    assert [card[CARD_FIELDS.index("label")] for card in text.cards] == ["Exercise: One", "Exercise: Two"]


def test_prose_the_page_already_holds_is_not_sent_until_the_page_asks_for_it():
    text = LessonText(["Some *prose*.", "More prose."], footer_html="<nav>end</nav>", prose_in_page=True)
    held = ["<p>Some <em>prose</em>.</p>\n", "<p>More prose.</p>\n", "<nav>end</nav>"]
    assert text.prose == ["", "", ""], "the session's document carries no prose"
    assert text.prose_parts == held
    assert text.prose_key == prose_digest(held) and len(text.prose_key) == 16
    assert prose_digest(held[:2] + ["<nav>other</nav>"]) != text.prose_key
    text._handle_msg({"prose": "not wanted"})
    assert text.prose == ["", "", ""]
    text._handle_msg({"prose": "wanted"})  # the page's first paint did not hold it
    assert text.prose == held
    assert LessonText(["Some *prose*."]).prose_key == "", "elsewhere the prose is sent as before"


def test_prose_is_rendered_once_per_process():
    prose_html.cache_clear()
    LessonText(["The same text."])
    LessonText(["The same text."])
    assert prose_html.cache_info().misses == 1


def test_a_card_change_is_sent_as_that_cards_values_only():
    text, first, second, _ = _text_with_two_cards()
    before = [list(card) for card in text.cards]
    sent = []
    text.param.watch(lambda event: sent.append(json.loads(event.new)), "card_updates")
    second.param.update(steps_html="<ol><li>Reset</li></ol>", locked=True)
    assert len(sent) == 1  # one update of several values is one message
    assert sent[0] == {"1": second.shown()}
    assert text.cards[0] == before[0]
    assert text.cards[1] == second.shown()
    assert text.cards[1][CARD_FIELDS.index("locked")] is True


def test_the_page_gets_the_cards_as_built_then_each_card_changed_since_as_json_strings():
    # A list property costs Bokeh a validation and a walk of every nested value at each change.
    text, first, second, _ = _text_with_two_cards()
    root = text.get_root(Document())
    assert "cards" not in root.data.properties_with_values()
    built = json.loads(root.data.cards_json)
    assert built == text.cards and json.loads(root.data.card_updates) == {}
    second.prediction = "2.5"
    assert json.loads(root.data.cards_json) == built  # the page draws from it once
    assert json.loads(root.data.card_updates) == {"1": text.cards[1]}
    assert text.cards[1][CARD_FIELDS.index("prediction")] == "2.5"


def test_a_view_drawn_anew_shows_every_card_as_it_is_now():
    """The cards as built, then each one changed since (even one changed back): the cards as they are."""
    text, first, second, _ = _text_with_two_cards()
    root = text.get_root(Document())
    second.prediction = "2.5"
    first.locked = True
    second.prediction = ""  # back as built: still sent, or a page that drew "2.5" would keep it
    drawn = json.loads(root.data.cards_json)
    for index, values in json.loads(root.data.card_updates).items():
        drawn[int(index)] = values
    assert drawn == text.cards == [first.shown(), second.shown()]
    assert set(json.loads(root.data.card_updates)) == {"0", "1"}


def test_clicks_reach_their_card_and_anything_else_is_dropped():
    text, _, _, seen = _text_with_two_cards()
    text._handle_msg({"card": 1, "action": "lock", "text": "2,5"})
    text._handle_msg({"card": 0, "action": "start"})
    for bad in ({"card": 2, "action": "start"}, {"card": -1}, {"card": True}, {"card": "0"}, {"action": "start"}, [0]):
        text._handle_msg(bad)
    assert seen == [("second", {"action": "lock", "text": "2,5"}), ("first", {"action": "start"})]


def test_a_clicks_changes_are_held_for_one_message():
    """Lock changes the card, the lab's gate and its readout: held, the page gets them in one message."""
    held = []
    card = ExerciseCard(on_action=lambda msg: held.append(doc.callbacks.hold_value), label="Exercise: One")
    text = LessonText([card])
    doc = Document()
    text.get_root(doc)
    with set_curdoc(doc):
        text._handle_msg({"card": 0, "action": "lock", "text": "1"})
    assert held == ["combine"] and doc.callbacks.hold_value is None


def test_the_field_empties_before_it_unlocks():
    # Try again sends prediction "" and then locked False; the page draws fields in CARD_FIELDS order,
    # so a combined update also empties the field before enabling it.
    assert CARD_FIELDS.index("prediction") < CARD_FIELDS.index("locked")


def test_the_footer_is_trusted_html_after_every_part():
    text = LessonText(["A *text*."], footer_html='<nav aria-label="Lessons, end of page"><a href="#">x</a></nav>')
    assert text.order == [["prose", 0], ["prose", 1]]
    assert text.prose[1] == '<nav aria-label="Lessons, end of page"><a href="#">x</a></nav>'
