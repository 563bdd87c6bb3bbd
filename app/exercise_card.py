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

from labs.ui.palette import inline

EXERCISE_CARD_JS = (Path(__file__).parent / "assets" / "exercise_card.js").read_text(encoding="utf-8")

CARD_CSS = inline("""
:host { width: 100%; }
section.exercise { border: 2px solid var(--ol-blue); border-radius: 8px; background: var(--ol-card-background);
  padding: 4px 12px 8px; }
h3 { margin: 6px 0; }
ol.steps { padding-left: 1.4em; margin: 6px 0; }
ol.steps li { margin: 2px 0; }
ol.steps li.done { color: var(--ol-done-green); }
ol.steps li.current { font-weight: 700; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
.gate { color: var(--ol-gate-brown); font-weight: 600; }
.field-error { color: var(--ol-error-red); font-weight: 600; margin: 0; }
form.predict { display: flex; flex-wrap: wrap; gap: 8px; align-items: flex-end; margin: 8px 0; }
form.predict label { display: flex; flex-direction: column; gap: 2px; font-size: 0.9rem; }
form.predict input { font: inherit; padding: 5px 8px; width: 15rem; max-width: 100%;
  border: 1px solid var(--ol-input-edge); border-radius: 4px; }
form.predict input:disabled { background: var(--ol-disabled-background); color: var(--ol-dark-grey); }
form.predict button { font: inherit; padding: 6px 12px; border-radius: 4px; cursor: pointer;
  border: 1px solid var(--ol-card-button-edge);
  background: var(--ol-white); color: var(--ol-card-button-edge); }
form.predict button.primary { background: var(--ol-card-button-blue); color: var(--ol-white); }
form.predict button:disabled { opacity: 0.55; cursor: not-allowed; }
form.predict :focus-visible { outline: 3px solid var(--ol-focus-orange); outline-offset: 2px; }
.feedback { font-weight: 700; padding: 6px 10px; border-radius: 4px; }
.feedback.correct { background: var(--ol-correct-background); color: var(--ol-correct-green); }
.feedback.wrong { background: var(--ol-wrong-background); color: var(--ol-wrong-red); }
.explanation { border-left: 4px solid var(--ol-explanation-edge); padding-left: 10px; }
.class-line { color: var(--ol-navy); font-size: 0.92rem; }
.class-line p { margin: 4px 0; }
""")


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
    class_html = param.String(default="", doc="The class line (shared with the instructor; 'class: …' after a reveal).")
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
