"""The instructor's sign-in: failed tries limited per address and overall, HTTP and page alike, logged; weak tokens.

The HTTP checks run the real app (``python -m app`` with a class database) or the real handler in a
Tornado server of its own; the page's run the real :class:`InstructorView` headless, one per session.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from app import classroom
from app.classroom import signin
from app.classroom.http import ClassDataHandler
from app.classroom.instructor_view import InstructorView
from app.classroom.limits import SIGN_IN_FAILURES_PER_ADDRESS, SIGN_IN_WINDOW_S, SignInLimiter
from app.classroom.store import ClassStore
from devtools.ports import free_port
from tests.conftest import ROOT, LiveServer, serve_with_class
from tests.tornado_thread import serving

TOKEN = "a-strong-test-token-for-sign-in"
WAIT = re.compile(r"Too many tries; wait (\d+) s\.")


def fetch(url: str, token: str | None) -> tuple[int, dict[str, str], str]:
    """GET ``url`` with ``Authorization: Bearer <token>``: the status, the headers and the body."""
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=60) as reply:
            return reply.status, dict(reply.headers), reply.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, dict(refused.headers), refused.read().decode()


@pytest.fixture(scope="module")
def class_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from serve_with_class(tmp_path_factory, "signin", TOKEN)


def test_two_hundred_wrong_bearer_guesses_are_throttled_and_logged_with_the_address(class_server):
    url = class_server.url + "/instructor/export.csv"
    answers = [fetch(url, f"guess-{n:04d}") for n in range(200)]
    codes = [code for code, _headers, _body in answers]
    assert codes[:SIGN_IN_FAILURES_PER_ADDRESS] == [403] * SIGN_IN_FAILURES_PER_ADDRESS
    assert set(codes[SIGN_IN_FAILURES_PER_ADDRESS:]) == {429}
    _code, headers, body = answers[-1]
    assert 1 <= int(headers["Retry-After"]) <= SIGN_IN_WINDOW_S
    assert WAIT.fullmatch(body.strip()) and int(WAIT.fullmatch(body.strip()).group(1)) == int(headers["Retry-After"])
    code, _headers, body = fetch(url, TOKEN)  # over the limit the right token is not even checked
    assert code == 429 and TOKEN not in body
    log = class_server.log.read_text()
    failures = re.findall(r"instructor sign-in failed from (\S+) on /instructor/export\.csv", log)
    assert len(failures) == SIGN_IN_FAILURES_PER_ADDRESS and set(failures) <= {"127.0.0.1", "::1"}
    assert "too many failed tries; refusing tries from" in log
    assert "guess-" not in log and TOKEN not in log  # never what was typed


def test_a_weak_instructor_token_is_refused_at_start_in_one_line(tmp_path):
    command = [sys.executable, "-m", "app", "--port", str(free_port()), "--class-db", f"sqlite:///{tmp_path / 'c.db'}"]
    env = {**os.environ, "INSTRUCTOR_TOKEN": "s3cret-token"}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "Cannot start: INSTRUCTOR_TOKEN is too weak (it has 12 characters; use at least 16); "
        "unset it to have a strong one made up."
    )
    assert "s3cret-token" not in done.stdout + done.stderr
    assert not (tmp_path / "c.db").exists()  # refused before anything was opened


@pytest.mark.parametrize(
    ("token", "problem"),
    [
        ("s3cret-token", "it has 12 characters; use at least 16"),
        ("a" * 40, "it has only 1 different characters; use at least 8"),
        ("abcabcabcabcabcabc", "it has only 3 different characters; use at least 8"),
        (TOKEN, None),
        ("", None),  # none set: the class's data stays closed, and python -m app makes one up
    ],
)
def test_what_makes_a_token_weak(token, problem):
    assert classroom.token_problem(token) == problem


@pytest.fixture
def fresh_limit(monkeypatch) -> SignInLimiter:
    limit = SignInLimiter()
    monkeypatch.setattr(signin, "LIMIT", limit)
    monkeypatch.setenv(classroom.TOKEN_ENV, TOKEN)
    return limit


@pytest.fixture
def store(tmp_path):
    opened = ClassStore(f"sqlite:///{tmp_path / 'class.db'}")
    yield opened
    opened.dispose()


def test_the_page_limit_holds_across_sessions(store, fresh_limit, caplog):
    """Each tab is a session of its own; the tries of all of them count together."""
    caplog.set_level(logging.WARNING, logger="app.classroom.signin")
    for n in range(SIGN_IN_FAILURES_PER_ADDRESS):
        tab = InstructorView(store)
        tab._try(f"guess-{n}")
        assert "That is not the instructor token" in tab.alert.object
    late = InstructorView(store)
    late._try(TOKEN)  # the right token, past the limit: refused unchecked
    assert not late.signed_in
    wait = WAIT.search(late.alert.object)
    assert wait and 1 <= int(wait.group(1)) <= SIGN_IN_WINDOW_S and 'role="alert"' in late.alert.object
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert sum("instructor sign-in failed from unknown on /instructor" in line for line in lines) == (
        SIGN_IN_FAILURES_PER_ADDRESS
    )
    assert not any("guess-" in line or TOKEN in line for line in lines)


def test_the_page_and_http_share_one_limit(store, fresh_limit, monkeypatch):
    """Tries over HTTP and on the page count in the same process-wide limit (here the overall one)."""
    monkeypatch.setattr(signin, "LIMIT", SignInLimiter(per_address=10, overall=15))
    monkeypatch.setattr(classroom, "_store", store)
    monkeypatch.setattr(classroom, "_configured", True)
    with serving([(r"/instructor/(export\.csv|rounds\.json)", ClassDataHandler)]) as base:
        for n in range(10):
            assert fetch(base + "/instructor/export.csv", f"guess-{n}")[0] == 403
        assert fetch(base + "/instructor/export.csv", TOKEN)[0] == 429  # this address is over its limit
        for n in range(5):  # the page, from another client: the overall limit is reached
            InstructorView(store)._try(f"page-guess-{n}")
        tab = InstructorView(store)
        tab._try(TOKEN)
        assert not tab.signed_in and WAIT.search(tab.alert.object)


def test_the_right_token_signs_in_and_reads_the_class_within_the_limit(store, fresh_limit, monkeypatch):
    monkeypatch.setattr(classroom, "_store", store)
    monkeypatch.setattr(classroom, "_configured", True)
    with serving([(r"/instructor/(export\.csv|rounds\.json)", ClassDataHandler)]) as base:
        code, headers, body = fetch(base + "/instructor/export.csv", TOKEN)
        assert code == 200 and body.startswith("exercise,round,student") and headers["Cache-Control"] == "no-store"
        assert fetch(base + "/instructor/rounds.json?exercise=overlap/growth", TOKEN)[0] == 200
        assert fetch(base + "/instructor/rounds.json?exercise=nope", TOKEN)[0] == 404
        assert fetch(base + "/instructor/export.csv", None)[0] == 403


def test_a_weak_token_under_panel_serve_never_matches_and_says_why(store, fresh_limit, monkeypatch):
    """``panel serve`` runs no start of ours: the weak token is refused where it is typed instead."""
    monkeypatch.setenv(classroom.TOKEN_ENV, "s3cret-token")
    monkeypatch.setattr(classroom, "_store", store)
    monkeypatch.setattr(classroom, "_configured", True)
    tab = InstructorView(store)
    tab._try("s3cret-token")
    assert not tab.signed_in and signin.WEAK_TOKEN_TEXT in tab.alert.object.replace("&#x27;", "'")
    with serving([(r"/instructor/(export\.csv|rounds\.json)", ClassDataHandler)]) as base:
        code, _headers, body = fetch(base + "/instructor/export.csv", "s3cret-token")
    assert code == 403 and body.strip() == signin.WEAK_TOKEN_TEXT
