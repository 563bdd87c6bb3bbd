"""``/embed/<lab>`` and who may frame which page, over HTTP against ``python -m app`` (and the pieces alone)."""

from __future__ import annotations

import html
import urllib.error
import urllib.request
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest
from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine

from app import classroom
from app.classroom.http import ClassDataHandler
from app.course.content import load_lessons
from app.course.progress import ProgressStore
from app.site.not_found import missing_exercise_html, missing_lab_html
from app.site.pages.lesson import embed_link_html, lesson_view
from app.site.server import parse_args, routes
from app.site.sessions import page_key
from app.web import frame_headers
from labs.registry import registrations
from tests.site.test_urls import assert_course_404, fetch
from tests.tornado_thread import serving

LABS = registrations()
LESSONS = load_lessons()


# -- the pieces, without a server ---------------------------------------------------------------


def test_every_lab_has_an_embed_route():
    paths = routes()
    for lab in LABS:
        assert f"/embed/{lab.slug}" in paths


def test_embed_pages_share_one_bounded_session_key_per_lab():
    def key(uri: str) -> tuple[str, str]:
        return page_key(
            HTTPServerRequest(
                start_line=RequestStartLine("GET", uri, "HTTP/1.1"), headers=HTTPHeaders({"Host": "localhost"})
            )
        )

    for lab in LABS:
        assert key(f"/embed/{lab.slug}") == ("/embed/", lab.slug)
        assert key(f"/embed/{lab.slug}?x=1") == ("/embed/", lab.slug)
    assert key("/embed/made-up") == key("/embed/another") == ("/embed/", "")
    lesson = LESSONS[0]
    for exercise in lesson.exercises:
        path = f"/embed/lesson?id={lesson.slug}&exercise={exercise.id}"
        assert key(path) == key(path + "&x=1") == ("/embed/lesson", f"{lesson.slug}/{exercise.id}")
    made_up = {key(f"/embed/lesson?id={lesson.slug}&exercise=no-{n}") for n in range(5)}
    made_up |= {key(f"/embed/lesson?id=no-{n}&exercise={lesson.exercises[0].id}") for n in range(5)}
    assert made_up == {("/embed/lesson", "")}


def test_an_embedded_exercise_is_only_that_exercise_started_beside_its_lab():
    lesson = LESSONS[0]
    exercise = lesson.exercises[1]
    progress = ProgressStore()
    view = lesson_view(lesson, exercise.id, progress, alone=True)
    text = view.objects[0]
    assert [kind for kind, _ in text.order] == ["card"], "no prose, no links to other lessons"
    (card,) = text._cards
    assert card.label == f"Exercise: {exercise.title}"
    assert card.active, "started, as a lesson link naming the exercise starts it"
    assert not card.scroll_into_view, "nothing to scroll past in a frame"
    assert card.share == [], "no Share button where another site frames it"
    whole = lesson_view(lesson, exercise.id, ProgressStore())
    assert len(whole.objects[0]._cards) == len(lesson.exercises)
    assert whole.objects[0]._cards[1].scroll_into_view
    assert whole.objects[0]._cards[1].share


def test_an_embedded_exercise_links_to_it_in_its_lesson_in_a_new_tab():
    lesson = LESSONS[0]
    exercise = lesson.exercises[0]
    link = embed_link_html(lesson, exercise)
    assert f'href="../lesson?id={lesson.slug}&amp;exercise={exercise.id}"' in link
    assert 'target="_blank"' in link
    assert 'rel="noopener"' in link


@pytest.mark.parametrize(
    ("given", "sources"),
    [
        ("*", "*"),
        ("https://a.example.edu", "https://a.example.edu"),
        ("https://a.example.edu, https://b.example.edu:8443", "https://a.example.edu https://b.example.edu:8443"),
        ("https://a.example.edu  http://localhost:8000", "https://a.example.edu http://localhost:8000"),
        ("https://*.example.edu", "https://*.example.edu"),
        ("'none'", "'none'"),
    ],
)
def test_embed_from_takes_origins_separated_by_spaces_or_commas(given, sources):
    assert frame_headers.parse_origins(given) == sources
    assert parse_args(["--embed-from", given]).embed_from == sources


