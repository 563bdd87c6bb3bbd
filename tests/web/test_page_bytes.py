"""What a page costs on the wire: static files compressed once (app.web.delivery.compression), no bundle a page does
not use."""

from __future__ import annotations

import gzip
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import brotli
import panel as pn
import pytest
from bokeh.embed.util import contains_tex_string
from bokeh.models import Plot
from bokeh.settings import settings

from app.course.catalog import lab_kinds
from app.course.content import load_lessons
from app.site.sessions import static_urls
from app.web.delivery import brotli_store, compression
from app.web.delivery.bundle_loading import UNUSED_BUNDLES
from tests.tornado_thread import serving
from tests.waiting import poll

BOKEH_JS = Path(settings.bokehjs_path()) / "js" / "bokeh.min.js"


@dataclass
class Reply:
    """One HTTP answer, as urllib gave it (a 304 or 404 included)."""

    code: int
    headers: dict[str, str]
    body: bytes


@pytest.fixture(scope="module")
def static_server() -> Iterator[str]:
    """The handlers in a bare Tornado application, as panel serve's plugin adds them, on a thread of its own.

    Its own thread and event loop (:func:`tests.tornado_thread.serving`).
    """
    with serving(compression.ROUTES) as url:
        yield url


def fetch(url: str, method: str = "GET", **headers: str) -> Reply:
    request = urllib.request.Request(url, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return Reply(answer.status, dict(answer.headers), answer.read())
    except urllib.error.HTTPError as answer:
        return Reply(answer.code, dict(answer.headers), answer.read())


def fetch_js(base: str, **headers: str) -> Reply:
    return fetch(base + "/static/js/bokeh.min.js", **headers)


@pytest.fixture
def fresh_brotli(tmp_path, monkeypatch) -> Iterator[Path]:
    """Nothing brotli-compressed yet in this process, and an empty disk cache of the test's own."""
    monkeypatch.setenv(brotli_store.CACHE_ENV, str(tmp_path / "cache"))
    brotli_store.forget()
    yield tmp_path / "cache"
    brotli_store.forget()


def test_a_client_taking_gzip_gets_the_file_gzipped_with_its_own_etag(static_server):
    plain = fetch_js(static_server)
    packed = fetch_js(static_server, **{"Accept-Encoding": "gzip, deflate"})
    assert plain.code == packed.code == 200
    assert "Content-Encoding" not in plain.headers
    assert plain.body == BOKEH_JS.read_bytes()
    assert packed.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.body) == plain.body
    assert len(packed.body) < len(plain.body) / 3
    assert int(packed.headers["Content-Length"]) == len(packed.body)
    assert plain.headers["Vary"] == packed.headers["Vary"] == "Accept-Encoding"
    assert packed.headers["Etag"] != plain.headers["Etag"]


def test_a_revalidation_answers_304_for_either_representation(static_server):
    packed = fetch_js(static_server, **{"Accept-Encoding": "gzip"})
    again = fetch_js(static_server, **{"Accept-Encoding": "gzip", "If-None-Match": packed.headers["Etag"]})
    assert again.code == 304 and again.body == b""
    plain = fetch_js(static_server)
    assert fetch_js(static_server, **{"If-None-Match": plain.headers["Etag"]}).code == 304


def test_a_byte_range_or_a_refused_gzip_gets_the_file_as_it_is(static_server):
    ranged = fetch_js(static_server, **{"Accept-Encoding": "gzip", "Range": "bytes=0-99"})
    assert ranged.code == 206 and ranged.body == BOKEH_JS.read_bytes()[:100]
    refused = fetch_js(static_server, **{"Accept-Encoding": "gzip;q=0, identity"})
    assert "Content-Encoding" not in refused.headers


def test_panel_files_and_a_head_request(static_server):
    head = fetch(static_server + "/static/extensions/panel/panel.min.js", method="HEAD", **{"Accept-Encoding": "gzip"})
    assert head.code == 200 and head.headers["Content-Encoding"] == "gzip"
    assert 10_000 < int(head.headers["Content-Length"]) < 400_000
    missing = fetch(static_server + "/static/extensions/panel/nope.js", **{"Accept-Encoding": "gzip"})
    assert missing.code == 404


def test_the_template_leaves_out_only_bundles_no_page_needs():
    """Pages drop MathJax and WebGL (app.web.delivery.bundle_loading): no lesson has TeX and no lab plot draws with
    WebGL."""
    assert set(UNUSED_BUNDLES) == {"/bokeh-mathjax.", "/bokeh-gl."}
    for lesson in load_lessons():
        text = lesson.path.read_text(encoding="utf-8")
        assert not contains_tex_string(text), f"{lesson.path} has TeX: MathJax would have to be loaded"
    for slug, kind in lab_kinds().items():
        root = pn.panel(kind.lesson_view()).get_root()
        webgl = [m for m in root.references() if isinstance(m, Plot) and m.output_backend == "webgl"]
        assert not webgl, f"the {slug} lab draws with WebGL: bokeh-gl would have to be loaded"


