"""What a page costs on the wire: static files gzipped once (app.compression), no bundle a page does not use."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import panel as pn
import pytest
from bokeh.embed.util import contains_tex_string
from bokeh.models import Plot
from bokeh.settings import settings
from tornado.testing import AsyncHTTPTestCase
from tornado.web import Application

from app import compression
from app.catalog import lab_kinds
from app.content import load_lessons

BOKEH_JS = Path(settings.bokehjs_path()) / "js" / "bokeh.min.js"
TEMPLATE = Path(__file__).resolve().parents[1] / "app" / "templates" / "course.html"


class TestGzipStatic(AsyncHTTPTestCase):
    """The handlers in a bare Tornado application, as panel serve's plugin adds them."""

    def get_app(self) -> Application:
        return Application(compression.ROUTES)

    def fetch_js(self, **headers: str):
        return self.fetch("/static/js/bokeh.min.js", headers=headers, decompress_response=False)

    def test_a_client_taking_gzip_gets_the_file_gzipped_with_its_own_etag(self):
        plain = self.fetch_js()
        packed = self.fetch_js(**{"Accept-Encoding": "gzip, deflate, br"})
        assert plain.code == packed.code == 200
        assert "Content-Encoding" not in plain.headers
        assert plain.body == BOKEH_JS.read_bytes()
        assert packed.headers["Content-Encoding"] == "gzip"
        assert gzip.decompress(packed.body) == plain.body
        assert len(packed.body) < len(plain.body) / 3
        assert int(packed.headers["Content-Length"]) == len(packed.body)
        assert plain.headers["Vary"] == packed.headers["Vary"] == "Accept-Encoding"
        assert packed.headers["Etag"] != plain.headers["Etag"]

    def test_a_revalidation_answers_304_for_either_representation(self):
        packed = self.fetch_js(**{"Accept-Encoding": "gzip"})
        again = self.fetch_js(**{"Accept-Encoding": "gzip", "If-None-Match": packed.headers["Etag"]})
        assert again.code == 304 and again.body == b""
        plain = self.fetch_js()
        assert self.fetch_js(**{"If-None-Match": plain.headers["Etag"]}).code == 304

    def test_a_byte_range_or_a_refused_gzip_gets_the_file_as_it_is(self):
        ranged = self.fetch_js(**{"Accept-Encoding": "gzip", "Range": "bytes=0-99"})
        assert ranged.code == 206 and ranged.body == BOKEH_JS.read_bytes()[:100]
        refused = self.fetch_js(**{"Accept-Encoding": "gzip;q=0, identity"})
        assert "Content-Encoding" not in refused.headers

    def test_panel_files_and_a_head_request(self):
        head = self.fetch(
            "/static/extensions/panel/panel.min.js",
            method="HEAD",
            headers={"Accept-Encoding": "gzip"},
            decompress_response=False,
        )
        assert head.code == 200 and head.headers["Content-Encoding"] == "gzip"
        assert 10_000 < int(head.headers["Content-Length"]) < 400_000
        missing = self.fetch("/static/extensions/panel/nope.js", headers={"Accept-Encoding": "gzip"})
        assert missing.code == 404


def test_the_template_leaves_out_only_bundles_no_page_needs():
    """course.html drops MathJax and WebGL: no lesson has TeX and no lab plot draws with WebGL."""
    dropped = re.search(r"set unused_bundles = \[([^\]]*)\]", TEMPLATE.read_text(encoding="utf-8"))
    assert dropped and set(re.findall(r'"([^"]+)"', dropped.group(1))) == {"/bokeh-mathjax.", "/bokeh-gl."}
    for lesson in load_lessons():
        text = lesson.path.read_text(encoding="utf-8")
        assert not contains_tex_string(text), f"{lesson.path} has TeX: MathJax would have to be loaded"
    for slug, kind in lab_kinds().items():
        root = pn.panel(kind.lesson_view()).get_root()
        webgl = [m for m in root.references() if isinstance(m, Plot) and m.output_backend == "webgl"]
        assert not webgl, f"the {slug} lab draws with WebGL: bokeh-gl would have to be loaded"


@pytest.mark.parametrize("header", ["gzip", "GZIP;q=1", "*", "br, gzip;q=0.5"])
def test_accept_encoding_is_read_as_http_says(header):
    class Request:
        headers = {"Accept-Encoding": header}

    handler = compression.GzipStatic.__new__(compression.GzipStatic)
    handler.request = Request()
    assert handler.accepts_gzip()
