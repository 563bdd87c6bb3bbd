"""Guided predict-then-play exercises: ticking off steps, gating Play and Step, feedback."""

from __future__ import annotations

from collections.abc import Callable

import param
from panel.viewable import Viewer

from app.course.catalog import lab_kinds
from app.course.exercise_card import ExerciseCard
from app.course.exercise_drawing import CardState, card_fields, progress_shown
from app.course.exercise_gate import GateState, gate_lab
from app.course.exercise_resume import resume_plan, retried
from app.course.exercise_setup import apply_setup, changed_setting, setup_pending
from app.course.exercise_wiring import one_card_message, watch_lab
from app.course.exercise_words import amount_html, counted, describe_step, model_reading, shown_setting
from app.course.kinds import StepFacts, prediction_kind, step_kind
from app.course.lesson_text import LessonText
from app.course.progress import ProgressStore
from app.course.spec import Exercise
from app.course.variants import variant_name
from app.web.share import exercise_paths
from labs.timed import TimedModel

__all__ = [
    "ExerciseRunner",
    "ExerciseSession",
    "amount_html",
    "describe_step",
    "model_reading",
    "shown_setting",
]


class ExerciseSession(param.Parameterized):
    """Which exercise on a lesson page is active; at most one drives the lab at a time."""

    active = param.String(default="", doc="The id of the active exercise, or '' for none.")
    active_lab = param.String(default="", doc="The lab the active exercise uses (set before ``active``).")


