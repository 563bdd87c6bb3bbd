"""content/README.md's ten variants worked by hand agree with what the page asks and the lab answers."""

from __future__ import annotations

import re

import pytest

from app.course.content import CONTENT_DIR, load_lessons
from app.course.variants import combinations, variant

EXERCISES = {e.id: e for lesson in load_lessons() for e in lesson.exercises}
ROW = re.compile(r"^\| `([a-z0-9-]+)` \(L\d\) \| ([^|]+) \| ([\d.]+) (ms|s) \| .+ \|$", re.MULTILINE)


def rows() -> list[tuple[str, dict[str, float], float]]:
    """Each hand-worked row: the exercise, the variant's values (before any parenthesis), the answer."""
    section = (CONTENT_DIR / "README.md").read_text(encoding="utf-8").split("## Ten variants worked by hand")[1]
    found = []
    for exercise_id, values, answer, _unit in ROW.findall(section.split("\n## ")[0]):
        pairs = re.findall(r"([a-z_]+) = ([\d.]+)", values.split("(")[0])
        found.append((exercise_id, {name: float(value) for name, value in pairs}, float(answer)))
    return found


def test_there_are_ten_rows_over_the_three_lessons():
    assert len(rows()) == 10
    lessons = {lesson.slug for lesson in load_lessons() for e in lesson.exercises if e.id in {r[0] for r in rows()}}
    assert len(lessons) == 3


@pytest.mark.parametrize(("exercise_id", "values", "answer"), rows(), ids=[r[0] for r in rows()])
def test_each_worked_variant_is_one_the_page_asks_and_the_lab_agrees(exercise_id, values, answer):
    exercise = EXERCISES[exercise_id]
    assert values in combinations(exercise)[1:], "a combination a retry asks, not the written exercise"
    asked = variant(exercise, values)
    assert asked.answer == pytest.approx(answer, abs=0.006), asked.answer