@pytest.mark.parametrize("bad", ["", " , ", "https://a.example.edu; script-src *", "'unsafe-inline'", "a\nb c\x00"])
def test_embed_from_refuses_what_is_not_an_origin(bad, capsys):
    with pytest.raises(ValueError):
        frame_headers.parse_origins(bad)
    with pytest.raises(SystemExit) as stop:
        parse_args(["--embed-from", bad])
    assert stop.value.code == 2
    assert "--embed-from" in capsys.readouterr().err


def test_embed_from_defaults_to_any_site(monkeypatch):
    monkeypatch.delenv("EMBED_FROM", raising=False)
    assert parse_args([]).embed_from == "*"


def test_frame_headers_per_path():
    origins = "https://a.example.edu"
    assert frame_headers.frame_headers("/embed/queue", origins) == {
        "Content-Security-Policy": "frame-ancestors https://a.example.edu"
    }
    denied = {"Content-Security-Policy": "frame-ancestors 'none'", "X-Frame-Options": "DENY"}
    for path in ("/instructor", "/instructor/export.csv", "/instructor/rounds.json"):
        assert frame_headers.frame_headers(path, origins) == denied
    for path in ("/", "/queue", "/lesson", "/instructors", "/embed", "/trace", "/no/such/page"):
        assert frame_headers.frame_headers(path, origins) == {
            "Content-Security-Policy": "frame-ancestors 'self' https://a.example.edu"
        }


def test_pages_other_than_embed_are_never_framed_by_any_site():
    """``--embed-from *`` (the default) opens the /embed pages to every site, never a whole lesson or lab."""
    for path in ("/", "/lesson", "/queue", "/trace"):
        assert frame_headers.frame_headers(path, "*") == {
            "Content-Security-Policy": "frame-ancestors 'self'",
            "X-Frame-Options": "SAMEORIGIN",
        }
    assert frame_headers.frame_headers("/embed/queue", "*") == {"Content-Security-Policy": "frame-ancestors *"}


# -- the class's data alone, as panel serve's plugin routes it (no output transform) ------------

TOKEN = "a-test-token-for-the-class"
EXERCISE = f"{LESSONS[0].slug}/{LESSONS[0].exercises[0].id}"


@pytest.fixture
def bare_class_data(tmp_path, monkeypatch) -> Iterator[str]:
    """``ClassDataHandler`` alone in a bare Tornado application, class on, on a thread of its own.

    Its own thread and event loop (:func:`tests.tornado_thread.serving`).
    """
    monkeypatch.setenv(classroom.TOKEN_ENV, TOKEN)
    monkeypatch.setattr(classroom, "_store", None)
    monkeypatch.setattr(classroom, "_configured", False)
    classroom.configure(f"sqlite:///{tmp_path / 'class.db'}")
    try:
        with serving([(r"/instructor/(export\.csv|rounds\.json)", ClassDataHandler)]) as url:
            yield url
    finally:
        classroom.configure(None)


