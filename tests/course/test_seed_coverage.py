"""content/README.md's coverage table is what the lessons' ``ideas`` say, and every idea number is known."""

from __future__ import annotations

from app.course.content import load_lessons
from tools.seed_coverage import README, coverage_table, ideas, with_table


def test_the_ideas_are_numbered_one_to_forty_six():
    assert list(ideas()) == list(range(1, 47))


def test_the_readmes_coverage_table_is_generated_from_the_lessons():
    readme = README.read_text(encoding="utf-8")
    fresh = with_table(readme, coverage_table(load_lessons(), ideas()))
    assert readme == fresh, "stale: run python -m tools.seed_coverage --write"


def test_the_table_counts_what_the_exercises_name():
    table = coverage_table(load_lessons(), ideas())
    named = {n for lesson in load_lessons() for e in lesson.exercises for n in e.ideas}
    assert table.startswith(f"**{len(named)} of 46 ideas are predicted**")
    assert "| 46 | the ring model is not every implementation or topology |" in table
