"""Two cases of the fail-safe table in Chromium: with a fix skipped for an upgrade, a lab's Play still plays."""

from __future__ import annotations

import sys

import pytest
from playwright.sync_api import expect

from devtools.ports import free_port
from tests.conftest import serve, watched_page
from tests.student import open_lab, readings, wait_until

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(
    "change",
    [
        ("rename", "bokeh.embed.wrappers", "_ONLOAD"),  # bundle_onload skipped: Bokeh's own script order
        ("move", "panel.custom", "ReactiveESM._render_esm"),  # the review's start-up crash (v6)
    ],
    ids=["_ONLOAD renamed", "_render_esm moved"],
)
def test_the_queue_labs_play_plays_on_a_changed_library(browser, tmp_path, request, change):
    port = free_port()
    command = [sys.executable, "-m", "tests.upstream.changed_library", *change, "--", "--port", str(port)]
    server = serve(command, port, tmp_path / "server.log")
    try:
        pages = watched_page(browser, server, request, viewport={"width": 1280, "height": 900})
        page = next(pages)
        lab = open_lab(page, "/queue", "Queue lab")
        lab.get_by_role("button", name="Play").click()
        expect(lab.get_by_role("button", name="Pause")).to_be_visible()
        wait_until(lambda: readings(lab).get("t", 0) > 0)
        next(pages, None)  # the page's checks: no page error, console error or server traceback
    finally:
        server.process.terminate()
        server.process.wait(timeout=30)