@pytest.mark.parametrize(
    ("path", "token", "status"),
    [
        ("/instructor/export.csv", True, 200),
        ("/instructor/export.csv", False, 403),
        (f"/instructor/rounds.json?exercise={EXERCISE}", True, 200),
        ("/instructor/rounds.json?exercise=no/such", True, 404),
        (f"/instructor/rounds.json?exercise={EXERCISE}", False, 403),
    ],
)
def test_the_class_data_handler_itself_forbids_framing(bare_class_data, path, token, status):
    headers = {"Authorization": f"Bearer {TOKEN}"} if token else {}
    request = urllib.request.Request(bare_class_data + path, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            answer = (reply.status, reply.headers)
    except urllib.error.HTTPError as error:
        answer = (error.code, error.headers)
    assert answer[0] == status
    for name, value in frame_headers.NO_FRAMING.items():
        assert answer[1].get_all(name) == [value], name


def test_with_the_class_off_the_handler_still_forbids_framing(bare_class_data):
    classroom.configure(None)  # send_error clears the headers a handler set; its defaults come back
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(bare_class_data + "/instructor/export.csv", timeout=30)
    assert refused.value.code == 404
    for name, value in frame_headers.NO_FRAMING.items():
        assert refused.value.headers.get_all(name) == [value], name


# -- against the live server ---------------------------------------------------------------------


@pytest.mark.parametrize("lab", LABS, ids=[lab.slug for lab in LABS])
def test_embed_page_is_the_lab_in_a_bare_frame_any_site_may_show(live_server, lab):
    reply = fetch(f"{live_server.url}/embed/{lab.slug}")
    assert reply.status == 200
    assert framed_by(reply) == "*"
    assert "X-Frame-Options" not in reply.headers
    assert f"<title>{lab.title}</title>" in reply.body
    assert "<header" not in reply.body, "no site header on an embedded lab"
    assert "<main" in reply.body
    assert lab.intro not in reply.body


@pytest.mark.parametrize("exercise", [LESSONS[0].exercises[0], LESSONS[-1].exercises[-1]], ids=lambda e: e.id)
def test_an_embedded_exercise_is_in_a_bare_frame_any_site_may_show(live_server, exercise):
    lesson = next(lesson for lesson in LESSONS if exercise in lesson.exercises)
    reply = fetch(f"{live_server.url}/embed/lesson?id={lesson.slug}&exercise={exercise.id}")
    assert reply.status == 200
    assert framed_by(reply) == "*"
    assert f"<title>{lesson.title}</title>" in reply.body
    assert "<header" not in reply.body


def test_an_embedded_exercise_of_an_unknown_lesson_is_the_lesson_404(live_server):
    exercise = LESSONS[0].exercises[0].id
    for query in (f"id=no-such-lesson&exercise={exercise}", f"exercise={exercise}", ""):
        reply = fetch(f"{live_server.url}/embed/lesson?{query}")
        assert_course_404(reply, "No such lesson")
        assert framed_by(reply) == "*"


def test_an_unknown_exercise_of_an_embedded_lesson_lists_the_lessons_exercises(live_server):
    lesson = LESSONS[1]
    for asked in ("no-such-exercise", "<b>x</b>", ""):
        reply = fetch(f"{live_server.url}/embed/lesson?" + urlencode({"id": lesson.slug, "exercise": asked}))
        assert_course_404(reply, "No such exercise")
        assert missing_exercise_html(lesson.slug, asked, "../") in reply.body
        assert "<b>x</b>" not in reply.body
    for exercise in lesson.exercises:  # each listed, linked to its own embedded page
        linked = urlencode({"id": lesson.slug, "exercise": exercise.id})
        assert f'href="../embed/lesson?{html.escape(linked)}"' in reply.body
        assert f"{html.escape(exercise.title)}</a>" in reply.body


@pytest.mark.parametrize("path", ["/instructor", "/instructor/export.csv", "/instructor/rounds.json"])
def test_instructor_pages_may_not_be_framed(live_server, path):
    reply = fetch(live_server.url + path)
    assert framed_by(reply) == "'none'"
    assert reply.headers["X-Frame-Options"] == "DENY"


@pytest.mark.parametrize("path", ["/", "/queue", "/lab?id=queue", "/lesson?id=" + load_lessons()[0].slug, "/trace"])
def test_other_pages_may_be_framed_by_the_course_alone(live_server, path):
    """With ``--embed-from`` left at ``*`` (any site may frame /embed), a whole page is framed by no other site."""
    reply = fetch(live_server.url + path)
    assert reply.status == 200
    assert framed_by(reply) == "'self'"
    assert reply.headers["X-Frame-Options"] == "SAMEORIGIN"


def framed_by(reply) -> str:
    """The ``frame-ancestors`` sources of a reply's Content-Security-Policy (exactly one such directive)."""
    policy = reply.headers["Content-Security-Policy"]
    found = [part.strip() for part in policy.split(";") if part.strip().startswith("frame-ancestors ")]
    assert len(found) == 1, policy
    return found[0].removeprefix("frame-ancestors ")


def test_an_unknown_embedded_lab_is_the_lab_404(live_server):
    embed = fetch(f"{live_server.url}/embed/no-such-lab")
    lab = fetch(f"{live_server.url}/lab?id=no-such-lab")
    assert_course_404(embed, "No such lab")
    assert_course_404(lab, "No such lab")
    assert missing_lab_html("no-such-lab", "../") in embed.body
    assert embed.body.replace("../", "./") == lab.body.replace("../", "./")
