"""The one number parser and the figure formatters (labs/numbers.py), and their browser mirrors.

Properties (hypothesis) over every float, NaN, infinities and subnormals included: no figure shows
``nan``, ``inf`` or a negative zero, none runs past 20 characters, ordinary values keep their
f-string format, and the parser reads back what the fields show. The browser's copies of the rules
(``labs/ui/assets/formats.js``) are checked under Node against the same rules in
``tests/labs/test_js_twins.py``.
"""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.course.content import load_lessons
from app.course.exercise import ExerciseRunner, ExerciseSession
from app.course.progress import ProgressStore
from labs.numbers import (
    BIG,
    NotANumber,
    fixed,
    fixed_apart,
    format_number,
    parse_number,
    scientific,
    significant,
)
from labs.queue.model import QueueModel
from labs.queue.view import QueueLab

any_float = st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True)
finite = st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True)
ordinary = st.floats(min_value=-1e11, max_value=1e11, allow_nan=False, allow_subnormal=False)

NEGATIVE_ZERO = re.compile(r"(?<![\d.])-0(?:\.0+)?(?![\d.])")
FORBIDDEN = re.compile(r"nan|inf", re.IGNORECASE)
LONGEST = 20


def humane(text: str) -> bool:
    """What every shown figure must be: no NaN/inf words, no negative zero, at most 20 characters."""
    return not FORBIDDEN.search(text) and not NEGATIVE_ZERO.search(text) and len(text) <= LONGEST


# ----- figures -----------------------------------------------------------------------------------


@given(any_float, st.integers(0, 4), st.booleans())
def test_fixed_is_always_humane(value, decimals, sign):
    assert humane(fixed(value, decimals, sign)), fixed(value, decimals, sign)


@given(ordinary, st.integers(0, 4))
def test_fixed_keeps_the_f_string_for_ordinary_values(value, decimals):
    text = f"{value:.{decimals}f}"
    if re.fullmatch(r"-0\.?0*", text):
        assert fixed(value, decimals) == text[1:]  # the one change: no negative zero
    else:
        assert fixed(value, decimals) == text


@given(ordinary)
def test_signed_fixed_keeps_the_f_string_and_the_sign(value):
    text = fixed(value, 2, sign=True)
    usual = f"{value:+.2f}"
    if value == 0:
        assert text == "+0.00"
    elif re.search("[1-9]", usual):
        assert text == usual
    else:  # too small for two decimals: its sign and a few digits, never "+0.00" for a negative
        assert text[0] == ("-" if value < 0 else "+") and re.search("[1-9]", text), text


@given(finite)
def test_big_figures_switch_to_a_bounded_scientific_form(value):
    text = fixed(value)
    if abs(value) >= BIG:
        mantissa, exponent = re.fullmatch(r"(-?\d\.\d\d) × 10\^(-?\d+)", text).groups()
        assert float(mantissa) == pytest.approx(value / 10.0 ** int(exponent), rel=6e-3)
    else:
        assert abs(float(text) - value) <= 0.005 * (1 + 1e-9) + abs(value) * 1e-15


@given(any_float, st.integers(1, 6))
def test_significant_is_always_humane_and_close(value, digits):
    text = significant(value, digits)
    assert humane(text), text
    if math.isfinite(value) and value != 0 and "×" not in text:
        assert float(text) == pytest.approx(value, rel=0.51 * 10 ** (1 - digits))


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (800, "800"),
        (295.23, "295.2"),
        (0.0625, "0.0625"),
        (989000, "989000"),
        (1e-5, "0.00001"),
        (-0.0, "0"),
        (1e-7, "1.000 × 10^-7"),
        (1.2346e15, "1.235 × 10^15"),
        (math.nan, "undefined"),
        (math.inf, "unbounded"),
    ],
)
def test_significant_examples(value, text):
    assert significant(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (6.0, "6.00"),
        (-0.0, "0.00"),
        (-0.001, "0.00"),
        (9007199254740991.0, "9.01 × 10^15"),
        (1e302, "1.00 × 10^302"),
        (-2.5e13, "-2.50 × 10^13"),
        (math.inf, "unbounded"),
        (-math.inf, "unbounded (negative)"),
        (math.nan, "undefined"),
    ],
)
def test_fixed_examples(value, text):
    assert fixed(value) == text


def test_scientific_has_no_nan_or_inf():
    assert scientific(math.nan) == "undefined" and scientific(0.0) == "0"


