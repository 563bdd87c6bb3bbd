"""An exercise's ``mistakes``: the common wrong answers, each with its reasoning, label and rule.

:mod:`app.course.content` reads the rest of the exercise; the wrong answer itself is read by the
exercise's prediction kind (:mod:`app.course.kinds`), a number or one of the choices.
"""

from __future__ import annotations

from app.course.kinds import Place, PredictionKind
from app.course.kinds.fields import text
from app.course.spec import LABEL_MAX, Mistake

_MISTAKE_FIELDS = {"answer", "reasoning", "label", "rule", "as_if"}


def parse_mistakes(
    place: Place, raw: object, kind: PredictionKind, answer: tuple[float, float, tuple[str, ...]]
) -> tuple[Mistake, ...]:
    """Read ``mistakes``: a list of ``{answer, reasoning}`` with an optional ``label`` and ``rule`` or ``as_if``.

    Parameters
    ----------
    place : Place
        The lesson file and the exercise, for errors.
    raw : object
        The field as the spec writes it (None when left out).
    kind : PredictionKind
        The exercise's prediction kind, which reads each wrong answer.
    answer : tuple
        ``(answer, tolerance, choices)`` of the exercise.

    Returns
    -------
    tuple of Mistake
        In the spec's order; the reasoning is still the template (a variant fills it).

    Raises
    ------
    SpecError
        Naming the mistake and the field at fault.
    """
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise place.error("must be a list of {answer, label, reasoning}", "mistakes")
    found: list[Mistake] = []
    for index, item in enumerate(raw):
        where = f"mistakes[{index}]"
        if not isinstance(item, dict) or not {"answer", "reasoning"} <= set(item) <= _MISTAKE_FIELDS:
            raise place.error(
                "needs exactly 'answer' and 'reasoning', and may have a 'label' and a 'rule' or 'as_if'", where
            )
        rule, as_if = _rule(place, where, item)
        wrong = kind.mistake(item["answer"], bool(rule or as_if), answer, place, where)
        if any(m.answer == wrong for m in found):
            raise place.error("names the same wrong answer as an earlier mistake", where)
        label = _label(place, f"{where}.label", item["label"]) if "label" in item else ""
        if label and any(m.label == label for m in found):
            raise place.error("has the same label as an earlier mistake", f"{where}.label")
        reasoning = text(place.path, place.exercise, f"{where}.reasoning", item["reasoning"])
        found.append(
            Mistake(answer=wrong, reasoning=reasoning, label=label, rule=rule, as_if=as_if, template=reasoning)
        )
    return tuple(found)


def _label(place: Place, name: str, raw: object) -> str:
    """A mistake's label: one line of text of at most LABEL_MAX characters."""
    label = text(place.path, place.exercise, name, raw)
    if "\n" in label or len(label) > LABEL_MAX:
        raise place.error(
            f"must be one short phrase on one line, at most {LABEL_MAX} characters (not {len(label)})", name
        )
    return label


def _rule(place: Place, where: str, item: dict) -> tuple[str, tuple[tuple[str, str], ...]]:
    """A mistake's ``rule`` (an expression) or ``as_if`` ({control: expression}), as written."""
    if "rule" in item and "as_if" in item:
        raise place.error("give 'rule' or 'as_if', not both", where)
    if "rule" in item:
        raw = item["rule"]
        if isinstance(raw, bool) or not isinstance(raw, str | int | float):
            raise place.error("must be an expression, e.g. arrival_rate - service_rate", f"{where}.rule")
        return str(raw), ()
    if "as_if" in item:
        raw = item["as_if"]
        if not isinstance(raw, dict) or not raw or not all(isinstance(v, str | int | float) for v in raw.values()):
            raise place.error("must map controls to values, e.g. {arrival_rate: 0}", f"{where}.as_if")
        return "", tuple((str(control), str(value)) for control, value in raw.items())
    return "", ()
