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
from pathlib import Path

import param

from labs.ui import stylesheet

CARD_CSS = stylesheet(Path(__file__).parent / "assets" / "exercise_card.css")
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
    class_news = param.String(
        default="",
        doc="What the class did that a docked student must see: the result after a reveal, or a new round; '' before.",
    )
    scroll_into_view = param.Boolean(default=False, doc="Scroll the card into view once drawn (a deep link).")
    resume = param.Dict(
        default={},
        doc="While the exercise runs, what a reload needs to bring it back (exercise, variant, retries, setup, "
        "locked): the page keeps it in the tab's storage and names the exercise in the URL; {} otherwise.",
    )
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
