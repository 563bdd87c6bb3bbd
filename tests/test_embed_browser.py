"""``/embed/<lab>`` framed by another site in Chromium, and ``/instructor`` refused to one.

The other site is a tiny page served from a second loopback address (127.0.0.2), so the frame is
cross-origin to it as a course site's would be.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

from devtools.ports import free_port
from tests.student import reading, wait_for_reading

pytestmark = pytest.mark.browser

OTHER_SITE = "127.0.0.2"


class OtherSite:
    """A site on 127.0.0.2 serving one page per path (set in ``pages``); anything else is 404."""

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        pages = self.pages

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                body = pages.get(self.path)
                if body is None:
                    self.send_response(204 if self.path == "/favicon.ico" else 404)
                    self.end_headers()
                    return
                data = body.encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer((OTHER_SITE, free_port(OTHER_SITE)), Handler)
        self.url = f"http://{OTHER_SITE}:{self.server.server_port}"

    def framing(self, path: str, src: str, title: str) -> str:
        """Serve at ``path`` a page with one ``<iframe>`` of ``src`` called ``title``; its URL."""
        self.pages[path] = (
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A course site</title></head>'
            f'<body><h1>A course site</h1><iframe src="{html.escape(src)}" title="{html.escape(title)}" '
            'width="1200" height="800"></iframe></body></html>'
        )
        return self.url + path


@pytest.fixture(scope="module")
def other_site() -> Iterator[OtherSite]:
    site = OtherSite()
    thread = threading.Thread(target=site.server.serve_forever, daemon=True)
    thread.start()
    yield site
    site.server.shutdown()
    site.server.server_close()
    thread.join(timeout=10)


def test_another_site_frames_the_queue_lab_and_steps_it(page, other_site, live_server):
    url = other_site.framing("/queue.html", f"{live_server.url}/embed/queue", "Queue lab")
    page.goto(url)
    frame = page.frame_locator('iframe[title="Queue lab"]')
    lab = frame.get_by_role("region", name="Queue lab")
    status = lab.get_by_role("status").first
    expect(status).to_contain_text("t = ")
    expect(frame.get_by_role("link", name="Open in Overlap Lab")).to_have_attribute("href", "../queue")
    expect(frame.get_by_role("heading", name="Queue lab")).to_be_visible()
    expect(frame.get_by_role("link", name="← All lessons and labs")).to_have_count(0)
    before = reading(lab, "t")
    lab.get_by_role("button", name="Step").click()
    wait_for_reading(lab, "t", before + 1)


def test_a_site_framing_the_instructor_page_is_refused(browser, other_site, live_server):
    url = other_site.framing("/instructor.html", f"{live_server.url}/instructor", "Instructor")
    context = browser.new_context()
    try:
        page = context.new_page()
        # Chromium says so on the framing page's console and shows its error page in the frame.
        with page.expect_console_message(lambda message: "frame-ancestors 'none'" in message.text) as refusal:
            page.goto(url)
        assert refusal.value.type == "error"
        assert "blocked" in refusal.value.text.lower()
        assert not any(frame.url.startswith(live_server.url) for frame in page.frames[1:])
        expect(page.frame_locator('iframe[title="Instructor"]').get_by_role("button")).to_have_count(0)
    finally:
        context.close()
