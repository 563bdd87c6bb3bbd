"""One guided exercise on the page: a single light component instead of a tree of widgets.

A lesson page is built for every student, and each Panel widget or pane costs the server a Bokeh
model or two (design.md: a session must be cheap). An exercise needs a named region, its steps, a
prediction field, two buttons and a feedback line; here all of them are plain HTML elements that
one ``JSComponent`` draws and keeps up to date. The server sends HTML fragments it has escaped
(``steps_html``, ``feedback_html``) and small values; the page sends back one message per click
(``{"action": "lock", "text": ...}`` or ``{"action": "start"}``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import param
from panel.custom import JSComponent

EXERCISE_CARD_JS = (Path(__file__).parent / "assets" / "exercise_card.js").read_text(encoding="utf-8")

CARD_CSS = """
:host { width: 100%; }
section.exercise { border: 2px solid #1f6fb2; border-radius: 8px; background: #fbfdff; padding: 4px 12px 8px; }
h3 { margin: 6px 0; }
ol.steps { padding-left: 1.4em; margin: 6px 0; }
ol.steps li { margin: 2px 0; }
ol.steps li.done { color: #1b6e2a; }
ol.steps li.current { font-weight: 700; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
.gate { color: #7a4b00; font-weight: 600; }
.field-error { color: #a4000f; font-weight: 600; margin: 0; }
form.predict { display: flex; flex-wrap: wrap; gap: 8px; align-items: flex-end; margin: 8px 0; }
form.predict label { display: flex; flex-direction: column; gap: 2px; font-size: 0.9rem; }
form.predict input { font: inherit; padding: 5px 8px; width: 15rem; max-width: 100%; border: 1px solid #8a8f98;
  border-radius: 4px; }
form.predict input:disabled { background: #eef1f4; color: #333; }
form.predict button { font: inherit; padding: 6px 12px; border-radius: 4px; border: 1px solid #1f4f80; cursor: pointer;
  background: #fff; color: #1f4f80; }
form.predict button.primary { background: #1f5f99; color: #fff; }
form.predict button:disabled { opacity: 0.55; cursor: not-allowed; }
form.predict :focus-visible { outline: 3px solid #b35900; outline-offset: 2px; }
.feedback { font-weight: 700; padding: 6px 10px; border-radius: 4px; }
.feedback.correct { background: #e3f4e6; color: #14591f; }
.feedback.wrong { background: #fdeceb; color: #8a1c12; }
.explanation { border-left: 4px solid #999; padding-left: 10px; }
"""


class ExerciseCard(JSComponent):
    """The page side of one exercise: ``<section role="region">`` with steps, prediction and feedback."""

    label = param.String(default="", doc="The region's accessible name, 'Exercise: <title>'.")
    steps_html = param.String(default="", doc="Heading, prompt, steps and notices, as escaped HTML.")
    prediction_label = param.String(default="Your prediction", doc="The prediction field's label, with its unit.")
    prediction = param.String(default="", doc="What the prediction field shows (the locked value once locked).")
    locked = param.Boolean(default=False, doc="Whether a prediction is locked (field and Lock button disabled).")
    start_label = param.String(default="Start this exercise", doc="'Start this exercise' or 'Try again'.")
    feedback_html = param.String(default="", doc="The verdict as escaped HTML; empty before the exercise ends.")
    verdict = param.Selector(default="", objects=["", "correct", "wrong"], doc="Styles the feedback line.")
    explanation_html = param.String(default="", doc="Why, shown below the verdict once it is given.")
    scroll_into_view = param.Boolean(default=False, doc="Scroll the card into view once drawn (a deep link).")

    _esm = EXERCISE_CARD_JS

    def __init__(self, on_action: Callable[[dict], None] | None = None, **params):
        params.setdefault("stylesheets", [CARD_CSS])
        params.setdefault("sizing_mode", "stretch_width")
        super().__init__(**params)
        self._on_action = on_action

    def _handle_msg(self, msg: object) -> None:
        if self._on_action is not None and isinstance(msg, dict):
            self._on_action(msg)
