"""The course's step kinds: ``reset``, ``set: {control: value}``, ``predict`` and ``run: {until: …}``."""

from __future__ import annotations

import math
from typing import Any

import param

from app.course.kinds.base import Place, PredictionKind, StepFacts, StepKind
from app.course.kinds.fields import number
from app.course.spec import Step
from labs.timed import InvalidInput, TimedModel, format_number


def same(now: object, wanted: object) -> bool:
    """Whether a control's value is the one a ``set`` step asks for (an unset optional control never is)."""
    if now is None or isinstance(wanted, bool | str) or isinstance(now, bool | str):
        return now is not None and now == wanted and type(now) is type(wanted)
    return math.isclose(now, wanted, abs_tol=1e-9)


def shown_setting(control: str, value: object, model_class: type) -> str:
    """A control's value as the lab shows it: ``4``, ``never``, ``bucket 3``, ``on``, a choice's text."""
    if value is None:
        return "never" if control not in getattr(model_class, "numbered_choices", {}) else "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    numbered = getattr(model_class, "numbered_choices", {})
    if control in numbered:
        return f"{numbered[control]} {value}"
    return value if isinstance(value, str) else format_number(value)


class ResetStep(StepKind):
    """``reset``: press the lab's Reset (ticked by the Reset itself)."""

    name = "reset"
    syntax = "reset"
    setup = True
    by_reset = True

    def rehearse(self, step: Step, model: TimedModel, place: Place, where: str) -> Step:
        """As :meth:`StepKind.rehearse`."""
        model.reset()
        return step

    def play(self, step: Step, model: TimedModel) -> None:
        """As :meth:`StepKind.play`."""
        model.reset()

    def describe(self, step: Step, model_class: type, prediction: PredictionKind) -> str:
        """As :meth:`StepKind.describe`."""
        return "Press Reset in the lab"

    def gap(self, step: Step, model: TimedModel) -> str | None:
        """As :meth:`StepKind.gap`."""
        return "Reset not pressed"

    def apply(self, step: Step, lab: Any) -> None:
        """As :meth:`StepKind.apply`."""
        lab.reset_lab()


class SetStep(StepKind):
    """``set: {control: value}``: set one of the lab's controls."""

    name = "set"
    syntax = "set: {control: value}"
    bare = False
    setup = True

    def parse(self, body: object, lab, place: Place, where: str) -> Step:
        """As :meth:`StepKind.parse`."""
        if not isinstance(body, dict) or len(body) != 1:
            raise place.error("'set' takes one control: {name: value}", where)
        ((control, value),) = body.items()
        if control not in lab.controls:
            known = ", ".join(lab.controls)
            raise place.error(f"unknown control {control!r} for the {lab.name} lab; known: {known}", where)
        if not isinstance(value, bool | str):  # on/off and choices as they are; the rest a number
            value = number(place.path, place.exercise, f"{where}.set.{control}", value)
            if value.is_integer() and isinstance(lab.model.param[control], param.Integer):
                value = int(value)  # a bucket or a layer by its number
        return Step(kind=self.name, control=control, value=value)

    def rehearse(self, step: Step, model: TimedModel, place: Place, where: str) -> Step:
        """As :meth:`StepKind.rehearse`."""
        try:
            return Step(kind=self.name, control=step.control, value=model.apply(step.control, step.value))
        except InvalidInput as refusal:
            raise place.error(str(refusal), f"{where}.set.{step.control}") from None

    def play(self, step: Step, model: TimedModel) -> None:
        """As :meth:`StepKind.play`."""
        model.apply(step.control, step.value)

    def done(self, step: Step, facts: StepFacts) -> bool:
        """As :meth:`StepKind.done`."""
        return same(getattr(facts.model, step.control), step.value)

    def describe(self, step: Step, model_class: type, prediction: PredictionKind) -> str:
        """As :meth:`StepKind.describe`."""
        label = model_class.param[step.control].label
        if isinstance(step.value, bool):
            return f"{'Check' if step.value else 'Uncheck'} {label}"
        return f"Set {label} to {shown_setting(step.control, step.value, model_class)}"

    def spotlight(self, step: Step) -> str | None:
        """As :meth:`StepKind.spotlight`."""
        return step.control

    def wanted(self, step: Step) -> tuple[str, object] | None:
        """As :meth:`StepKind.wanted`."""
        return step.control, step.value

    def gap(self, step: Step, model: TimedModel) -> str | None:
        """As :meth:`StepKind.gap`."""
        now = getattr(model, step.control)
        if same(now, step.value):
            return None
        label = model.param[step.control].label
        is_now, needed = (shown_setting(step.control, value, type(model)) for value in (now, step.value))
        return f"{label} is {is_now} (this exercise needs {needed})"

    def apply(self, step: Step, lab: Any) -> None:
        """As :meth:`StepKind.apply`."""
        if not same(getattr(lab.model, step.control), step.value):
            lab.model.param.update({step.control: step.value})

    def numbers(self, step: Step) -> tuple[float, ...]:
        """As :meth:`StepKind.numbers`."""
        whole = isinstance(step.value, int | float) and not isinstance(step.value, bool)
        return (float(step.value),) if whole else ()


class PredictStep(StepKind):
    """``predict``: lock a prediction (done once one is locked)."""

    name = "predict"
    syntax = "predict"
    predicts = True

    def done(self, step: Step, facts: StepFacts) -> bool:
        """As :meth:`StepKind.done`."""
        return facts.locked

    def describe(self, step: Step, model_class: type, prediction: PredictionKind) -> str:
        """As :meth:`StepKind.describe`."""
        return f"{prediction.verb} your prediction and press Lock prediction"


class RunStep(StepKind):
    """``run: {until: t}`` or ``run: {until: end}``: run the lab to a time, or to its end."""

    name = "run"
    syntax = "run: {until: …}"
    bare = False
    runs = True

    def parse(self, body: object, lab, place: Place, where: str) -> Step:
        """As :meth:`StepKind.parse`."""
        until = body.get("until") if isinstance(body, dict) else None
        if until == "end":
            return Step(kind=self.name, value=None)
        value = number(place.path, place.exercise, f"{where}.run.until", until)
        if value <= 0:
            raise place.error("must be a time above 0 or 'end'", f"{where}.run.until")
        return Step(kind=self.name, value=value)

    def play(self, step: Step, model: TimedModel) -> None:
        """As :meth:`StepKind.play`."""
        while not (model.at_end if step.value is None else model.t >= step.value):
            model.pause_at = step.value
            model.step()
        model.pause_at = None

    def done(self, step: Step, facts: StepFacts) -> bool:
        """As :meth:`StepKind.done`."""
        if facts.played:  # a lab where Play changes nothing but the clock
            return True
        return facts.model.at_end if step.value is None else facts.model.t >= step.value - 1e-9

    def describe(self, step: Step, model_class: type, prediction: PredictionKind) -> str:
        """As :meth:`StepKind.describe`."""
        if getattr(model_class, "run_words", ""):  # a lab whose Play is another button (the sample trace's Load)
            return model_class.run_words
        if getattr(model_class, "judged_on_play", False):
            return "Press Play (the verdict shows at once)"
        if step.value is None:
            return "Press Play and let it run to the end"
        return f"Press Play or Step until t = {format_number(step.value)} s"

    def pause_at(self, step: Step) -> float | None:
        """As :meth:`StepKind.pause_at`."""
        return step.value

    def numbers(self, step: Step) -> tuple[float, ...]:
        """As :meth:`StepKind.numbers`."""
        return () if step.value is None else (float(step.value),)