@given(st.floats(min_value=0, max_value=1, exclude_max=True, allow_subnormal=False))
def test_a_utilisation_below_one_never_reads_as_one(rho):
    text = fixed_apart(rho, 1)
    assert float(text) < 1 and humane(text)
    if rho < 0.995:
        assert text == f"{rho:.2f}"


# ----- field values and the parser -----------------------------------------------------------


@given(finite)
def test_exact_field_values_read_back_as_the_same_number(value):
    text = format_number(value, exact=True)
    assert parse_number(text) == value
    assert not NEGATIVE_ZERO.search(text)


@given(st.floats(min_value=-1e15, max_value=1e15, allow_nan=False, allow_subnormal=False))
def test_field_values_keep_their_short_form(value):
    text = format_number(value)
    if value == int(value) and abs(value) < 1e15:
        assert text == str(int(value))
    else:
        assert text == f"{value:.6g}"
        assert parse_number(text) == pytest.approx(value, rel=1e-5)


@given(finite)
def test_what_python_writes_is_read(value):
    assert parse_number(repr(value)) == value
    assert parse_number(f" {value!r} ".replace("-", "\u2212")) == value


@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), st.sampled_from([1, 2, 4, 5]))
def test_a_decimal_comma_reads_as_a_point(value, decimals):
    with_point = f"{value:.{decimals}f}"
    assert parse_number(with_point.replace(".", ",")) == parse_number(with_point) == float(with_point)


@given(st.integers(1, 999), st.integers(0, 999), st.sampled_from(["", "-", "+"]))
def test_a_comma_that_could_group_thousands_is_refused(whole, part, sign):
    text = f"{sign}{whole},{part:03d}"
    with pytest.raises(NotANumber, match="could mean"):
        parse_number(text)


@given(st.integers(0, 999), st.integers(0, 999), st.integers(0, 99))
def test_mixed_separators_are_refused(a, b, c):
    for text in (f"{a},{b:03d}.{c}", f"{a}.{b:03d},{c}", f"{a},{b},{c}"):
        with pytest.raises(NotANumber, match="separators"):
            parse_number(text)


@pytest.mark.parametrize(
    ("typed", "value"),
    [("1,5", 1.5), ("0,125", 0.125), ("-0", 0.0), ("\u22122,5", -2.5), (" 7 ", 7.0), ("1e3", 1000.0), (".5", 0.5)],
)
def test_typed_forms(typed, value):
    read = parse_number(typed)
    assert read == value and math.copysign(1, read) == math.copysign(1, value or 1.0)


@pytest.mark.parametrize(
    ("typed", "finite_problem"),
    [
        ("abc", False),
        ("", False),
        ("1 000", False),
        ("1_000", False),
        ("0x10", False),
        ("1e", False),
        ("nan", True),
        ("-Infinity", True),
        ("1e999", True),
        ("9" * 400, True),
    ],
)
def test_refusals_say_why(typed, finite_problem):
    with pytest.raises(NotANumber) as refusal:
        parse_number(typed)
    assert refusal.value.finite is not finite_problem
    assert len(str(refusal.value)) < 200  # a huge paste is quoted shortened


@given(st.text(max_size=12))
def test_the_parser_returns_a_finite_number_and_never_negative_zero(text):
    try:
        value = parse_number(text)
    except NotANumber as refusal:
        assert str(refusal)
        return
    assert math.isfinite(value)
    assert value != 0 or math.copysign(1, value) == 1


# ----- one parser for every field -------------------------------------------------------------

LESSON = next(lesson for lesson in load_lessons() if lesson.slug == "buckets")


@pytest.mark.parametrize("typed", ["1,5", "2", "\u22120", "1,000", "1.000,5", "abc", "nan", "", "0,125"])
def test_the_lab_fields_and_the_prediction_read_numbers_alike(typed):
    try:
        expected: float | None = parse_number(typed)
    except NotANumber:
        expected = None
    model = QueueModel()
    try:
        in_lab: float | None = model.apply("initial_backlog", typed)
    except ValueError:
        in_lab = None
    runner = ExerciseRunner(
        lab=QueueLab(),
        session=ExerciseSession(),
        progress=ProgressStore(),
        exercise=LESSON.exercises[0],
        lesson_slug=LESSON.slug,
    )
    runner.card.receive({"action": "lock", "text": typed})
    assert in_lab == expected and runner.prediction == expected
    if expected is None:
        assert "Your prediction" in runner.notice and "as a number" in runner.notice
    else:  # shown back the way the lab fields show it
        assert runner.card.prediction == model.shown_value("initial_backlog") == format_number(expected)
