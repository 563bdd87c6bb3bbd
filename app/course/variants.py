"""New numbers for an exercise: its variants, each with its answer and mistakes recomputed by the lab's model.

A retry that asks the same question tests memory: the student has just been shown the answer. An
exercise may declare ``vary`` (values for the controls its ``set`` steps give); "Try it with new
numbers" then asks the same question with another combination. Nothing of a variant is typed by hand:

- its steps are the exercise's with the varied values, checked by the lab's model like any step;
- its answer is what the model shows after those steps (:func:`run_steps`);
- each named mistake has a ``rule``: an expression over the variant's settings, the lab's quantities
  and ``answer`` (``arrival_rate``, ``-answer``, ``drain_time - arrivals_stop``), or ``as_if``: the
  lab's own reading with some settings changed (``{arrival_rate: 0}``: the line as if nothing
  arrived);
- its tolerance is the exercise's, scaled with the answer (a 1% tolerance stays 1%);
- the prompt, the explanation and the mistakes' reasoning are templates: ``{arrival_rate}``,
  ``{answer}``, ``{drain_time - arrivals_stop}`` are filled in for each variant.

Every variant is built and checked when the lessons load (every one answerable, every mistake outside
the tolerance and apart from the others), so a spec that would ask something impossible stops the
server at start, like any malformed exercise.
"""

from __future__ import annotations

import ast
import math
import operator
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import lru_cache

from app.course.catalog import lab_kinds
from app.course.kinds import step_kind
from app.course.spec import Exercise, Mistake, Step
from labs.numbers import format_number
from labs.timed import TimedModel

_OPERATORS: dict[type, Callable[..., float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}
_FUNCTIONS: dict[str, Callable[..., float]] = {
    "min": min,
    "max": max,
    "abs": abs,
    "ceil": math.ceil,
    "floor": math.floor,
}

RETRY_LABEL = "Try it with new numbers"
"""The card's button, after a verdict, for an exercise that varies its numbers."""

_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


class RuleError(ValueError):
    """An expression that cannot be evaluated: an unknown name, a form other than arithmetic, a division by 0."""


def evaluate(expression: str, names: Mapping[str, float]) -> float:
    """Evaluate arithmetic over ``names``: numbers, + − × / **, parentheses, min, max, abs, ceil, floor.

    Parameters
    ----------
    expression : str
        For example ``"drain_time - arrivals_stop"``.
    names : mapping of str to float
        The values the expression may name.

    Returns
    -------
    float
        The value.

    Raises
    ------
    RuleError
        If the expression is not such arithmetic, names something unknown, or has no finite value.
    """
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        raise RuleError(f"{expression!r} is not an arithmetic expression") from None

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise RuleError(f"unknown name {node.id!r}; known: {', '.join(sorted(names))}")
            return float(names[node.id])
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.operand))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _FUNCTIONS
            and node.args
            and not node.keywords
        ):
            return float(_FUNCTIONS[node.func.id](*(value(arg) for arg in node.args)))
        raise RuleError(f"{expression!r}: only numbers, names, + - * / **, min, max, abs, ceil and floor are allowed")

    try:
        result = value(tree.body)
    except (ZeroDivisionError, OverflowError):
        raise RuleError(f"{expression!r} has no value here (a division by zero or an overflow)") from None
    if not math.isfinite(result):
        raise RuleError(f"{expression!r} has no finite value here")
    return result


def run_steps(exercise: Exercise, as_if: Mapping[str, float] | None = None) -> TimedModel:
    """Do the exercise's steps on a fresh model of its lab, as a student would, then apply ``as_if``.

    Parameters
    ----------
    exercise : Exercise
        The exercise (or one of its variants).
    as_if : mapping of str to float, optional
        Settings changed after the steps: the lab's reading under another assumption.

    Returns
    -------
    TimedModel
        The model as the last step leaves it.
    """
    model = lab_kinds()[exercise.lab].model()
    for step in exercise.steps:
        step_kind(step).play(step, model)
    for control, value in (as_if or {}).items():
        model.apply(control, value)
    return model


