"""A class on the hosted course page: students through nginx onto two app processes (make serve-cluster)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from app.course.content import load_lessons
from deploy.cluster import Cluster, ClusterError
from devtools.ports import free_ports
from tests.browser.test_embed_browser import OtherSite
from tests.browser.test_page_bytes_browser import assert_websocket_deflated, record_websocket_handshakes
from tests.conftest import LiveServer
from tests.site.test_deploy import nginx_or_skip
from tests.student import play_and_pause_checking_the_websocket, reading, type_value, wait_for_reading, wait_until

pytestmark = pytest.mark.browser

EXERCISE = "/lesson?id=overlap&exercise=growth"
TITLE = next(exercise.title for exercise in load_lessons()[0].exercises if exercise.id == "growth")
STUDENTS = 6


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Two app processes behind nginx on free ports, started by the class make serve-cluster uses."""
    nginx = nginx_or_skip()
    port, *apps = free_ports(3)
    log = tmp_path_factory.mktemp("cluster") / "cluster.log"
    cluster = Cluster(port=port, app_ports=apps, nginx=nginx, log=log, start_timeout=60)
    try:
        cluster.start()
    except ClusterError as error:
        pytest.fail(f"{error}\n{log.read_text(errors='replace')}")
    try:
        running = cluster.pids()
        yield cluster
    finally:
        cluster.stop()
    assert len(running) >= 4, running  # two apps, nginx's master and at least one worker
    assert cluster.pids() == [], "processes left running after the cluster stopped"
    output = log.read_text(errors="replace")
    assert "Traceback" not in output, output
    assert not [line for line in output.splitlines() if "[error]" in line or "[crit]" in line], output


@pytest.fixture(scope="module")
def live_server(cluster: Cluster) -> LiveServer:
    """conftest's ``page`` opens its pages through nginx and watches the cluster's log for tracebacks."""
    return LiveServer(url=cluster.url, log=cluster.log, process=cluster.processes[f"nginx on port {cluster.port}"])


def test_growth_exercise_through_nginx_and_play_sends_nothing(page):
    handshakes = record_websocket_handshakes(page)
    page.goto(page.base_url + EXERCISE)
    lab = page.get_by_role("region", name="Queue lab")
    region = page.get_by_role("region", name=f"Exercise: {TITLE}")
    expect(region).to_be_visible()
    expect(lab.get_by_role("status").first).to_contain_text("=")
    assert_websocket_deflated(page, handshakes)  # nginx passes the extension through
    steps = region.get_by_role("list", name="Steps").get_by_role("listitem")

    def then_step_done(number: int) -> None:  # the server has taken the action: the page may redraw
        expect(steps.nth(number - 1)).to_contain_text("(done)")

    lab.get_by_role("button", name="Reset").click()
    then_step_done(1)
    type_value(lab, "Arrival rate λ", "4")
    then_step_done(2)
    type_value(lab, "Service rate μ", "3")
    then_step_done(3)
    region.get_by_role("textbox", name="Your prediction").fill("1")
    region.get_by_role("button", name="Lock prediction").click()
    then_step_done(4)
    step = lab.get_by_role("button", name="Step")
    step.click()
    wait_for_reading(lab, "t", 1)
    step.click()
    wait_for_reading(lab, "t", 2)
    then_step_done(5)
    feedback = region.get_by_role("status")
    expect(feedback).to_contain_text("Correct")
    assert feedback.inner_text().startswith("Correct")
    play_and_pause_checking_the_websocket(page, lab)


def test_each_student_session_is_built_once_on_one_of_both_processes(browser, cluster):
    before = cluster.health()
    contexts = [browser.new_context() for _ in range(STUDENTS)]
    problems: list[str] = []
    try:
        pages = []
        for context in contexts:
            student = context.new_page()
            student.on("pageerror", lambda error: problems.append(f"page error: {error}"))
            student.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
            student.goto(cluster.url + EXERCISE, wait_until="commit")  # the class arrives at once
            pages.append(student)
        for student in pages:
            status = student.get_by_role("region", name="Queue lab").get_by_role("status").first
            expect(status).to_contain_text("=")
        wait_until(lambda: sum(report["sessions"] for report in cluster.health()) == STUDENTS)
        after = cluster.health()
    finally:
        for context in contexts:
            context.close()
    assert not problems, problems
    # Built for students (not at start-up) on each process during this test: each page exactly once.
    fresh = [[report["built"] - report["warm_ups"] for report in reports] for reports in (before, after)]
    built = [now - then for then, now in zip(*fresh, strict=True)]
    assert all(count > 0 for count in built), f"sessions built per process: {built}; least_conn should use both"
    assert sum(built) == STUDENTS, f"sessions built per process: {built} for {STUDENTS} pages"


