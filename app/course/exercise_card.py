"""What one guided exercise shows: its state, drawn by the lesson's text (``app.course.lesson_text``).

A lesson page is built for every student, and each Panel component costs the server a Bokeh model
or two and the time to build them (design.md: a session must be cheap). An exercise needs a named
region, its steps, a prediction field, two buttons and a feedback line; the lesson text draws all of
them as plain HTML, for every exercise of the page, in one component. An :class:`ExerciseCard` is
what one exercise shows: escaped HTML fragments (``steps_html``, ``feedback_html``) and small values.
The page sends back one message per click (``{"action": "lock", "text": ...}`` or
``{"action": "start"}``), which :meth:`ExerciseCard.receive` hands to the exercise.
"""

from __future__ import annotations

from collections.abc import Callable

import param

from labs.ui.palette import inline

CARD_CSS = inline("""
section.exercise { border: 2px solid var(--ol-blue); border-radius: 8px; background: var(--ol-card-background);
  margin: 10px 0; padding: 4px 12px 8px; }
section.exercise h2, section.exercise h3 { margin: 6px 0; font-size: 1.17em; }
ol.steps { padding-left: 1.4em; margin: 6px 0; }
ol.steps li { margin: 2px 0; }
ol.steps li.done { color: var(--ol-done-green); }
ol.steps li.current { font-weight: 700; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
.gate { color: var(--ol-gate-brown); font-weight: 600; }
.field-error { color: var(--ol-error-red); font-weight: 600; margin: 0; }
form.predict, .begin { display: flex; flex-wrap: wrap; gap: 8px; align-items: flex-end; margin: 8px 0; }
form.predict[hidden], .begin[hidden], form.predict [hidden] { display: none; }
form.predict label { display: flex; flex-direction: column; gap: 2px; font-size: 0.9rem; }
form.predict fieldset { border: 1px solid var(--ol-input-edge); border-radius: 4px; margin: 0; padding: 4px 10px 6px; }
form.predict legend { font-size: 0.9rem; padding: 0 4px; }
form.predict label.choice { flex-direction: row; align-items: center; gap: 10px; min-height: 44px; font-size: 1rem; }
form.predict label.choice input { width: 22px; height: 22px; min-height: 0; margin: 0; }
form.predict input[type="text"] { font: inherit; padding: 8px; min-height: 44px; width: 15rem; max-width: 100%;
  border: 1px solid var(--ol-input-edge); border-radius: 4px; }
form.predict input[type="text"]:disabled { background: var(--ol-disabled-background); color: var(--ol-dark-grey); }
section.exercise button { font: inherit; padding: 8px 16px; min-height: 44px; min-width: 44px; border-radius: 4px;
  cursor: pointer; border: 1px solid var(--ol-card-button-edge);
  background: var(--ol-white); color: var(--ol-card-button-edge); }
section.exercise button.primary { background: var(--ol-card-button-blue); color: var(--ol-white); }
section.exercise button:disabled { opacity: 0.55; cursor: not-allowed; }
section.exercise :focus-visible { outline: 3px solid var(--ol-focus-orange); outline-offset: 2px; }
.feedback { font-weight: 700; padding: 6px 10px; border-radius: 4px; }
.feedback.correct { background: var(--ol-correct-background); color: var(--ol-correct-green); }
.feedback.wrong { background: var(--ol-wrong-background); color: var(--ol-wrong-red); }
.explanation { border-left: 4px solid var(--ol-explanation-edge); padding-left: 10px; }
.setup-note { color: var(--ol-gate-brown); font-weight: 600; margin: 4px 0; }
.dock-head { display: none; }
section.exercise.docked .dock { position: fixed; left: 0; right: 0; bottom: 0; z-index: 40; max-height: 50vh;
  overflow-y: auto; overscroll-behavior: contain; background: var(--ol-card-background);
  border-top: 2px solid var(--ol-blue); box-shadow: 0 -4px 10px rgba(0, 0, 0, 0.2);
  padding: 4px 12px calc(4px + env(safe-area-inset-bottom)); }
section.exercise.docked .dock-head { display: block; }
.dock-head p { margin: 2px 0; font-size: 0.9rem; }
.dock-title { font-weight: 700; }
.dock-prompt { display: -webkit-box; -webkit-line-clamp: 3; -webkit-box-orient: vertical; overflow: hidden;
  cursor: pointer; }
.dock-prompt.open { display: block; }
.dock-next { color: var(--ol-navy); font-weight: 600; }
section.exercise.docked form.predict { margin: 2px 0; row-gap: 2px; align-items: center; }
section.exercise.docked form.predict label:not(.choice):not([hidden]) { display: contents; }
section.exercise.docked form.predict label:not(.choice) > span { flex: 1 0 100%; font-size: 0.9rem; }
section.exercise.docked form.predict input[type="text"] { flex: 1 1 8rem; width: auto; }
section.exercise.docked form.predict fieldset:not([hidden]) { display: flex; flex-wrap: wrap; column-gap: 14px;
  padding: 0 8px; }
section.exercise.docked form.predict label.choice { min-height: 44px; }
section.exercise.docked button.setup { margin: 2px 0; }
.class-line { color: var(--ol-navy); font-size: 0.92rem; }
.class-line p { margin: 4px 0; }
""")
"""The cards' own style, inside the lesson text's shadow root."""