def names_of(exercise: Exercise, model: TimedModel, answer: float | None = None) -> dict[str, float]:
    """What a rule or a template may name: the model's settings and numeric quantities, and ``answer``.

    Parameters
    ----------
    exercise : Exercise
        The exercise whose lab the model is.
    model : TimedModel
        The model after the exercise's steps.
    answer : float, optional
        The exercise's answer (``answer``), once known.

    Returns
    -------
    dict of str to float
        Each numeric control's value, each numeric quantity the model can read now, and ``answer``.
    """
    kind = lab_kinds()[exercise.lab]
    names: dict[str, float] = {}
    for control in kind.controls:
        value = getattr(model, control)
        if isinstance(value, int | float) and not isinstance(value, bool):
            names[control] = float(value)
    for quantity in kind.quantities:
        if quantity in kind.choices:
            continue
        try:
            reading = model.reading(quantity, exercise.at if model.readable_at(quantity) else None)
        except (ValueError, ArithmeticError, KeyError, TypeError):
            continue  # a quantity this state has none of (a hung step's step time, a queue that never drains)
        if isinstance(reading, int | float) and math.isfinite(reading):
            names[quantity] = float(reading)
    if answer is not None:
        names["answer"] = float(answer)
    return names


def fill(template: str, names: Mapping[str, float]) -> str:
    """Fill each ``{expression}`` of ``template`` with its value, written as the lab writes numbers.

    A brace pair whose content is not an expression over ``names`` is left as it is.
    """

    def filled(match: re.Match[str]) -> str:
        try:
            return format_number(round(evaluate(match.group(1), names), 2))
        except RuleError:
            return match.group(0)

    return _PLACEHOLDER.sub(filled, template)


def has_placeholders(text: str, names: Mapping[str, float]) -> bool:
    """Whether ``text`` names anything of ``names`` in braces (so it is a template)."""
    return fill(text, names) != text


def mistake_value(mistake: Mistake, exercise: Exercise, names: Mapping[str, float]) -> float:
    """The number a mistake's reasoning gives in this exercise (a variant): its rule, or the lab as if.

    Parameters
    ----------
    mistake : Mistake
        A mistake with ``rule`` or ``as_if``.
    exercise : Exercise
        The exercise or variant it belongs to (its steps and quantity).
    names : mapping of str to float
        :func:`names_of` for it, with ``answer``.

    Returns
    -------
    float
        The wrong answer that reasoning leads to.
    """
    if mistake.as_if:
        changed = {control: evaluate(expression, names) for control, expression in mistake.as_if}
        model = run_steps(exercise, as_if=changed)
        return float(model.reading(exercise.quantity, exercise.at))
    return evaluate(mistake.rule, names)


def variant(exercise: Exercise, values: Mapping[str, float]) -> Exercise:
    """The exercise with ``values`` in its ``set`` steps, everything else recomputed by the lab's model.

    Parameters
    ----------
    exercise : Exercise
        An exercise with ``vary`` (its templates and rules).
    values : mapping of str to float
        A value for each varied control.

    Returns
    -------
    Exercise
        Steps, prompt, answer, tolerance, mistakes and explanation for these numbers (same id).
    """
    steps = tuple(
        replace(step, value=values[step.control]) if step.control in values and _first_set(exercise, step) else step
        for step in exercise.steps
    )
    shaped = replace(exercise, steps=steps)
    model = run_steps(shaped)
    answer = float(model.reading(exercise.quantity, exercise.at))
    names = names_of(shaped, model, answer)
    scale = abs(answer / exercise.answer) if exercise.answer else 1.0
    mistakes = []
    for mistake in exercise.mistakes:
        wrong = mistake_value(mistake, shaped, names)
        mistakes.append(replace(mistake, answer=wrong, reasoning=fill(mistake.template, {**names, "mistake": wrong})))
    return replace(
        shaped,
        title=fill(exercise.title_template or exercise.title, names),
        prompt=fill(exercise.prompt_template, names),
        explanation=fill(exercise.explanation_template, names),
        answer=answer,
        tolerance=max(exercise.tolerance, exercise.tolerance * scale),  # never tighter than the lesson's own
        mistakes=tuple(mistakes),
        variant=tuple(sorted(values.items())),
    )


