"""A lesson's text: its prose and its exercise cards, drawn by one component.

A lesson page holds seven or so prose parts and as many exercises between them. Built as a Markdown
pane per part and a component per card, with a column and a pane for the closing links, they were
about twenty Bokeh models and a fifth of the server's time to build a session (548 against 433 ms
in-process, December 2026); here they are one ``JSComponent``:

- the prose is rendered from Markdown once per process (the lesson texts are the same for every
  student) and sent once, as HTML; on a lesson page, whose first paint already holds it
  (:mod:`app.course.lesson_first_paint`), not at all: the page's script copies it from there
  (``prose_key``, a digest of the parts, names them) and asks for it only if they are not there;
- each exercise's :class:`~app.course.exercise_card.ExerciseCard` is drawn between the prose parts where
  the lesson puts it, from the cards' values as the page was built (``cards_json``: a list of values
  per card, in ``card_fields`` order). When one of a card's values changes, the component sends the
  values of each card changed since the page was built (``card_updates``: a card or two, not all nine:
  700 bytes rather than 6 kB a click) and the page redraws only what changed. A view of the component
  drawn anew reads both and shows the cards as they are;
- each card with a :attr:`~app.course.exercise_card.ExerciseCard.share` has a "Share" button
  (:mod:`app.web.share`'s browser code, drawn in the page: no model of its own);
- a click on Lock or Start comes back as one message, ``{"card": i, "action": ..., "text": ...}``,
  and goes to that card.

It also places the lesson's lab (``lab``): beside the text on a wide screen, in a pane as high as
the page's scrolling area whose top holds the lab's picture and time bar, so that an exercise's
question and the picture are in one view; on a narrow screen right after the active exercise's
card (after the text while none is active).
"""

from __future__ import annotations

import hashlib
import json
from functools import cache, partial
from pathlib import Path

import panel as pn
import param
from panel.custom import Child, JSComponent

from app.course.exercise_card import CARD_CSS, CARD_FIELDS, ExerciseCard
from app.web.share import SHARE_CSS, SHARE_JS, public_url
from labs.ui import stylesheet
from labs.ui.stage import PINNED_FROM

LESSON_TEXT_JS = (Path(__file__).parent / "assets" / "lesson_text.js").read_text(encoding="utf-8")

PROSE_CSS = stylesheet(Path(__file__).parent / "assets" / "prose.css")
"""Panel's Markdown look (its ``markdown.css``), kept to the prose, with inline code at 10:1; a table
wider than a phone scrolls in its own box."""

SIDE_BY_SIDE_FROM = PINNED_FROM
"""The window width (px) from which the lab stands beside the text: where the lab pins its picture."""

LAYOUT_CSS = stylesheet(Path(__file__).parent / "assets" / "lesson_layout.css", SIDE_BY_SIDE_FROM=SIDE_BY_SIDE_FROM)
"""Text and lab side by side on a wide screen (the lab's pane pinned and scrolling on its own), one
column on a narrow one."""


@cache
def prose_html(markdown: str) -> str:
    """Render lesson Markdown to HTML as Panel's Markdown pane does, once per process for each text.

    Through markdown-it-py's public API (:mod:`app.course.markdown_html`), not the pane's private method.

    Parameters
    ----------
    markdown : str
        Trusted lesson text (a bounded set: only the course's own lessons come here).

    Returns
    -------
    str
        The HTML.
    """
    from app.course.markdown_html import render

    return render(markdown)


def prose_digest(prose: list[str]) -> str:
    """A short digest naming a lesson text's prose parts (their HTML, in order, the footer last).

    The first paint marks its copy of the parts with it and :class:`LessonText` sends it instead of
    them: a page served by another process of another version finds no parts with its digest and
    asks for them, rather than showing another text.

    Parameters
    ----------
    prose : list of str
        Each prose part's HTML, as :class:`LessonText` holds it.

    Returns
    -------
    str
        16 hexadecimal digits.
    """
    return _digest(tuple(prose))


@cache
def _digest(prose: tuple[str, ...]) -> str:
    """:func:`prose_digest`, once per process for each lesson (the parts' strings are the cached ones)."""
    return hashlib.sha256("\x00".join(prose).encode("utf-8")).hexdigest()[:16]


