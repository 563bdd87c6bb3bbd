"""The Share button's server side, headless: ``--public-url``, the shared paths, and where the button is.

What the browser makes of them (absolute addresses, the snippet, copying) is in
``tests/js/share.test.js`` and ``tests/browser/test_share_browser.py``.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Iterator

import pytest

from app.course.content import Exercise
from app.course.exercise import ExerciseRunner, ExerciseSession
from app.course.exercise_card import CARD_FIELDS
from app.course.lesson_text import LessonText
from app.course.library import lessons
from app.course.progress import ProgressStore
from app.site.pages.lab import build_lab_page
from app.site.server import parse_args
from app.web import share
from app.web.share import SHARE_JS, ShareButton, exercise_paths, lab_paths, parse_public_url
from labs.registry import registrations

LABS = registrations()


@pytest.fixture(autouse=True)
def settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts as ``panel serve`` does (no public URL set, not the course's own server) and leaves it so."""
    monkeypatch.delenv(share.PUBLIC_URL_ENV, raising=False)
    monkeypatch.setattr(share, "_settings", {"public_url": None, "own_server": False})
    yield


# -- --public-url ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("https://course.example.org", "https://course.example.org/"),
        ("https://course.example.org/overlap", "https://course.example.org/overlap/"),
        ("http://10.0.0.5:8080/a/b/", "http://10.0.0.5:8080/a/b/"),
        ("  https://course.example.org/  ", "https://course.example.org/"),
        ("", ""),
    ],
)
def test_a_public_url_is_kept_ending_in_a_slash(given, kept):
    assert parse_public_url(given) == kept
    assert parse_args(["--public-url", given]).public_url == kept


@pytest.mark.parametrize(
    "bad",
    [
        "course.example.org",
        "/overlap",
        "ftp://course.example.org/",
        "https://",
        "https://course.example.org/?a=1",
        "https://course.example.org/#top",
        "https://user:secret@course.example.org/",
        "https://course.example.org:99999/",
        "javascript:alert(1)",
    ],
)
def test_a_bad_public_url_stops_python_m_app_with_one_line(bad, capsys):
    with pytest.raises(ValueError):
        parse_public_url(bad)
    with pytest.raises(SystemExit) as stop:
        parse_args(["--public-url", bad])
    assert stop.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--public-url" in error and "absolute http:// or https:// URL" in error


def test_the_public_url_comes_from_the_environment_too(monkeypatch, capsys):
    assert parse_args([]).public_url == ""
    monkeypatch.setenv("PUBLIC_URL", "https://course.example.org/overlap")
    assert parse_args([]).public_url == "https://course.example.org/overlap/"
    assert share.public_url() == "https://course.example.org/overlap/"  # panel serve reads it at page build
    monkeypatch.setenv("PUBLIC_URL", "course.example.org")
    with pytest.raises(SystemExit) as stop:
        parse_args([])
    assert stop.value.code == 2


def test_panel_serve_ignores_a_bad_public_url_in_the_environment_and_logs_why(monkeypatch, caplog):
    monkeypatch.setenv("PUBLIC_URL", "course.example.org")
    with caplog.at_level(logging.WARNING, logger="app.web.share"):
        assert share.public_url() == ""
    assert "PUBLIC_URL ignored" in caplog.text


def test_python_m_app_s_setting_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("PUBLIC_URL", "https://env.example.org/")
    share.set_public_url("https://flag.example.org/x")
    assert share.public_url() == "https://flag.example.org/x/"
    share.set_public_url("")
    assert share.public_url() == ""


# -- what is shared ---------------------------------------------------------------------------------


def test_paths_under_python_m_app_include_the_embed_pages():
    share.set_own_server(True)
    assert lab_paths("queue") == ("queue", "embed/queue")
    assert exercise_paths("overlap", "growth") == (
        "lesson?id=overlap&exercise=growth",
        "embed/lesson?id=overlap&exercise=growth",
    )
    assert exercise_paths("a b", "c&d=e") == (
        "lesson?id=a+b&exercise=c%26d%3De",
        "embed/lesson?id=a+b&exercise=c%26d%3De",
    )


def test_paths_under_panel_serve_have_no_embed_page_and_no_short_address():
    assert lab_paths("queue") == ("lab?id=queue", "")
    assert exercise_paths("overlap", "growth") == ("lesson?id=overlap&exercise=growth", "")


@pytest.mark.parametrize("own", [True, False])
@pytest.mark.parametrize("lab", LABS, ids=[lab.slug for lab in LABS])
def test_every_lab_page_has_one_share_button_under_its_heading(lab, own):
    share.set_own_server(own)
    share.set_public_url("https://course.example.org/")
    page = build_lab_page(lab)
    buttons = [item for item in page.main if isinstance(item, ShareButton)]
    assert len(buttons) == 1
    assert list(page.main).index(buttons[0]) == 0  # the heading itself, before the lab
    assert f">{lab.title}</h1>" in buttons[0].heading_html and html.escape(lab.intro) in buttons[0].heading_html
    button = buttons[0]
    assert (button.link, button.embed) == lab_paths(lab.slug)
    assert button.frame_title == lab.title
    assert button.base == "https://course.example.org/"


@pytest.mark.parametrize("lab", LABS, ids=[lab.slug for lab in LABS])
def test_an_embed_page_has_no_share_button(lab):
    share.set_own_server(True)
    page = build_lab_page(lab, embed=True)
    assert not [item for item in page.main if isinstance(item, ShareButton)]


def test_the_lab_title_is_what_the_embed_code_calls_the_frame():
    assert {lab.slug: lab.title for lab in LABS}["queue"] == "Queue lab"  # the example


def exercise_runner(lesson_slug: str, exercise: Exercise) -> ExerciseRunner:
    return ExerciseRunner(
        session=ExerciseSession(), progress=ProgressStore(), exercise=exercise, lesson_slug=lesson_slug
    )


@pytest.mark.parametrize("own", [True, False])
def test_every_exercise_card_shares_its_lesson_and_exercise(own):
    share.set_own_server(own)
    for lesson in lessons():
        for exercise in lesson.exercises:
            card = exercise_runner(lesson.slug, exercise).card
            assert card.share == list(exercise_paths(lesson.slug, exercise.id))
            assert card.label == f"Exercise: {exercise.title}"  # the embed code's frame title (share.js)
            assert card.shown()[CARD_FIELDS.index("share")] == card.share


def test_a_card_without_a_lesson_has_no_share_button():
    exercise = lessons()[0].exercises[0]
    assert exercise_runner("", exercise).card.share == []


def test_the_lesson_text_draws_the_share_widget_with_the_public_url():
    share.set_public_url("https://course.example.org/overlap")
    text = LessonText(["Some *text*."])
    assert text.share_base == "https://course.example.org/overlap/"
    assert text._esm.startswith(SHARE_JS)
    assert LessonText(["x"], share_base="").share_base == ""


def test_the_shared_browser_code_exports_nothing_so_it_can_lead_any_module():
    assert not re.search(r"^\s*export\b", SHARE_JS, flags=re.MULTILINE)
    assert "function shareWidget(" in SHARE_JS
    assert ShareButton._esm.count("export function render(") == 1
    assert LessonText._esm.count("export function render(") == 1