class ExerciseCard(param.Parameterized):
    """The page side of one exercise: ``<section role="region">`` with steps, prediction and feedback.

    The parameters are declared in the order the page draws them (:data:`CARD_FIELDS`):
    ``prediction`` before ``locked``, so that a field emptied and then unlocked is empty once it
    can be typed in. The flow a student sees: "Start this exercise" alone; once started, the
    prediction field and "Lock prediction"; once judged, the verdict and "Try again".
    """

    label = param.String(default="", doc="The region's accessible name, 'Exercise: <title>'.")
    active = param.Boolean(
        default=False, doc="Whether this exercise has been started (drives the lab); its prediction form shows then."
    )
    steps_html = param.String(default="", doc="Heading, prompt, steps and notices, as escaped HTML.")
    prediction_label = param.String(default="Your prediction", doc="The prediction field's label, with its unit.")
    choices = param.List(
        default=[], item_type=str, doc="A choice exercise's options (radio buttons); empty for a typed number."
    )
    prediction = param.String(
        default="", doc="What the prediction field shows (the locked value once locked; the chosen option's text)."
    )
    locked = param.Boolean(default=False, doc="Whether a prediction is locked (field and Lock button disabled).")
    start_label = param.String(
        default="Start this exercise",
        doc="'Start this exercise' before it starts, 'Try again' once judged, '' (no button) in between.",
    )
    setup_label = param.String(
        default="",
        doc="'Set up the lab' while the exercise's setup (its Reset and settings before the prediction) is not done; "
        "'' (no button) otherwise.",
    )
    retry_label = param.String(
        default="",
        doc="'Try it with new numbers' after a verdict, for an exercise that varies its numbers; '' (no button) "
        "otherwise.",
    )
    feedback_html = param.String(default="", doc="The verdict as escaped HTML; empty before the exercise ends.")
    verdict = param.Selector(default="", objects=["", "correct", "wrong"], doc="Styles the feedback line.")
    explanation_html = param.String(default="", doc="Why, shown below the verdict once it is given.")
    class_html = param.String(default="", doc="The class line (shared with the instructor; 'class: …' after a reveal).")
    scroll_into_view = param.Boolean(default=False, doc="Scroll the card into view once drawn (a deep link).")
    share = param.List(
        default=[],
        item_type=str,
        doc="The Share button's link and embed paths, relative to the course's root (app.web.share.exercise_paths; "
        "embed '' when the server has no embed pages); empty: no Share button.",
    )

    def __init__(self, on_action: Callable[[dict], None] | None = None, **params):
        super().__init__(**params)
        self._on_action = on_action

    def shown(self) -> list:
        """What the page draws, as values in :data:`CARD_FIELDS` order."""
        return [getattr(self, name) for name in CARD_FIELDS]

    def receive(self, msg: object) -> None:
        """Hand one message from the page (a click on Lock or Start) to the exercise.

        Parameters
        ----------
        msg : object
            ``{"action": "lock", "text": ...}`` or ``{"action": "start"}``; anything else is passed on
            for the exercise to refuse.
        """
        if self._on_action is not None and isinstance(msg, dict):
            self._on_action(msg)


CARD_FIELDS = tuple(name for name in ExerciseCard.param if name != "name")
"""What the page draws of a card, in the order it draws them: the parameters, as declared."""
