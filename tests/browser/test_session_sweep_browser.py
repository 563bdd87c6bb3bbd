"""Students leave while one stays, in Chromium: the server sweeps their sessions, and the one who stays keeps working.

A sweep empties the containers of what it finds unreachable (``app.upstream.session_sweep``). Were it ever
to take an object that an open session still uses, that session would break: a readout that stops
answering, a traceback in the server's log. This test runs the real server with short session
lifetimes, has three students open the lesson and leave, waits until ``/healthz`` says their
sessions were swept, and then has the student who stayed type, step and read the readout.
"""

from __future__ import annotations

import json
import re
import sys
import time
import urllib.request
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page

from devtools.ports import free_port
from tests.conftest import LiveServer, serve
from tests.student import open_lab, reading, type_value, wait_for_reading, wait_until
from tests.waiting import poll

LESSON = "/lesson?id=overlap"
LEAVING = 3


@pytest.fixture
def quick_discards(tmp_path) -> Iterator[LiveServer]:
    """``python -m app`` discarding a closed tab's session after about two seconds."""
    port = free_port()
    command = [sys.executable, "-m", "app", "--port", str(port)]
    command += ["--unused-session-lifetime", "1", "--check-unused-sessions", "1"]
    server = serve(command, port, tmp_path / "server.log")
    yield server
    server.process.terminate()
    server.process.wait(timeout=10)


def collector_counts(server: LiveServer) -> dict:
    with urllib.request.urlopen(f"{server.url}/healthz", timeout=30) as reply:
        return json.load(reply)["gc"]


@pytest.mark.browser
def test_the_student_who_stays_keeps_working_after_the_others_sessions_are_swept(browser, quick_discards):
    staying_context = browser.new_context(viewport={"width": 1280, "height": 900})
    staying: Page = staying_context.new_page()
    staying.base_url = quick_discards.url  # type: ignore[attr-defined]
    errors: list[str] = []
    staying.on("pageerror", lambda error: errors.append(str(error)))
    lab = open_lab(staying, LESSON, "Queue lab")
    type_value(lab, re.compile("^Initial backlog"), "5")
    wait_for_reading(lab, "backlog", 5.0)

    for _ in range(LEAVING):
        context = browser.new_context(viewport={"width": 390, "height": 844})
        leaving = context.new_page()
        leaving.base_url = quick_discards.url  # type: ignore[attr-defined]
        open_lab(leaving, LESSON, "Queue lab")
        context.close()  # the tab closes: its session is discarded a moment later, then swept

    read_at = [0.0]

    def all_swept() -> bool:
        # /healthz read at most twice a second, as a probe would. Read every 25 ms (two requests
        # each time) on a loaded machine, no sweep came in 60 s; read every 3 s, all came within 9 s.
        if time.monotonic() - read_at[0] < 0.5:
            return False
        read_at[0] = time.monotonic()
        counts = collector_counts(quick_discards)
        # a session with no roots to sweep from (its objects frozen by another's freeze first, on a
        # loaded machine) is counted as unswept and left for the thaw
        return counts["swept"] + counts["sweeps_given_up"] + counts["unswept"] >= LEAVING

    poll(all_swept, page=staying, what=f"{LEAVING} discarded sessions swept")
    counts = collector_counts(quick_discards)
    assert counts["swept"] >= 1 and counts["objects_swept"] > 1000, counts  # the sweep did free cycles

    type_value(lab, re.compile("^Initial backlog"), "7")
    wait_for_reading(lab, "backlog", 7.0)
    before = reading(lab, "t")
    lab.get_by_role("button", name="Step").click()
    wait_until(lambda: reading(lab, "t") > before)
    assert not errors, errors
    log = quick_discards.log.read_text(errors="replace")
    assert "Traceback" not in log and "Exception ignored" not in log, log
    staying_context.close()