def test_static_files_are_served_from_nginx_cache_after_the_first_request(cluster):
    """Bokeh's and Panel's JavaScript reach the app processes once, however many students ask."""
    import urllib.request

    def fetch(path: str) -> tuple[str, bytes, str]:
        request = urllib.request.Request(cluster.url + path, headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.headers.get("X-Cache-Status", ""), reply.read(), reply.headers.get("Content-Encoding", "")

    path = "/static/extensions/panel/panel.min.js"
    first, body, _ = fetch(path)
    second, again, encoding = fetch(path)
    assert first in ("MISS", "HIT") and second == "HIT", (first, second)
    assert again == body and len(body) > 10_000
    assert encoding == "gzip", "the JavaScript goes out compressed"


def test_nginx_keeps_the_gzipped_and_the_plain_copy_apart(cluster):
    """The app gzips Bokeh's files itself (app.web.delivery.compression); a client without gzip still gets them
    plain."""
    import gzip
    import urllib.request

    from bokeh.settings import settings

    path = "/static/js/bokeh-widgets.min.js"
    on_disk = (Path(settings.bokehjs_path()) / "js" / "bokeh-widgets.min.js").read_bytes()
    answers = {}
    for accept in ("gzip", "identity", "gzip", "identity"):
        request = urllib.request.Request(cluster.url + path, headers={"Accept-Encoding": accept})
        with urllib.request.urlopen(request, timeout=10) as reply:
            answers[accept] = (reply.headers.get("Content-Encoding"), reply.headers.get("X-Cache-Status"), reply.read())
    packed_encoding, packed_cache, packed = answers["gzip"]
    plain_encoding, plain_cache, plain = answers["identity"]
    assert packed_encoding == "gzip" and gzip.decompress(packed) == on_disk
    assert plain_encoding is None and plain == on_disk
    assert packed_cache == plain_cache == "HIT", (packed_cache, plain_cache)


def test_nginx_keeps_the_brotli_copy_apart_and_never_keeps_gzip_for_a_browser_taking_brotli(cluster):
    """A browser's Accept-Encoding gets brotli through nginx's cache once the app has made it
    (app.web.delivery.brotli_store)."""
    import urllib.request

    import brotli
    from bokeh.settings import settings

    path = "/static/js/bokeh-tables.min.js"
    on_disk = (Path(settings.bokehjs_path()) / "js" / "bokeh-tables.min.js").read_bytes()

    def fetch() -> tuple[str | None, str | None, bytes]:
        request = urllib.request.Request(cluster.url + path, headers={"Accept-Encoding": "gzip, deflate, br, zstd"})
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.headers.get("Content-Encoding"), reply.headers.get("X-Cache-Status"), reply.read()

    wait_until(lambda: fetch()[0] == "br")
    encoding, cache, body = fetch()
    assert encoding == "br" and cache == "HIT", (encoding, cache)
    assert brotli.decompress(body) == on_disk


@pytest.mark.parametrize(
    ("path", "status", "expected"),
    [
        ("/embed/queue", 200, {"frame-ancestors": ["*"], "X-Frame-Options": []}),
        (f"/embed/{EXERCISE[1:]}", 200, {"frame-ancestors": ["*"], "X-Frame-Options": []}),
        ("/instructor", 200, {"frame-ancestors": ["'none'"], "X-Frame-Options": ["DENY"]}),
        ("/instructor/export.csv", 404, {"frame-ancestors": ["'none'"], "X-Frame-Options": ["DENY"]}),  # class off
        ("/queue", 200, {"frame-ancestors": ["'self'"], "X-Frame-Options": ["SAMEORIGIN"]}),
    ],
)
def test_the_framing_headers_pass_through_nginx_once(cluster, path, status, expected):
    """The app's headers (app.web.frame_headers, app.web.security_headers) reach the browser through nginx,
    neither hidden nor doubled."""
    import urllib.error
    import urllib.request

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(cluster.url + path, timeout=30) as reply:
            answer = (reply.status, reply.headers)
    except urllib.error.HTTPError as error:
        answer = (error.code, error.headers)
    assert answer[0] == status, path
    policies = answer[1].get_all("Content-Security-Policy") or []
    assert len(policies) == 1, (path, policies)
    ancestors = [d.strip().removeprefix("frame-ancestors ") for d in policies[0].split(";") if "frame-ancestors" in d]
    assert ancestors == expected["frame-ancestors"], path
    assert (answer[1].get_all("X-Frame-Options") or []) == expected["X-Frame-Options"], path
    for name in ("X-Content-Type-Options", "Referrer-Policy"):
        assert len(answer[1].get_all(name) or []) == 1, (path, name)


def test_another_site_frames_a_lab_through_nginx(page, cluster):
    """A course site's frame of /embed/queue through nginx: the lab comes to life (its websocket goes through
    nginx from inside the frame)."""
    site = OtherSite()
    thread = threading.Thread(target=site.server.serve_forever, daemon=True)
    thread.start()
    try:
        page.goto(site.framing("/queue.html", f"{cluster.url}/embed/queue", "Queue lab"))
        lab = page.frame_locator('iframe[title="Queue lab"]').get_by_role("region", name="Queue lab")
        expect(lab.get_by_role("status").first).to_contain_text("t = ")
        before = reading(lab, "t")
        lab.get_by_role("button", name="Step").click()
        wait_for_reading(lab, "t", before + 1)
    finally:
        site.server.shutdown()
        site.server.server_close()
        thread.join(timeout=10)