class ExerciseRunner(Viewer):
    """One exercise beside one lab, for one session.

    The runner watches the lab's model and its Reset, ticks steps off in order (each step's kind says
    when it is done: :mod:`app.course.kinds`), and compares the locked prediction with the value the
    model shows once the last step is done. Its collaborators take what they need: what the lab may do
    meanwhile (Play and Step off until the lock, the setup advice) is
    :func:`app.course.exercise_gate.gate_lab`'s job from a :class:`~app.course.exercise_gate.GateState`;
    what the card shows, :func:`app.course.exercise_drawing.card_fields`'s from a
    :class:`~app.course.exercise_drawing.CardState`; new numbers and a reload's state,
    :mod:`app.course.exercise_resume`'s.
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
    retries = param.Integer(
        default=0, bounds=(0, None), doc="How many times new numbers were asked for (the next retry's place)."
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
        self._spotlit: int | None = None  # the step whose control was last brought into view
        self._played: int | None = None  # the running step during which Play was pressed (judged_on_play)
        self.ran_unset = False  # Play was pressed after the lock with the setup not done
        self.written: Exercise = self.exercise  # as the lesson writes it; ``exercise`` may be a variant
        spec: Exercise = self.exercise
        # A variant keeps its lab, quantity and kind of prediction: these hold for every one.
        self.model_class: type = lab_kinds()[spec.lab].model
        self.counted: str | None = counted(spec)  # the singular of what it counts ("bucket"), or None
        self.predicted = prediction_kind(spec)
        self.key = f"{self.lesson_slug}/{spec.id}"
        self.card = ExerciseCard(
            on_action=self._card_action,
            label=f"Exercise: {spec.title}",
            prediction_label=f"Your prediction ({spec.unit})" if spec.unit else "Your prediction",
            choices=list(spec.choices),
            share=list(exercise_paths(self.lesson_slug, spec.id)) if self.lesson_slug and self.shareable else [],
        )
        if lab is not None:
            self.lab, self.model = watch_lab(lab, self._lab_event)
        self.session.param.watch(self._active_changed, "active")
        if self.progress is not None:
            self.progress.param.watch(
                lambda event: progress_shown(event, self.key, self.finished) and self._draw(), ["completed", "kept"]
            )
        self._draw()

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

    @property
    def correct(self) -> bool:
        """Whether the locked prediction is within the tolerance of what the model shows."""
        if self.prediction is None or self.shown is None:
            return False
        return abs(self.prediction - self.shown) <= self.exercise.tolerance + 1e-9

    def amount(self, value: float, exact: bool = False) -> str:
        """A value of the exercise's quantity with its unit (:func:`amount_html`)."""
        return self.predicted.amount_html(self.exercise, value, exact, self.counted)

    # -- what the student does ---------------------------------------------------------------
    def start(self) -> None:
        """Make this the active exercise and begin it from its first step."""
        if self.lab is None and self._lab_provider is not None:
            self.lab, self.model = watch_lab(self._lab_provider(), self._lab_event)
        # The field empties while still locked, then unlocks: emptied after, it could wipe what the
        # student types into the unlocked field before the second message lands.
        self.card.prediction = ""
        self.card.label = f"Exercise: {self.exercise.title}"  # a variant's title has its own numbers
        self._spotlit = self._played = None
        self.ran_unset = False
        self.param.update(current=0, prediction=None, shown=None, notice="", new_round=False)
        if self.session.active == self.exercise.id:
            self._gate()
        self.session.param.update(active_lab=self.exercise.lab, active=self.exercise.id)
        self._advance()

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
            What the prediction field held, read by the exercise's prediction kind
            (:mod:`app.course.kinds.predictions`): a number is read by :func:`labs.numbers.parse_number`
            like every number field, refused with the reason unless it is one finite number within
            :func:`app.course.exercise_range.prediction_range`, and shown back the way the lab fields
            show numbers (``1,5`` becomes ``1.5``); a choice must be one of the exercise's choices.
        """
        value = self.predicted.lock(text, self.exercise, self.counted)
        if isinstance(value, str):
            self.notice = value
            return
        if not self.active:
            self.start()
        self.card.prediction = self.exercise.as_entered(value)
        self.param.update(prediction=value, notice="")
        if self.classroom is not None:
            self.classroom.share(self, value, variant=variant_name(self.exercise))
        self._gate()
        self._advance()

    # -- events ------------------------------------------------------------------------------
    @one_card_message
    def _card_action(self, message: dict) -> None:
        """Do what the card asks: start, lock, set up, retry with new numbers, or resume after a reload."""
        action = message.get("action")
        if action == "start":
            self.start()
        elif action == "lock":
            self.lock(message.get("text"))
        elif action == "setup":
            self.set_up()
        elif action == "retry":
            asked = retried(self.written, message.get("seed"), self.retries + 1)
            if asked is not None:
                self.retries += 1
                self.exercise = asked
                self.start()
        elif action == "resume" and self.active and not self.locked and not self.finished and not self.retries:
            plan = resume_plan(message.get("state"), self.written)  # only a freshly started exercise
            if plan is not None and plan.variant is not None:
                self.retries, self.exercise = plan.retries, plan.variant
                self.start()
            if plan is not None and plan.setup:
                self.set_up()
            if plan is not None and plan.locked:
                self.lock(plan.locked)

    @one_card_message
    def _lab_event(self, what: str, *_events: param.parameterized.Event) -> None:
        """Follow the lab: a change of its model or clock, its Reset, or a press of its Play."""
        if not self.active or self.finished:
            return
        steps = self.exercise.steps
        if what == "played":
            if self.locked and setup_pending(self.exercise, self.current):
                self.ran_unset = True  # say at once that this run cannot be judged, and why
                self._gate()
                return
            if not (self.current < len(steps) and step_kind(steps[self.current]).runs):
                return
            self._played = self.current
        elif what == "reset":
            resets = [i for i, step in enumerate(steps) if step_kind(step).by_reset]
            if resets and self.current >= resets[0]:
                self.current = resets[0] + 1
        self._advance()

    @one_card_message
    def _active_changed(self, event: param.parameterized.Event) -> None:
        """Free the lab when another exercise takes it, and gate it when this one does."""
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
            self._gate()
        self._draw()

    # -- progress ----------------------------------------------------------------------------
    def _advance(self) -> None:
        """Tick off every step now done, in order; then point at the next one, or give the verdict."""
        steps = self.exercise.steps
        while self.current < len(steps):
            step = steps[self.current]
            if not step_kind(step).done(step, StepFacts(self.model, self.locked, self._played == self.current)):
                break
            self.current += 1
        step = steps[self.current] if self.current < len(steps) else None
        kind = step_kind(step) if step is not None else None
        pause_at = kind.pause_at(step) if kind is not None else None
        if pause_at != self.model.pause_at:
            self.model.pause_at = pause_at  # the lab redraws: the page's player learns where to stop
        if kind is None and not self.finished:
            self.notice = changed_setting(self.model, self.exercise)  # a setting changed since its step
            if not self.notice:
                self.shown = self.predicted.read(self.model, self.exercise)
                self.progress.record(self.key, self.correct)
        elif kind is not None and kind.spotlight(step) and self._spotlit != self.current:
            self._spotlit = self.current
            self.lab.spotlight(kind.spotlight(step))  # the step names it: show where it is
        elif kind is not None and kind.runs and self._spotlit is not None and self._spotlit != self.current:
            self._spotlit = self.current  # after a control set by hand, back to Play
            self.lab.show_picture()
        self._gate()

    def _gate(self) -> None:
        """Tell the lab what it may do now (:func:`~app.course.exercise_gate.gate_lab`); nothing before it is built."""
        if self.lab is None:
            return
        state = GateState(
            exercise=self.exercise,
            current=self.current,
            active=self.active,
            others_idle=not self.session.active,
            finished=self.finished,
            locked=self.locked,
            notice=self.notice,
            ran_unset=self.ran_unset,
            model=self.model,
            model_class=self.model_class,
        )
        gate_lab(self.lab, state, lambda advice: setattr(self, "advice", advice))

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
        state = CardState(
            exercise=self.exercise,
            written=self.written,
            model_class=self.model_class,
            key=self.key,
            progress=self.progress,
            classroom=self.classroom,
            heading_level=self.heading_level,
            active=self.active,
            finished=self.finished,
            locked=self.locked,
            correct=self.correct,
            current=self.current,
            prediction=self.prediction,
            shown=self.shown,
            notice=self.notice,
            advice=self.advice,
            class_note=self.class_note,
            class_result=self.class_result,
            new_round=self.new_round,
            retries=self.retries,
            has_lab=self.lab is not None,
        )
        self.card.param.update(card_fields(state))

    def __panel__(self) -> LessonText:
        """The exercise's card on its own, built once (a lesson page draws every card in its text)."""
        if self._alone is None:
            self._alone = LessonText([self.card])
        return self._alone