def _first_set(exercise: Exercise, step: Step) -> bool:
    """Whether ``step`` is the first to set its control (a later one is the experiment's edit)."""
    if step_kind(step).wanted(step) is None:
        return False
    return next(s for s in exercise.steps if step_kind(s).wanted(s) and s.control == step.control) is step


def combinations(exercise: Exercise) -> list[dict[str, float]]:
    """Every combination of numbers the exercise may ask with, the lesson's own first."""
    controls = sorted({control for combo in exercise.vary for control, _ in combo})
    own = {step.control: step.value for step in exercise.steps if _first_set(exercise, step)}
    first = {control: own[control] for control in controls}
    others = [dict(combo) for combo in exercise.vary]
    return [first, *(combo for combo in others if combo != first)]


def next_variant(exercise: Exercise, seed: int, attempt: int) -> dict[str, float]:
    """The combination a student's ``attempt``-th retry asks (1 for the first), never the exercise's own.

    Parameters
    ----------
    exercise : Exercise
        An exercise with ``vary``.
    seed : int
        The browser's seed: each student meets the variants in an order of their own.
    attempt : int
        How many times this student has asked for new numbers on this exercise, counting this one.

    Returns
    -------
    dict of str to float
        A value for each varied control.
    """
    others = combinations(exercise)[1:]
    order = random.Random(f"{seed}:{exercise.id}").sample(range(len(others)), len(others))
    return others[order[(attempt - 1) % len(others)]]


@lru_cache(maxsize=1024)
def _variant_once(exercise: Exercise, values: tuple[tuple[str, float], ...]) -> Exercise:
    return variant(exercise, dict(values))


def asked_with_new_numbers(exercise: Exercise, seed: int, attempt: int) -> Exercise:
    """The variant a student's ``attempt``-th retry asks, built once per process for each combination.

    Parameters
    ----------
    exercise : Exercise
        The exercise as the lesson writes it (with ``vary``).
    seed : int
        The browser's seed.
    attempt : int
        1 for the first retry, 2 for the next...

    Returns
    -------
    Exercise
        The variant (immutable, shared by every student who meets it).
    """
    return _variant_once(exercise, tuple(sorted(next_variant(exercise, seed, attempt).items())))


def variant_name(exercise: Exercise) -> str | None:
    """How a variant is named where a prediction is stored (``"arrival_rate=5;service_rate=2"``); None for none.

    Parameters
    ----------
    exercise : Exercise
        The exercise as asked (a variant from :func:`variant`, or the exercise as written).

    Returns
    -------
    str or None
        Its varied controls and values, sorted; None for the exercise as the lesson writes it.
    """
    if not exercise.variant:
        return None
    return ";".join(f"{control}={format_number(value)}" for control, value in exercise.variant)


def variant_named(exercise: Exercise, name: str) -> Exercise | None:
    """The variant of ``exercise`` that :func:`variant_name` called ``name``, if it is one of its combinations.

    Parameters
    ----------
    exercise : Exercise
        The exercise as written.
    name : str
        A stored name (from the class database: anything; only a combination the exercise declares is built).

    Returns
    -------
    Exercise or None
        The variant, built once per process; None for a name that is none of the exercise's combinations.
    """
    for values in combinations(exercise)[1:]:
        asked = tuple(sorted(values.items()))
        if ";".join(f"{control}={format_number(value)}" for control, value in asked) == name:
            return _variant_once(exercise, asked)
    return None
