"""The session cap's setting (app.site.capacity): ``--max-sessions`` or ``MAX_SESSIONS``, sized by default.

The cap itself is checked against a real server in Chromium (tests/browser/test_session_cap_browser.py).
"""

from __future__ import annotations

import pytest

from app.site.capacity import DEFAULT_MAX_SESSIONS, MAX_SESSIONS_ENV
from app.site.server import parse_args


def test_max_sessions_is_an_option_and_a_setting(monkeypatch, capsys):
    monkeypatch.delenv(MAX_SESSIONS_ENV, raising=False)
    assert parse_args([]).max_sessions == DEFAULT_MAX_SESSIONS == 500
    assert parse_args(["--max-sessions", "40"]).max_sessions == 40
    assert parse_args(["--max-sessions", "0"]).max_sessions == 0  # no cap
    monkeypatch.setenv(MAX_SESSIONS_ENV, "120")
    assert parse_args([]).max_sessions == 120
    with pytest.raises(SystemExit):
        parse_args(["--max-sessions", "-1"])
    assert "--max-sessions" in capsys.readouterr().err
