"""Links that lead nowhere, over HTTP against ``python -m app``: 404 in the course frame, no trailing slashes."""

from __future__ import annotations

import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

import pytest

from app.course.content import load_lessons
from app.site.not_found import missing_lesson_html, not_found_page, shorten
from app.site.pages.lesson import lesson_heading_html
from app.site.server import routes
from app.site.urls import root_of
from labs.registry import registrations

LESSONS = load_lessons()
LABS = registrations()
HOSTILE = ['<script>alert("x")</script>', '"><img src=x onerror=alert(1)>', "'; alert(1); //"]
LONG = "x" * 10_240


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: str


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # hand the 3xx back to the test instead of following it


_OPENER = urllib.request.build_opener(_NoRedirect)


def fetch(url: str) -> Reply:
    """GET ``url`` without following redirects; a 4xx or 3xx is a reply, not an exception."""
    try:
        with _OPENER.open(url, timeout=30) as response:
            return Reply(response.status, dict(response.headers), response.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        return Reply(error.code, dict(error.headers), error.read().decode("utf-8", "replace"))


def query(**arguments: str) -> str:
    return urllib.parse.urlencode(arguments)


def assert_course_404(reply: Reply, title: str) -> None:
    """HTTP 404 with the course's own page: lang, title, one h1, main, the way back; not Tornado's page."""
    assert reply.status == 404, reply.body[:300]
    assert reply.headers["Content-Type"].startswith("text/html")
    body = reply.body
    assert "404: Not Found" not in body
    assert '<html lang="en">' in body
    assert f"<title>{title} · Overlap Lab</title>" in body
    assert body.count("<h1") == 1 and f"<h1>{title}</h1>" in body
    assert body.count("<main") == 1 and body.index("<main") < body.index("<h1") < body.index("</main>")
    assert re.search(r'<nav aria-label="Course"><a href="(\./|(\.\./)+)">← All lessons and labs</a></nav>', body)
    assert "<script" not in body.lower(), "the 404 page needs no script"
    assert len(body) < 8_000, "the 404 page repeats no more than a short piece of the URL"


# -- the pieces, without a server ---------------------------------------------------------------


def test_shorten_cuts_long_text_and_escapes_everything():
    assert shorten("x" * 41) == "x" * 40 + "…"
    assert shorten("x" * 40) == "x" * 40
    assert shorten('<b a="1">') == "&lt;b a=&quot;1&quot;&gt;"
    assert "<" not in shorten("<" * 100) and shorten("<" * 100).endswith("…")


def test_root_of_leads_back_to_the_index_folder():
    assert root_of("/lesson") == "./"
    assert root_of("/nope") == "./"
    assert root_of("/a/b") == "../"
    assert root_of("/a/b/c") == "../../"


def test_not_found_page_escapes_its_title_and_links_back():
    body = not_found_page("<i>", missing_lesson_html("<script>", root="../"), root="../")
    assert "<i>" not in body and "&lt;i&gt;" in body
    assert "<script>" not in body and "&lt;script&gt;" in body
    assert 'href="../lesson?id=' in body and '<a href="../">← All lessons and labs</a>' in body


def test_an_empty_exercise_id_says_the_link_names_no_exercise():
    lesson = LESSONS[0]
    assert 'role="alert"' not in lesson_heading_html(lesson, None)
    assert 'role="alert"' not in lesson_heading_html(lesson, lesson.exercises[0].id)
    notice = lesson_heading_html(lesson, "")
    assert 'role="alert"' in notice and "The link names no exercise" in notice
    assert all(exercise.id in notice for exercise in lesson.exercises)


def test_a_bad_exercise_id_is_shortened_and_escaped():
    lesson = LESSONS[0]
    assert "no exercise called 'nope'" in lesson_heading_html(lesson, "nope")
    notice = lesson_heading_html(lesson, "<script>" + LONG)
    assert "<script>" not in notice and "&lt;script&gt;" + "x" * 32 + "…" in notice
    assert "x" * 33 not in notice


# -- over HTTP ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/nope", "/nope/deeper/still", "/lessons", "/static-nope"])
def test_an_unknown_page_is_a_404_in_the_course_frame(live_server, path):
    reply = fetch(live_server.url + path)
    assert_course_404(reply, "Page not found")
    assert f'There is no page at <strong class="missing">{path}</strong>' in reply.body
    root = root_of(path)
    for lesson in LESSONS:
        assert f'<a href="{root}lesson?id={lesson.slug}">' in reply.body
    for lab in LABS:
        assert f'<a href="{root}lab?id={lab.slug}">' in reply.body


def test_an_unknown_lesson_is_a_404_listing_the_lessons(live_server):
    reply = fetch(live_server.url + "/lesson?" + query(id="nope"))
    assert_course_404(reply, "No such lesson")
    assert 'There is no lesson called <strong class="missing">nope</strong>.' in reply.body
    for lesson in LESSONS:
        assert f'<a href="./lesson?id={lesson.slug}">' in reply.body


@pytest.mark.parametrize("path", ["/lesson", "/lesson?id=", "/lesson?exercise=growth"])
def test_a_lesson_link_without_an_id_is_a_404(live_server, path):
    reply = fetch(live_server.url + path)
    assert_course_404(reply, "No such lesson")
    assert "This link names no lesson." in reply.body


def test_an_unknown_lab_is_a_404_listing_the_labs(live_server):
    reply = fetch(live_server.url + "/lab?" + query(id="nope"))
    assert_course_404(reply, "No such lab")
    assert 'There is no lab called <strong class="missing">nope</strong>.' in reply.body
    for lab in LABS:
        assert f'<a href="./lab?id={lab.slug}">' in reply.body
    assert_course_404(fetch(live_server.url + "/lab"), "No such lab")


@pytest.mark.parametrize("page", ["lesson", "lab"])
def test_a_10_kb_id_is_shown_shortened(live_server, page):
    reply = fetch(live_server.url + f"/{page}?" + query(id=LONG))
    assert_course_404(reply, f"No such {page}")
    assert f'<strong class="missing">{"x" * 40}…</strong>' in reply.body
    assert "x" * 41 not in reply.body


@pytest.mark.parametrize("hostile", HOSTILE)
@pytest.mark.parametrize("page", ["lesson", "lab"])
def test_a_hostile_id_is_escaped(live_server, page, hostile):
    reply = fetch(live_server.url + f"/{page}?" + query(id=hostile))
    assert_course_404(reply, f"No such {page}")
    assert f'<strong class="missing">{shorten(hostile)}</strong>' in reply.body
    assert hostile not in reply.body


def test_a_hostile_path_is_escaped(live_server):
    reply = fetch(live_server.url + "/" + urllib.parse.quote('<script>alert("x")</script>'))
    assert_course_404(reply, "Page not found")
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in reply.body


@pytest.mark.smoke
def test_every_page_still_answers_200(live_server):
    paths = ["/", *(f"/lesson?id={lesson.slug}" for lesson in LESSONS), *(f"/lab?id={lab.slug}" for lab in LABS)]
    paths += [path for path in routes() if path not in ("/", "/lesson", "/lab", "/embed/lesson")]
    paths += [f"/embed/lesson?id={lesson.slug}&exercise={lesson.exercises[0].id}" for lesson in LESSONS]
    for path in paths:
        assert fetch(live_server.url + path).status == 200, path


def _redirected(live_server, path: str) -> str:
    """The URL ``path`` redirects to (resolved as a browser does); fails unless it is a redirect."""
    reply = fetch(live_server.url + path)
    assert reply.status in (301, 302, 307, 308), f"{path}: {reply.status}"
    return urllib.parse.urljoin(live_server.url + path, reply.headers["Location"])


@pytest.mark.parametrize("path", [path for path in routes() if path != "/"])
def test_a_trailing_slash_redirects_to_the_page(live_server, path):
    assert _redirected(live_server, path + "/") == live_server.url + path


def test_a_trailing_slash_redirect_keeps_the_query(live_server):
    asked = "/lesson/?id=overlap&exercise=growth"
    assert _redirected(live_server, asked) == live_server.url + "/lesson?id=overlap&exercise=growth"
    assert _redirected(live_server, "/queue/?a=1&b=%3Cx%3E") == live_server.url + "/queue?a=1&b=%3Cx%3E"


def test_a_trailing_slash_redirect_stays_on_this_server(live_server):
    target = _redirected(live_server, "//evil.example/")
    assert target.startswith(live_server.url + "/"), target
    assert fetch(target).status == 404


def test_the_index_keeps_its_slash(live_server):
    assert fetch(live_server.url + "/").status == 200