class LessonText(JSComponent):
    """The prose and exercise cards of one lesson page, in the lesson's order."""

    prose = param.List(default=[], item_type=str, doc="Each prose part's HTML, rendered once per process.")
    order = param.List(default=[], doc="The parts in page order: ['prose', i] or ['card', j].")
    card_fields = param.List(default=list(CARD_FIELDS), constant=True, doc="What each entry of ``cards`` holds.")
    cards_json = param.String(
        default="[]",
        constant=True,
        doc="``cards`` as the page was built, as JSON: what the page draws the cards from first.",
    )
    card_updates = param.String(
        default="{}",
        doc="Each card changed since the page was built, by its index, with what it shows now, as JSON "
        '(``{"1": [...]}``): what the page redraws at each change.',
    )
    lab = Child(default=None, allow_None=True, doc="The lesson's lab (what the active exercise uses), or None.")
    share_base = param.String(
        default="", constant=True, doc="The public URL the cards' Share links start with; '' for the page's address."
    )
    prose_key = param.String(
        default="",
        constant=True,
        doc="The digest of the prose parts the page's first paint holds (its copy is used, ``prose`` sent empty); ''.",
    )
    side_by_side_from = param.Integer(
        default=SIDE_BY_SIDE_FROM, constant=True, doc="The window width (px) from which the lab stands beside the text."
    )

    _esm = SHARE_JS + "\n" + LESSON_TEXT_JS  # each card's Share button is app.web.share's widget

    def __init__(self, parts: list[str | ExerciseCard], footer_html: str = "", prose_in_page: bool = False, **params):
        """Lay out ``parts``: Markdown texts and cards, in order, then ``footer_html`` (trusted HTML) if any.

        With ``prose_in_page`` the page's first paint holds the prose (a lesson page): it is not sent.
        """
        prose: list[str] = []
        order: list[list] = []
        self._cards: list[ExerciseCard] = []
        for part in parts:
            if isinstance(part, ExerciseCard):
                order.append(["card", len(self._cards)])
                self._cards.append(part)
            else:
                order.append(["prose", len(prose)])
                prose.append(prose_html(part))
        if footer_html:
            order.append(["prose", len(prose)])
            prose.append(footer_html)
        params.setdefault("sizing_mode", "stretch_width")
        params.setdefault("stylesheets", [PROSE_CSS, CARD_CSS, SHARE_CSS, LAYOUT_CSS])
        params.setdefault("share_base", public_url())
        params.setdefault("margin", (5, 10))  # a Markdown pane's, so the text lines up with the heading
        # What each card shows now (not a parameter: the page reads cards_json and card_updates, and
        # a list parameter would be compared whole, nested values and all, at every change).
        self._shown = [card.shown() for card in self._cards]
        self._changed: set[int] = set()  # the cards changed since the page was built
        self.prose_parts = prose
        """Each prose part's HTML (what ``prose`` holds, or holds once the page asks for it)."""
        if prose_in_page:
            params["prose_key"] = prose_digest(prose)
        sent = [""] * len(prose) if prose_in_page else prose
        super().__init__(prose=sent, order=order, cards_json=json.dumps(self._shown), **params)
        for index, card in enumerate(self._cards):
            card.param.watch(partial(self._card_changed, index), list(CARD_FIELDS))

    @property
    def cards(self) -> list[list]:
        """What each exercise card shows now: its values in ``card_fields`` order (a copy)."""
        return [list(values) for values in self._shown]

    def _card_changed(self, index: int, *_events: param.parameterized.Event) -> None:
        self._shown[index] = self._cards[index].shown()
        self._changed.add(index)
        self.card_updates = json.dumps({str(changed): self._shown[changed] for changed in sorted(self._changed)})

    def _handle_msg(self, msg: object) -> None:
        if not isinstance(msg, dict):
            return
        if msg.get("prose") == "wanted":  # the page's first paint did not hold this text's prose
            if self.prose != self.prose_parts:
                self.prose = list(self.prose_parts)
            return
        index = msg.get("card")
        if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(self._cards):
            # What one click changes (the card, the lab's gate, its readout) reaches the page as one message.
            with pn.io.hold():
                self._cards[index].receive({key: value for key, value in msg.items() if key != "card"})
