"""The session cap (app.site.capacity) in a real Chromium: past ``--max-sessions`` a clear "full" page, not a slow one.

A server capped at two live sessions: two students open a lab; the third gets HTTP 503 with
``Retry-After`` and the course's "full" page (no session built), a websocket opened without a page
is refused the same way, the instructor still gets in, and the first two students' labs still work.
Once one of them leaves, a new student gets the lab again.
"""

from __future__ import annotations

import http.client
import json
import sys
import urllib.request
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from app.site.capacity import FULL_MESSAGE, RETRY_AFTER_S
from devtools.ports import free_port
from tests.conftest import LiveServer, serve, watched_page
from tests.student import open_lab, reading, wait_until
from tests.waiting import poll

pytestmark = pytest.mark.browser

CAP = 2
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
REFUSED_LOG = "Failed to load resource: the server responded with a status of 503 (Service Unavailable)"


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """``python -m app --max-sessions 2``."""
    port = free_port()
    log = tmp_path_factory.mktemp("capped") / "server.log"
    server = serve([sys.executable, "-m", "app", "--port", str(port), "--max-sessions", str(CAP)], port, log)
    yield server
    server.process.terminate()
    server.process.wait(timeout=10)


def live_sessions(server: LiveServer) -> int:
    """The live sessions ``/healthz`` counts (asked from this machine, so it shows them)."""
    with OPENER.open(server.url + "/healthz", timeout=30) as reply:
        return json.loads(reply.read())["sessions"]


def student(browser, server: LiveServer, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A watched page (tests/conftest.py) on ``server``."""
    yield from watched_page(browser, server, request, viewport={"width": 1280, "height": 900})


def test_the_student_past_the_cap_gets_the_full_page_and_the_others_keep_working(browser, capped, request):
    first_pages = [student(browser, capped, request) for _ in range(CAP)]
    first = [next(pages) for pages in first_pages]
    labs = [open_lab(page, "/queue", "Queue lab") for page in first]
    poll(lambda: live_sessions(capped) == CAP, what=f"{CAP} live sessions")

    # the late student's page is watched here: Chromium logs the 503 as a console error, and only that is let through
    late = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    late.base_url = capped.url  # type: ignore[attr-defined]
    refused: list[str] = []
    problems: list[str] = []
    late.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    late.on(
        "console",
        lambda m: (refused if REFUSED_LOG in m.text else problems).append(m.text) if m.type == "error" else None,
    )
    response = late.goto(capped.url + "/queue")
    assert response is not None and response.status == 503
    assert response.headers["retry-after"] == str(RETRY_AFTER_S)
    expect(late.get_by_role("alert")).to_contain_text(FULL_MESSAGE)
    expect(late.get_by_role("heading", level=1)).to_have_text("The course is full")

    # a client that skips the page and opens the websocket itself builds nothing either
    host, port = capped.url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.request(
        "GET",
        "/queue/ws",
        headers={
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
            "Origin": capped.url,
        },
    )
    assert connection.getresponse().status == 503
    connection.close()
    assert live_sessions(capped) == CAP

    # the instructor is never refused; the students already in keep working
    with OPENER.open(capped.url + "/instructor", timeout=30) as reply:
        assert reply.status == 200
    for lab in labs:
        before = reading(lab, "t")
        lab.get_by_role("button", name="Step").click()
        wait_until(lambda lab=lab, before=before: reading(lab, "t") > before)

    # one leaves: the next student gets the lab
    first[0].context.close()
    poll(lambda: live_sessions(capped) < CAP, what="the leaving student's session closed")
    lab = open_lab(late, "/queue", "Queue lab")
    before = reading(lab, "t")
    lab.get_by_role("button", name="Step").click()
    wait_until(lambda: reading(lab, "t") > before)
    assert refused, "Chromium logs the 503 it was answered with"
    assert not problems, problems
    late.context.close()
    for pages in first_pages:
        next(pages, None)  # each page's checks: no console error, no page error, no server traceback