def test_a_browser_taking_brotli_gets_it_once_made_with_its_own_etag(static_server, fresh_brotli):
    browser = {"Accept-Encoding": "gzip, deflate, br, zstd"}
    poll(lambda: fetch_js(static_server, **browser).headers.get("Content-Encoding") == "br", what="brotli made")
    smallest = fetch_js(static_server, **browser)
    packed = fetch_js(static_server, **{"Accept-Encoding": "gzip"})
    plain = fetch_js(static_server)
    assert brotli.decompress(smallest.body) == plain.body == BOKEH_JS.read_bytes()
    assert len(smallest.body) < 0.9 * len(packed.body)
    assert int(smallest.headers["Content-Length"]) == len(smallest.body)
    assert len({smallest.headers["Etag"], packed.headers["Etag"], plain.headers["Etag"]}) == 3
    assert smallest.headers["Vary"] == "Accept-Encoding"
    assert "private" not in smallest.headers.get("Cache-Control", "")
    again = fetch_js(static_server, **browser, **{"If-None-Match": smallest.headers["Etag"]})
    assert again.code == 304
    assert list(fresh_brotli.glob("*.br")), "brotli's bytes were not kept on disk"


def test_while_brotli_is_being_made_a_browser_gets_gzip_that_only_it_keeps(static_server, fresh_brotli, monkeypatch):
    """The browser keeps it as long as any file (its next page takes it from its cache); nginx may not keep it,
    or it would give the gzip copy to every later browser that sends the same header."""
    release = threading.Event()
    compress = brotli_store._compress

    def held(path: str) -> bytes | None:
        release.wait(60)
        return compress(path)

    monkeypatch.setattr(brotli_store, "_compress", held)
    browser = {"Accept-Encoding": "gzip, deflate, br"}
    try:
        versioned = static_server + "/static/js/bokeh.min.js?v=1"  # as pages name it: kept for a year
        early = fetch(versioned, **browser)
        assert early.headers["Content-Encoding"] == "gzip"
        gzip_only = fetch(versioned, **{"Accept-Encoding": "gzip"})
        assert "max-age" in gzip_only.headers["Cache-Control"] and "private" not in gzip_only.headers["Cache-Control"]
        assert early.headers["Cache-Control"] == f"private, {gzip_only.headers['Cache-Control']}"
        assert early.headers["Expires"] == gzip_only.headers["Expires"]
        assert gzip.decompress(early.body) == BOKEH_JS.read_bytes()
        unversioned = fetch_js(static_server, **browser)
        assert unversioned.headers["Cache-Control"] == "private"
    finally:
        release.set()
    poll(lambda: fetch_js(static_server, **browser).headers.get("Content-Encoding") == "br", what="brotli made")


@pytest.mark.parametrize(
    ("header", "codings"),
    [
        ("gzip", {"gzip"}),
        ("GZIP;q=1", {"gzip"}),
        ("*", {"br", "gzip"}),
        ("br, gzip;q=0.5", {"br", "gzip"}),
        ("gzip, deflate, br, zstd", {"br", "gzip"}),
        ("br;q=0, gzip", {"gzip"}),
        ("gzip;q=0.0, identity", set()),
        ("deflate", set()),
        ("", set()),
    ],
)
def test_accept_encoding_is_read_as_http_says(header, codings):
    class Request:
        headers = {"Accept-Encoding": header}

    handler = compression.CompressedStatic.__new__(compression.CompressedStatic)
    handler.request = Request()
    assert handler.accepted_codings() == codings


def test_a_range_request_takes_no_encoding():
    class Request:
        headers = {"Accept-Encoding": "br, gzip", "Range": "bytes=0-9"}

    handler = compression.CompressedStatic.__new__(compression.CompressedStatic)
    handler.request = Request()
    assert handler.accepted_codings() == set()


def test_the_warm_up_finds_every_static_file_a_page_names_once():
    html = b"""<link rel="icon" href="static/extensions/panel/images/icon.png">
    <script>(load)(["static/js/bokeh.min.js?v=1", "static/extensions/panel/panel.min.js?v=2"])</script>
    <link rel="stylesheet" href='/static/extensions/panel/css/loading.css?v=3'>
    <script src="static/js/bokeh.min.js?v=1"></script><a href="/lesson?id=overlap">not static</a>"""
    assert static_urls("http://host:5006/lesson?id=overlap", html) == [
        "http://host:5006/static/extensions/panel/images/icon.png",
        "http://host:5006/static/js/bokeh.min.js?v=1",
        "http://host:5006/static/extensions/panel/panel.min.js?v=2",
        "http://host:5006/static/extensions/panel/css/loading.css?v=3",
    ]
