"""app.web.security_headers: the nonce written into the pages, and the headers of every kind of page."""

from __future__ import annotations

import gzip
import re
import urllib.error
import urllib.request

import pytest

from app.course.content import load_lessons
from app.web.security_headers import EVERY_RESPONSE, add_nonce, page_policy
from labs.registry import registrations

NONCE = "abcDEF012_-xyz"
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def test_every_script_tag_of_the_markup_gets_the_nonce():
    html = (
        b'<!DOCTYPE html><html><head><script src="static/a.js"></script><SCRIPT>run()</SCRIPT>'
        b'<script type="application/json" id="d">{"x": 1}</script><script\ttype="esms-options">{}</script>'
        b"</head><body><scripts-are-not-tags></scripts-are-not-tags></body></html>"
    )
    noncedtext, tags = add_nonce(html, NONCE)
    assert tags == 4
    assert noncedtext.count(b' nonce="abcDEF012_-xyz"') == 4
    assert b'<script nonce="abcDEF012_-xyz" src="static/a.js">' in noncedtext
    assert b'<SCRIPT nonce="abcDEF012_-xyz">run()' in noncedtext
    assert b"<scripts-are-not-tags>" in noncedtext


def test_a_script_tag_written_inside_text_is_left_alone():
    """``<script`` in a script's text (a JSON document, a string), a style or a comment changes no data."""
    inside = (
        b'<script type="application/json">{"html": "<script>alert(1)<\\/script>"}</script>'
        b'<script>const s = "<script src=x>"</script>'
        b"<style>p::before { content: '<script>' }</style>"
        b"<!-- <script>old()</script> -->"
        b"<p>&lt;script&gt;</p>"
    )
    noncedtext, tags = add_nonce(inside, NONCE)
    assert tags == 2
    assert b'{"html": "<script>alert(1)<\\/script>"}' in noncedtext
    assert b'const s = "<script src=x>"' in noncedtext
    assert b"content: '<script>'" in noncedtext
    assert b"<!-- <script>old()</script> -->" in noncedtext


def test_an_unclosed_script_or_comment_ends_the_scan():
    unclosed = b'<script nonce="abcDEF012_-xyz">never closed <script>'
    assert add_nonce(b"<script>never closed <script>", NONCE) == (unclosed, 1)
    assert add_nonce(b"<!-- <script>", NONCE) == (b"<!-- <script>", 0)


def test_the_page_policy_names_its_sources():
    policy = dict(part.strip().split(" ", 1) for part in page_policy(NONCE, "'self'").split(";"))
    assert policy["script-src"] == f"'self' 'unsafe-eval' 'nonce-{NONCE}'"  # no 'unsafe-inline', no host but ours
    assert policy["default-src"] == "'self'"
    assert policy["object-src"] == "'none'"
    assert policy["frame-ancestors"] == "'self'"
    assert "'unsafe-inline'" not in policy["script-src"]
    assert "nonce" not in page_policy(None, "'none'")


# -- against the live server (python -m app, --embed-from left at *) ----------------------------


def get(url: str, **headers: str) -> tuple[int, object, bytes]:
    request = urllib.request.Request(url, headers=headers)
    try:
        with OPENER.open(request, timeout=30) as reply:
            return reply.status, reply.headers, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


LESSON = load_lessons()[0]
PAGES = [
    "/",
    f"/lesson?id={LESSON.slug}",
    *(f"/lab?id={lab.slug}" for lab in registrations()),
    "/queue",
    "/trace",
    "/instructor",
    "/embed/queue",
    f"/embed/lesson?id={LESSON.slug}&exercise={LESSON.exercises[0].id}",
]


@pytest.mark.parametrize("path", PAGES)
def test_each_page_carries_its_policy_and_each_of_its_scripts_the_nonce(live_server, path):
    status, headers, body = get(live_server.url + path)
    assert status == 200
    policies = headers.get_all("Content-Security-Policy")
    assert len(policies) == 1, policies
    nonce = re.search(r"'nonce-([A-Za-z0-9_-]{24})'", policies[0]).group(1)
    tags = re.findall(rb"<script\b[^>]*>", body, re.IGNORECASE)
    assert tags and all(f'nonce="{nonce}"'.encode() in tag for tag in tags), tags
    for name, value in EVERY_RESPONSE.items():
        assert headers.get_all(name) == [value], name
    assert "Etag" not in headers  # no 304 may pair this body with another response's nonce
    assert int(headers["Content-Length"]) == len(body)


def test_each_response_has_a_nonce_of_its_own(live_server):
    nonces = {re.search(r"'nonce-([^']+)'", get(live_server.url + "/queue")[1]["Content-Security-Policy"]).group(1)}
    nonces.add(re.search(r"'nonce-([^']+)'", get(live_server.url + "/queue")[1]["Content-Security-Policy"]).group(1))
    assert len(nonces) == 2


def test_a_gzipped_page_carries_the_same_nonce_as_its_header(live_server):
    status, headers, body = get(live_server.url + "/queue", **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    nonce = re.search(r"'nonce-([^']+)'", headers["Content-Security-Policy"]).group(1)
    assert f'<script nonce="{nonce}"'.encode() in gzip.decompress(body)


def test_a_404_page_carries_the_policy(live_server):
    status, headers, _ = get(live_server.url + "/no/such/page")
    assert status == 404
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert "frame-ancestors 'self'" in headers["Content-Security-Policy"]
    assert headers.get_all("X-Content-Type-Options") == ["nosniff"]
    assert headers["Referrer-Policy"] == "same-origin"


def test_static_files_are_not_sniffed_and_carry_no_page_policy(live_server):
    status, _, page = get(live_server.url + "/queue")
    script = re.search(rb'static/[^"\']+\.js[^"\']*', page).group(0).decode()
    status, headers, _ = get(f"{live_server.url}/{script}", **{"Accept-Encoding": "gzip"})
    assert status == 200
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"
    assert "nonce" not in (headers.get("Content-Security-Policy") or "")
    assert headers["Content-Type"].split(";")[0] in ("application/javascript", "text/javascript")


def test_healthz_data_is_not_sniffed(live_server):
    _, headers, _ = get(live_server.url + "/healthz")
    assert headers["X-Content-Type-Options"] == "nosniff"
