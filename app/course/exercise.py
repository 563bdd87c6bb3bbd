"""Guided predict-then-play exercises: ticking off steps, gating Play and Step, feedback."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import param
from panel.viewable import Viewer
from param.parameterized import batch_call_watchers

from app.course.catalog import lab_kinds
from app.course.content import Exercise, Step
from app.course.exercise_card import ExerciseCard
from app.course.exercise_drawing import card_fields
from app.course.exercise_gate import gate_lab
from app.course.exercise_range import out_of_range_text, prediction_range
from app.course.exercise_setup import apply_setup, setup_pending
from app.course.exercise_words import amount_html, counted, describe_step, model_reading, same, shown_setting
from app.course.lesson_text import LessonText
from app.course.progress import ProgressStore
from app.course.variants import asked_with_new_numbers, variant_name, variant_named
from app.web.share import exercise_paths
from labs.numbers import NotANumber, parse_number
from labs.timed import TimedModel

_Handler = TypeVar("_Handler", bound=Callable[..., Any])


def one_card_message(handler: _Handler) -> _Handler:
    """Have what ``handler`` changes on the runner's card reach the page in one message.

    A click can change the card several times as the runner works through it (Lock empties and sets
    the field, ticks the step, then gives the verdict); the lesson text sends every card each time
    one changes. Batched, the card's watchers run once, with the last value of each field, when the
    outermost handler returns: the page draws the fields in their order (``CARD_FIELDS``) from one
    message, so a field emptied and unlocked in one click is empty once it can be typed in.

    Parameters
    ----------
    handler : callable
        A method of :class:`ExerciseRunner` that the page or the lab calls.

    Returns
    -------
    callable
        The same method, batched.
    """

    @functools.wraps(handler)
    def batched(self: ExerciseRunner, *args: Any, **kwargs: Any) -> Any:
        with batch_call_watchers(self.card):
            return handler(self, *args, **kwargs)

    return batched  # type: ignore[return-value]


__all__ = ["ExerciseRunner", "ExerciseSession", "amount_html", "describe_step", "model_reading", "shown_setting"]


class ExerciseSession(param.Parameterized):
    """Which exercise on a lesson page is active; at most one drives the lab at a time."""

    active = param.String(default="", doc="The id of the active exercise, or '' for none.")
    active_lab = param.String(default="", doc="The lab the active exercise uses (set before ``active``).")


MAX_RESUME_TEXT = 200
"""The longest variant name or locked prediction a resumed page may send back (a forged one is ignored)."""
MAX_RETRIES = 10_000
"""The most retries a resumed page may claim (it only orders the next variants)."""


class ExerciseRunner(Viewer):
    """One exercise beside one lab, for one session.

    The runner watches the lab's model and its Reset, ticks steps off in order, and compares the
    locked prediction with the value the model shows once the last step is done. What the lab may
    do meanwhile (Play and Step off until the lock, the setup advice) is
    :func:`app.course.exercise_gate.gate_lab`'s job; what the card shows,
    :func:`app.course.exercise_drawing.card_fields`'s.
    """

    exercise = param.Parameter(doc="The exercise spec (app.course.content.Exercise).")
    lesson_slug = param.String(doc="The lesson's URL name, for progress keys.")
    current = param.Integer(default=0, bounds=(0, None), doc="Index of the next step to do.")
    prediction = param.Number(default=None, allow_None=True, doc="The locked prediction.")
    shown = param.Number(default=None, allow_None=True, doc="What the model showed at the end.")
    notice = param.String(default="", doc="A message about the prediction input or the controls.")
    advice = param.String(
        default="", doc="While a locked exercise's setup is not done: what differs and what to do (beside Play too)."
    )
    session = param.ClassSelector(class_=ExerciseSession, doc="Which exercise on the page is active.")
    progress = param.ClassSelector(class_=ProgressStore, doc="This browser's finished exercises.")
    classroom = param.Parameter(default=None, doc="The session's ClassShare when the class is on, else None.")
    class_note = param.String(default="", doc="Whether the locked prediction was shared with the instructor.")
    class_result = param.String(default="", doc="The class result after the instructor's reveal ('class: …').")
    new_round = param.Boolean(
        default=False, doc="The instructor opened a new round since this prediction was shared: it may be made again."
    )
    heading_level = param.Integer(
        default=3,
        bounds=(2, 6),
        constant=True,
        doc="The card's heading level: 3 in a lesson (under its sections), 2 alone under the page's heading.",
    )
    shareable = param.Boolean(
        default=True, constant=True, doc="Whether the card has a Share button (not where another site frames it)."
    )

    def __init__(self, lab: Viewer | None = None, lab_provider: Callable[[], Viewer] | None = None, **params):
        super().__init__(**params)
        self.lab: Viewer | None = None
        self.model: TimedModel | None = None
        self._lab_provider = lab_provider
        self._alone: LessonText | None = None
        self._spotlit: int | None = None  # the set step whose control was last brought into view
        self._played: int | None = None  # the run step during which Play was pressed (judged_on_play)
        self.ran_unset = False  # Play was pressed after the lock with the setup not done
        self.written: Exercise = self.exercise  # as the lesson writes it; ``exercise`` may be a variant
        self._retries = 0  # how many times new numbers were asked for
        spec: Exercise = self.exercise
        self.key = f"{self.lesson_slug}/{spec.id}"
        self.card = ExerciseCard(
            on_action=self._card_action,
            label=f"Exercise: {spec.title}",
            prediction_label=f"Your prediction ({spec.unit})" if spec.unit else "Your prediction",
            choices=list(spec.choices),
            share=list(exercise_paths(self.lesson_slug, spec.id)) if self.lesson_slug and self.shareable else [],
        )
        if lab is not None:
            self._attach(lab)
        self.session.param.watch(self._active_changed, "active")
        if self.progress is not None:
            self.progress.param.watch(self._progress_changed, ["completed", "kept"])
        self._draw()

    def _attach(self, lab: Viewer) -> None:
        """Start watching ``lab``: a lab the page builds only when one of its exercises starts."""
        self.lab, self.model = lab, lab.model
        self.model.param.watch(self._lab_changed, ["t", *self.model.controls])
        lab.on_reset(self._lab_reset)
        lab.on_play(self._lab_played)

    @property
    def model_class(self) -> type:
        """The lab's model class, known before the lab itself is built."""
        return lab_kinds()[self.exercise.lab].model

    # -- state -------------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        """Whether this exercise is the one driving the lab."""
        return self.session.active == self.exercise.id

    @property
    def locked(self) -> bool:
        """Whether a prediction is locked."""
        return self.prediction is not None

    @property
    def finished(self) -> bool:
        """Whether feedback has been given."""
        return self.shown is not None

    def start(self) -> None:
        """Make this the active exercise and begin it from its first step."""
        if self.lab is None and self._lab_provider is not None:
            self._attach(self._lab_provider())
        # The field empties while still locked, then unlocks: emptied after, it could wipe what the
        # student types into the unlocked field before the second message lands.
        self.card.prediction = ""
        self.card.label = f"Exercise: {self.exercise.title}"  # a variant's title has its own numbers
        self._spotlit = self._played = None
        self.ran_unset = False
        self.param.update(current=0, prediction=None, shown=None, notice="", new_round=False)
        if self.session.active == self.exercise.id:
            self._apply_gate()
        self.session.param.update(active_lab=self.exercise.lab, active=self.exercise.id)
        self._advance()

    @one_card_message
    def _active_changed(self, event: param.parameterized.Event) -> None:
        if self.exercise.id not in (event.old, event.new):
            return  # another pair of exercises: nothing this card shows depends on which one is active
        if event.old == self.exercise.id and event.new != self.exercise.id and self.model is not None:
            if self.model.pause_at is not None:
                self.model.pause_at = None  # the lab redraws, and the page's player learns it
            if self.session.active_lab != self.exercise.lab:  # the page now shows another lab: free this one
                self.lab.gate("")
                self.lab.param.update(conceal=False, hidden_quantity="")
            self.card.prediction = ""  # emptied while still locked, as in start()
            self.param.update(current=0, prediction=None, shown=None, notice="", advice="")
            if self.session.active_lab == self.exercise.lab:  # the next exercise's gate says its own
                self.lab.advise("")
        if event.new == self.exercise.id:
            self._apply_gate()
        self._draw()

    def _apply_gate(self) -> None:
        gate_lab(self)

    # -- events from the lab -----------------------------------------------------------------
    @one_card_message
    def _lab_reset(self) -> None:
        if not self.active or self.finished:
            return
        resets = [i for i, step in enumerate(self.exercise.steps) if step.kind == "reset"]
        if resets and self.current >= resets[0]:
            self.current = resets[0] + 1
        self._advance()

    @one_card_message
    def _lab_played(self) -> None:
        if self.active and not self.finished and self.locked and setup_pending(self.exercise, self.current):
            self.ran_unset = True  # say at once that this run cannot be judged, and why
            self._apply_gate()
            return
        if self.active and not self.finished and self.step_is("run"):
            self._played = self.current
            self._advance()

    def step_is(self, kind: str) -> bool:
        """Whether the next step to do is of this kind (``"set"``, ``"run"``, ...)."""
        steps = self.exercise.steps
        return self.current < len(steps) and steps[self.current].kind == kind

    @one_card_message
    def _lab_changed(self, *_events: param.parameterized.Event) -> None:
        if self.active and not self.finished:
            self._advance()

    @one_card_message
    def _card_action(self, message: dict) -> None:
        if message.get("action") == "start":
            self.start()
        elif message.get("action") == "lock":
            self.lock(message.get("text"))
        elif message.get("action") == "setup":
            self.set_up()
        elif message.get("action") == "retry":
            self.retry(message.get("seed"))
        elif message.get("action") == "resume":
            self.resume(message.get("state"))

    @property
    def retries(self) -> int:
        """How many times new numbers were asked for (the next retry's place in the browser's order)."""
        return self._retries

    def resume(self, state: object) -> None:
        """Bring back what a reload interrupted: the variant, the setup and the locked prediction.

        The page keeps :func:`~app.course.exercise_drawing.resume_state` in the tab's storage and sends
        it back once, when the reloaded page opens on this exercise (its URL names it). Everything is
        checked as if typed: a variant only by a name this exercise declares, the setup as the button
        does it, the prediction through :meth:`lock`. Only a freshly started exercise is resumed.

        Parameters
        ----------
        state : object
            ``{"variant": str, "retries": int, "setup": bool, "locked": str}`` as the page stored it;
            anything else, or a state this exercise cannot be in, changes nothing.
        """
        if not isinstance(state, dict) or not self.active or self.locked or self.finished or self._retries:
            return
        name, retries = state.get("variant"), state.get("retries")
        if isinstance(name, str) and name:
            asked = variant_named(self.written, name[:MAX_RESUME_TEXT])
            if asked is None:
                return  # not one of this exercise's variants (an old page, or a forged message)
            whole = isinstance(retries, int) and not isinstance(retries, bool) and 1 <= retries <= MAX_RETRIES
            self._retries = retries if whole else 1
            self.exercise = asked
            self.start()
        if state.get("setup") is True:
            self.set_up()
        text = state.get("locked")
        if isinstance(text, str) and text and len(text) <= MAX_RESUME_TEXT:
            self.lock(text)

    def retry(self, seed: object) -> None:
        """Ask the same question again with new numbers ("Try it with new numbers"), and start it.

        Parameters
        ----------
        seed : object
            The browser's seed (a whole number kept in its localStorage): each student meets the
            variants in an order of their own. Anything else counts as 0.
        """
        if not self.written.vary:
            return
        whole = seed if isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 2**53 else 0
        self._retries += 1
        self.exercise = asked_with_new_numbers(self.written, whole, self._retries)
        self.start()

    def set_up(self) -> None:
        """Put the exercise's scene in the lab (its Reset and settings before the prediction), as its button does.

        The steps tick as if the student had done them; a prediction already locked stays locked.
        Only while the exercise runs: once judged, "Try again" starts it afresh first.
        """
        if not self.active:
            self.start()
        if self.finished or not setup_pending(self.exercise, self.current):
            return
        self.ran_unset = False
        apply_setup(self.lab, self.exercise)
        self._spotlit = None  # no step of the setup to point at: the picture is shown once, below
        self._advance()
        self.lab.show_picture()  # the scene just set, and Play: on a phone the button was in the dock

    def lock(self, text: object) -> None:
        """Lock the prediction the student typed, or say why it cannot be locked.

        Parameters
        ----------
        text : object
            What the prediction field held, read by :func:`labs.numbers.parse_number` like every
            number field (a decimal point or comma, no thousands separators); anything that is not
            one finite number is refused with the reason, and so is a number far outside what the
            exercise can give (:func:`app.course.exercise_range.prediction_range`). A locked prediction
            is shown back the way the lab fields show numbers (``1,5`` becomes ``1.5``). In a choice
            exercise, the text of the chosen option, which must be one of the exercise's choices.
        """
        choices = self.exercise.choices
        if choices:
            if text not in choices:
                self.notice = "Your prediction: choose one of the answers, then press Lock prediction."
                return
            self._locked_as(float(choices.index(text)))
            return
        try:
            value = parse_number(text if isinstance(text, str) else "")
        except NotANumber as refusal:
            self.notice = f"Your prediction: {refusal}; type it as a number in {self.exercise.unit}."
            return
        if self.counted is not None and not float(value).is_integer():
            self.notice = f"Your prediction: a number of {self.exercise.unit} is a whole number, like 2."
            return
        low, high = prediction_range(self.exercise)
        if not low <= value <= high:
            self.notice = out_of_range_text(value, low, high, self.exercise.unit)
            return
        self._locked_as(value)

    def _locked_as(self, value: float) -> None:
        """Lock ``value`` (a choice's index in a choice exercise); the card shows it as entered."""
        if not self.active:
            self.start()
        self.card.prediction = self.exercise.as_entered(value)
        self.param.update(prediction=value, notice="")
        if self.classroom is not None:
            self.classroom.share(self, value, variant=variant_name(self.exercise))
        self._apply_gate()
        self._advance()

    # -- progress ----------------------------------------------------------------------------
    def _step_done(self, step: Step) -> bool:
        if step.kind == "set":
            return same(getattr(self.model, step.control), step.value)
        if step.kind == "predict":
            return self.locked
        if step.kind == "run":
            if self._played == self.current:  # a lab where Play changes nothing but the clock
                return True
            return self.model.at_end if step.value is None else self.model.t >= step.value - 1e-9
        return False  # a reset is ticked by the Reset event itself

    def _advance(self) -> None:
        steps = self.exercise.steps
        while self.current < len(steps) and self._step_done(steps[self.current]):
            self.current += 1
        pause_at = (
            steps[self.current].value if self.current < len(steps) and steps[self.current].kind == "run" else None
        )
        if pause_at != self.model.pause_at:
            self.model.pause_at = pause_at  # the lab redraws: the page's player learns where to stop
        if self.current == len(steps) and not self.finished:
            self._finish()
        elif self.step_is("set") and self._spotlit != self.current:
            self._spotlit = self.current
            self.lab.spotlight(steps[self.current].control)  # the step names it: show where it is
        elif self.step_is("run") and self._spotlit is not None and self._spotlit != self.current:
            self._spotlit = self.current  # after a control set by hand, back to Play
            self.lab.show_picture()
        self._apply_gate()

    def _finish(self) -> None:
        wanted: dict[str, object] = {}
        for step in self.exercise.steps:
            if step.kind == "set":
                wanted[step.control] = step.value
        for control, value in wanted.items():
            now = getattr(self.model, control)
            if not same(now, value):
                label = self.model.param[control].label
                is_now, needed = (shown_setting(control, v, type(self.model)) for v in (now, value))
                self.notice = (
                    f"{label} is {is_now} now, but this exercise needs {needed}. Set it back to see the comparison."
                )
                return
        self.notice = ""
        self.shown = self.reading()
        self.progress.record(self.key, self.correct)
        self._apply_gate()

    def reading(self) -> float:
        """The value of the exercise's quantity in the lab's model right now."""
        return model_reading(self.model, self.exercise)

    @property
    def counted(self) -> str | None:
        """The singular of what the exercise counts (``"bucket"``), or None for a measured quantity."""
        return counted(self.exercise)

    def amount(self, value: float, exact: bool = False) -> str:
        """A value of the exercise's quantity with its unit (:func:`amount_html`)."""
        return amount_html(self.exercise, value, exact)

    @property
    def correct(self) -> bool:
        """Whether the locked prediction is within the tolerance of what the model shows."""
        if self.prediction is None or self.shown is None:
            return False
        return abs(self.prediction - self.shown) <= self.exercise.tolerance + 1e-9

    # -- view ------------------------------------------------------------------------------------
    @param.depends(
        "current",
        "prediction",
        "shown",
        "notice",
        "advice",
        "class_note",
        "class_result",
        "new_round",
        watch=True,
    )
    def _draw(self) -> None:
        """Send the card what it shows now, in one message."""
        self.card.param.update(card_fields(self))

    def _progress_changed(self, event: param.parameterized.Event) -> None:
        """Redraw the card for a change of this browser's progress that it shows (``card_note_html``).

        A page has nine or so exercises and progress is one store: a verdict, or the browser's stored
        progress arriving, would otherwise have every card worked out again to show the same.
        """
        if event.name == "completed" and (event.old or {}).get(self.key) == (event.new or {}).get(self.key):
            return
        if event.name == "kept" and not self.finished:
            return
        self._draw()

    def __panel__(self) -> LessonText:
        """The exercise's card on its own, built once (a lesson page draws every card in its text)."""
        if self._alone is None:
            self._alone = LessonText([self.card])
        return self._alone
