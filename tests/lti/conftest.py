"""Fixtures: a running test platform (tests/lti/platform.py) and the tool registered with it."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from app.course.library import lessons
from app.lti.tool import Tool, configure, set_tool
from app.lti.verify import login_cookie
from tests.lti.platform import Platform, running_platform

SESSION_SECRET = b"a-session-secret-for-the-lti-tests-0123456789"


@pytest.fixture
def platform() -> Iterator[Platform]:
    with running_platform("http://tool.invalid") as platform:
        yield platform


@pytest.fixture
def tool(platform: Platform, tmp_path) -> Iterator[Tool]:
    made = configure(platform.registration(tmp_path), SESSION_SECRET)
    yield made
    set_tool(None)


def first_exercise() -> tuple[str, str]:
    """A lesson and one of its exercises."""
    lesson = next(item for item in lessons() if item.exercises)
    return lesson.slug, lesson.exercises[0].id


def exercise_target(tool_url: str) -> str:
    """A target link naming an exercise of the course."""
    lesson, exercise = first_exercise()
    return f"{tool_url}/lesson?id={lesson}&exercise={exercise}"


def a_login(tool: Tool) -> tuple[str, str, str]:
    """The state, nonce and login cookie of a login this browser started."""
    state, nonce = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    registration = tool.config.all()[0]
    return state, nonce, login_cookie(state, nonce, registration, tool.secret)
