"""A lesson page from ``python -m app`` in Chromium: its JavaScript and CSS compressed, no MathJax, a working lab."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.waiting import poll

pytestmark = pytest.mark.browser

UNUSED = ("mathjax", "bokeh-gl", "filepond", "tabulator")
"""Bundles no lesson page needs: parts of the URLs that must not be asked for."""


def record_responses(page) -> list:
    """Every response the page gets from now on, in order."""
    responses: list = []
    page.on("response", lambda response: responses.append(response))
    return responses


COMPRESSED = ("br", "gzip")
"""The encodings the app sends static files in: brotli once made (app.web.delivery.brotli_store), gzip until then."""


def assert_static_files_compressed(responses: list) -> None:
    """Every JavaScript and CSS file of 1 kB or more came compressed; nothing unused was asked for."""
    assets = [r for r in responses if r.url.split("?")[0].endswith((".js", ".css")) and r.status == 200]
    assert len(assets) >= 5, [r.url for r in responses]
    unzipped = [
        r.url
        for r in assets
        if r.headers.get("content-encoding") not in COMPRESSED and int(r.headers.get("content-length", "0")) >= 1024
    ]
    assert not unzipped, f"sent uncompressed: {unzipped}"
    asked = [r.url for r in responses if any(part in r.url.lower() for part in UNUSED)]
    assert not asked, f"a lesson page asked for bundles it does not use: {asked}"


def record_websocket_handshakes(page) -> list[dict[str, str]]:
    """The response headers of every websocket handshake the page makes from now on (lower-case names)."""
    handshakes: list[dict[str, str]] = []
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.on(
        "Network.webSocketHandshakeResponseReceived",
        lambda event: handshakes.append({k.lower(): v for k, v in event["response"]["headers"].items()}),
    )
    return handshakes


def assert_websocket_deflated(page, handshakes: list[dict[str, str]]) -> None:
    """The page's Bokeh websocket agreed on permessage-deflate (app.web.serving_settings.WEBSOCKET_COMPRESSION)."""
    poll(lambda: bool(handshakes), page=page, what="the websocket's handshake")
    extensions = handshakes[0].get("sec-websocket-extensions", "")
    assert extensions.startswith("permessage-deflate"), f"websocket not deflated: {handshakes[0]}"


def test_a_lesson_comes_compressed_without_mathjax_and_its_lab_works(page):
    responses = record_responses(page)
    handshakes = record_websocket_handshakes(page)
    page.goto(page.base_url + "/lesson?id=overlap")
    lab = page.get_by_role("region", name="Queue lab")
    readout = lab.get_by_role("status").first
    expect(readout).to_contain_text("t = 0.00 s")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    lab.get_by_role("button", name="Step").click()
    expect(readout).to_contain_text("t = 1.00 s")
    document = next(r for r in responses if "/lesson?id=overlap" in r.url)
    assert document.headers.get("content-encoding") == "gzip"
    assert_static_files_compressed(responses)
    assert_websocket_deflated(page, handshakes)


def test_once_brotli_is_made_chromium_gets_bokehjs_in_it(browser, live_server):
    """The warm-up started brotli for every file a page names; a new visitor then gets it in brotli."""

    def bokehjs_encoding() -> str | None:
        context = browser.new_context()
        try:
            visitor = context.new_page()
            with visitor.expect_response(lambda r: "/static/js/bokeh.min.js" in r.url) as answer:
                visitor.goto(live_server.url + "/lesson?id=overlap", wait_until="commit")
            return answer.value.headers.get("content-encoding")
        finally:
            context.close()

    poll(lambda: bokehjs_encoding() == "br", what="BokehJS sent in brotli")


def test_the_trace_page_still_gets_its_file_dropper(page):
    """The one page that declares an extension (FileDropper) gets its JavaScript; the next lesson does not."""
    responses = record_responses(page)
    page.goto(page.base_url + "/trace")
    poll(lambda: any("filepond" in r.url for r in responses), page=page, what="FilePond's JavaScript loading")
    expect(page.get_by_role("heading", level=1)).to_have_text("Your own trace")
    # the file dropper drawn: every FilePond file it asked for is in (the heading is in the page's
    # first paint, long before)
    expect(page.get_by_role("group", name="Trace file")).to_be_visible()
    responses.clear()
    page.goto(page.base_url + "/lesson?id=hidden")
    expect(page.get_by_role("region", name="Roofline lab").get_by_role("status").first).to_contain_text("ridge =")
    asked = [r.url for r in responses if "filepond" in r.url]
    assert not asked, asked
