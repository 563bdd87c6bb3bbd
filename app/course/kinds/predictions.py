"""The course's prediction kinds: a number typed with its unit, and one of some choices."""

from __future__ import annotations

import html
from collections.abc import Mapping

from app.course.exercise_range import out_of_range_text, prediction_range
from app.course.kinds.base import Place, PredictionKind
from app.course.kinds.fields import number, text
from app.course.spec import Exercise
from labs.numbers import NotANumber, fixed, parse_number
from labs.timed import TimedModel, format_number


class NumberPrediction(PredictionKind):
    """A number the student types, judged within the exercise's ``tolerance``, in its ``unit``."""

    name = "number"
    fields = frozenset({"unit"})
    required = ("unit",)

    def claims(self, prediction: Mapping) -> bool:
        """As :meth:`PredictionKind.claims`."""
        return True  # asked last: any prediction no other kind claims

    def mismatch(self, quantity: str, lab) -> str | None:
        """As :meth:`PredictionKind.mismatch`."""
        return "is asked as a choice: give prediction.choices" if quantity in lab.choices else None

    def parse(self, data, prediction, quantity, lab, place: Place):
        """As :meth:`PredictionKind.parse`."""
        if "tolerance" not in data:
            raise place.error("is missing", "tolerance")
        tolerance = number(place.path, place.exercise, "tolerance", data["tolerance"])
        if tolerance < 0:
            raise place.error("must be 0 or more", "tolerance")
        answer = number(place.path, place.exercise, "answer", data["answer"])
        unit = text(place.path, place.exercise, "prediction.unit", prediction["unit"])
        return answer, tolerance, unit, ()

    def mistake(self, raw, ruled, answer, place: Place, where: str) -> float:
        """As :meth:`PredictionKind.mistake`."""
        right, tolerance, _ = answer
        wrong = number(place.path, place.exercise, f"{where}.answer", raw)
        if abs(wrong - right) <= tolerance:
            raise place.error(f"{format_number(wrong)} is within the tolerance of the answer", where)
        return wrong

    def lock(self, text: object, exercise: Exercise, counted: str | None) -> float | str:
        """As :meth:`PredictionKind.lock`."""
        try:
            value = parse_number(text if isinstance(text, str) else "")
        except NotANumber as refusal:
            return f"Your prediction: {refusal}; type it as a number in {exercise.unit}."
        if counted is not None and not float(value).is_integer():
            return f"Your prediction: a number of {exercise.unit} is a whole number, like 2."
        low, high = prediction_range(exercise)
        if not low <= value <= high:
            return out_of_range_text(value, low, high, exercise.unit)
        return value

    def amount_html(self, exercise: Exercise, value: float, exact: bool, counted: str | None) -> str:
        """As :meth:`PredictionKind.amount_html`."""
        if counted is not None:
            whole = round(value)
            return f"{whole} {html.escape(counted if whole == 1 else exercise.unit)}"
        return html.escape(exercise.with_unit(format_number(value, exact=True) if exact else fixed(value)))


def _choice(place: Place, name: str, raw: object, choices: tuple[str, ...]) -> float:
    """The index of the choice ``raw`` names; refused unless it is one of ``choices``, as written."""
    if not isinstance(raw, str) or raw not in choices:
        raise place.error(f"{raw!r} is not among the choices ({', '.join(choices)})", name)
    return float(choices.index(raw))


class ChoicePrediction(PredictionKind):
    """One of the texts in ``prediction.choices``, each a reading the lab can show; kept as its index."""

    name = "choice"
    fields = frozenset({"choices"})
    noun = "choice"
    verb = "Choose"
    varies = False
    timed = False

    def claims(self, prediction: Mapping) -> bool:
        """As :meth:`PredictionKind.claims`."""
        return "choices" in prediction

    def mismatch(self, quantity: str, lab) -> str | None:
        """As :meth:`PredictionKind.mismatch`."""
        return "is a number: drop choices" if quantity not in lab.choices else None

    def parse(self, data, prediction, quantity, lab, place: Place):
        """As :meth:`PredictionKind.parse`."""
        raw, readings = prediction["choices"], lab.choices[quantity]
        if not isinstance(raw, list) or len(raw) < 2 or not all(isinstance(c, str) for c in raw):
            raise place.error("must be a list of two or more texts", "prediction.choices")
        if len(set(raw)) != len(raw):
            raise place.error("lists a choice twice", "prediction.choices")
        for choice in raw:
            if choice not in readings:
                raise place.error(
                    f"{choice!r} is not something the {lab.name} lab can show for {quantity!r}; "
                    f"it shows one of: {', '.join(readings)}",
                    "prediction.choices",
                )
        choices = tuple(raw)
        if "unit" in prediction or data.get("tolerance", 0) != 0:
            raise place.error("a choice has no unit and no tolerance", "prediction.unit")
        return _choice(place, "answer", data["answer"], choices), 0.0, "", choices

    def mistake(self, raw, ruled, answer, place: Place, where: str) -> float:
        """As :meth:`PredictionKind.mistake`."""
        right, _, choices = answer
        if ruled:
            raise place.error("a choice's mistake has no rule", where)
        wrong = _choice(place, f"{where}.answer", raw, choices)
        if wrong == right:
            raise place.error(f"{raw!r} is the answer, not a mistake", where)
        return wrong

    def lock(self, text: object, exercise: Exercise, counted: str | None) -> float | str:
        """As :meth:`PredictionKind.lock`."""
        if text not in exercise.choices:
            return "Your prediction: choose one of the answers, then press Lock prediction."
        return float(exercise.choices.index(text))

    def read(self, model: TimedModel, exercise: Exercise) -> float:
        """As :meth:`PredictionKind.read`."""
        shown = model.choice(exercise.quantity)
        return float(exercise.choices.index(shown) if shown in exercise.choices else len(exercise.choices))

    def amount_html(self, exercise: Exercise, value: float, exact: bool, counted: str | None) -> str:
        """As :meth:`PredictionKind.amount_html`."""
        return f"“{html.escape(exercise.choice_text(value))}”"
