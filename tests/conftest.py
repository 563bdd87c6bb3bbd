"""Fixtures: a live server running the real app, and a Chromium page that fails on any error."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from playwright.sync_api import expect

from app import upstream
from devtools.ports import free_port
from devtools.serving import NotStarted, start_server
from tests.chromium import launch
from tests.waiting import STUCK_AFTER_S, poll, settles

upstream.install()  # the library fixes, as python -m app installs them (app.upstream)

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"

# Every expect() waits on state for as long as a stuck page would take, never a fast page's time: on
# a slow or busy machine the page gets there later, and a test waits for it instead of failing.
expect.set_options(timeout=STUCK_AFTER_S * 1000)

# Hypothesis' per-example deadline (200 ms) and its too-slow health check are timed assertions: on a
# busy 2-core machine one example of a model test took 267 ms and failed. The suite asserts no times.
settings.register_profile("any-machine", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("any-machine")


@dataclass
class LiveServer:
    """The app served by ``python -m app`` in a subprocess."""

    url: str
    log: Path
    process: subprocess.Popen


def serve(command: list[str], port: int, log: Path, env: dict[str, str] | None = None) -> LiveServer:
    """Start a server with ``command`` in the repository, output to ``log``; return once it answers.

    ``env`` adds to (or overrides) this process's environment for the server. Fails the test
    (killing the process) if it exits or does not answer ``/`` within 120 s.
    """
    url = f"http://localhost:{port}"
    try:
        with log.open("w") as sink:
            process = start_server(
                command, url + "/", sink, env=env, timeout=2 * STUCK_AFTER_S, request_timeout=30, settles=settles
            )
    except NotStarted as error:
        pytest.fail(f"{error}:\n{log.read_text()}")
    return LiveServer(url=url, log=log, process=process)


README_PANEL_SERVE = re.compile(r"`(\.venv/bin/panel serve [^`]+)`")


def readme_panel_serve_command() -> str:
    """The `panel serve` command as the README gives it."""
    match = README_PANEL_SERVE.search((ROOT / "README.md").read_text(encoding="utf-8"))
    assert match, "the README no longer gives a `.venv/bin/panel serve …` line"
    return match.group(1)


def serve_readme_panel(tmp_path_factory: pytest.TempPathFactory, folder: str) -> Iterator[LiveServer]:
    """Run the README's `panel serve` line through a shell (so its glob expands) on a free port."""
    port = free_port()
    log = tmp_path_factory.mktemp(folder) / "server.log"
    server = serve(["bash", "-c", f"exec {readme_panel_serve_command()} --port {port}"], port, log)
    try:
        yield server
    finally:
        server.process.terminate()
        server.process.wait(timeout=10)


def serve_with_class(tmp_path_factory: pytest.TempPathFactory, name: str, token: str) -> Iterator[LiveServer]:
    """``python -m app`` with a SQLite class database of its own and ``token`` as the instructor's, on a free port.

    For a module-scoped fixture: ``yield from serve_with_class(tmp_path_factory, "votes", TOKEN)``.
    """
    folder = tmp_path_factory.mktemp(name)
    port = free_port()
    command = [sys.executable, "-m", "app", "--port", str(port), "--class-db", f"sqlite:///{folder / 'class.db'}"]
    server = serve(command, port, folder / "server.log", env={"INSTRUCTOR_TOKEN": token})
    try:
        yield server
    finally:
        server.process.terminate()
        server.process.wait(timeout=10)


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    server = serve([sys.executable, "-m", "app", "--port", str(port)], port, log)
    yield server
    server.process.terminate()
    server.process.wait(timeout=10)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - the test extra installs it
        if os.environ.get("OVERLAP_REQUIRE_BROWSER"):
            raise
        pytest.skip("playwright is not installed")
    with sync_playwright() as playwright:
        try:
            chromium = launch(playwright)
        except Exception as error:  # no browser on this machine
            if os.environ.get("OVERLAP_REQUIRE_BROWSER"):
                raise
            pytest.skip(f"no Chromium to drive: {error}")
        yield chromium
        chromium.close()


def protocol_header(payload: object) -> dict | None:
    """A websocket frame's Bokeh message header (a JSON object with a msgtype), or None for any other frame."""
    if not isinstance(payload, str):
        return None
    try:
        header = json.loads(payload)
    except ValueError:
        return None
    return header if isinstance(header, dict) and "msgtype" in header else None


@dataclass
class WebsocketLog:
    """Bokeh protocol messages seen on the page's websocket, in order, with the time they passed.

    Playwright's sync API delivers frame events only while the test is inside a Playwright call,
    so tests wait on it with ``tests.waiting.poll(..., page=page)``, never ``time.sleep``.
    """

    messages: list[tuple[float, str, str]] = field(default_factory=list)

    def record(self, direction: str, payload: object) -> None:
        header = protocol_header(payload)
        if header is not None:
            self.messages.append((time.monotonic(), direction, header["msgtype"]))

    def wait_for_quiet(self, page, seconds: float = 0.5) -> None:
        """Wait until no message has passed for ``seconds`` (earlier edits are all answered)."""

        def quiet() -> bool:
            last = self.messages[-1][0] if self.messages else 0.0
            return time.monotonic() - last >= seconds

        poll(quiet, page=page, what="the websocket going quiet")

    def count(self) -> int:
        """How many messages have passed so far: a mark for :meth:`since`."""
        return len(self.messages)

    def since(self, mark: int, direction: str | None = None) -> list[tuple[str, str]]:
        """The messages (direction, msgtype) after ``mark``, in one direction or both."""
        return [(way, kind) for _, way, kind in self.messages[mark:] if direction in (None, way)]


PHONE = {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
"""A phone as a mobile browser sees it: a page without a viewport tag is laid out ~980 px wide and shrunk."""


@pytest.fixture
def page(browser, live_server: LiveServer, request: pytest.FixtureRequest):
    """A fresh browser page; the test fails on any page error, console error or server traceback."""
    yield from watched_page(browser, live_server, request, viewport={"width": 1280, "height": 900})


@pytest.fixture
def phone(browser, live_server: LiveServer, request: pytest.FixtureRequest):
    """A fresh page in a phone's mobile browser (375 × 812, touch), watched like :func:`page`."""
    yield from watched_page(browser, live_server, request, **PHONE)


def watched_page(browser, live_server: LiveServer, request: pytest.FixtureRequest, **context_options):
    """A page in a new context with ``context_options``, watched for errors.

    The test fails on any page error, console error or server traceback, and a failed test leaves
    a screenshot in ``test-artifacts/``.
    """
    context = browser.new_context(**context_options)
    new_page = context.new_page()
    problems: list[str] = []
    # The stack says which script threw: a message alone named no file in the CI failure of stop 26.
    new_page.on("pageerror", lambda error: problems.append(f"page error: {error}\n{error.stack}"))
    # A test that opens a page meant to answer 404 sets ``page.expects_404 = True``: Chromium logs
    # that answer as a console error, and only that one is then let through.
    new_page.expects_404 = False  # type: ignore[attr-defined]

    def console(message) -> None:
        if message.type != "error":
            return
        if new_page.expects_404 and "status of 404" in message.text:  # type: ignore[attr-defined]
            return
        problems.append(f"console {message.type}: {message.text}")

    new_page.on("console", console)
    websocket = WebsocketLog()

    def watch(ws) -> None:
        ws.on("framesent", lambda payload: websocket.record("sent", payload))
        ws.on("framereceived", lambda payload: websocket.record("received", payload))

    new_page.on("websocket", watch)
    new_page.websocket_log = websocket  # type: ignore[attr-defined]
    new_page.base_url = live_server.url  # type: ignore[attr-defined]
    before = live_server.log.read_text(errors="replace")
    yield new_page
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
        new_page.screenshot(path=str(ARTIFACTS / f"failed-{safe}.png"), full_page=True)
    context.close()
    after = live_server.log.read_text(errors="replace")[len(before) :]
    assert "Traceback" not in after, f"server traceback during the test:\n{after}"
    assert not problems, "browser errors during the test:\n" + "\n".join(problems)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.rep_call = report
    return report


SLOW = {
    # The headless tests of more than about 5 s each (pytest --durations on the 2-core machine, 7 December
    # 2026): make test-fast leaves them out (-m "not slow"), make test runs them. Listed here, by module and
    # name (every parameter of one), so that the list is in one place.
    "tests/classroom/test_one_vote.py": ["test_a_thousand_locks_from_one_session_with_changing_ids_are_one_vote"],
    "tests/site/test_deploy.py": [
        "test_an_app_process_that_dies_while_serving_is_started_again_and_the_rest_go_on",
        "test_the_containers_command_takes_embed_from_as_compose_and_kubernetes_set_it",
        "test_make_serve_cluster_gives_embed_from_to_every_app_process",
        "test_make_serve_cluster_serves_until_a_signal_and_leaves_nothing_running",
    ],
    "tests/site/test_session_signing.py": ["test_the_server_refuses_to_start_with_a_short_key"],
    "tests/trace/test_trace_limits.py": [
        "test_the_default_budget_holds_the_largest_real_trace_and_stops_an_event_flood",
        "test_the_reviews_white_space_bomb_is_refused_after_a_mib_not_read_to_its_end",
    ],
    "tests/trace/test_trace_parse.py": ["test_gzip_bomb_stops_at_the_limit"],
    "tests/trace/test_trace_real.py": ["test_the_reference_finds_every_ddp_trace_and_none_of_the_others"],
    "tests/upstream/test_collector.py": [
        "test_a_sessions_roots_are_its_own_pieces_and_what_came_between_never_another_page"
    ],
    "tests/upstream/test_session_sweep.py": [
        "test_a_walk_stops_at_a_page_still_open_and_finds_the_same_garbage",
        "test_a_discarded_lesson_page_is_freed_and_another_open_one_is_untouched",
    ],
    "tests/upstream/test_upstream.py": [
        "test_every_page_document_checks_out_with_every_fix_skipped",
        "test_importing_every_module_of_the_app_changes_no_library",
        "test_install_installs_every_fix_once_on_the_versions_checked",
        "test_a_post_release_inside_the_range_keeps_every_fix",
    ],
    "tests/web/test_background.py": ["test_trace_parses_filling_their_pool_never_hold_up_the_class_database"],
    "tests/web/test_page_bytes.py": [
        "test_while_brotli_is_being_made_a_browser_gets_gzip_that_only_it_keeps",
        "test_a_browser_taking_brotli_gets_it_once_made_with_its_own_etag",
        "test_the_template_leaves_out_only_bundles_no_page_needs",
    ],
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests named in :data:`SLOW` ``slow``."""
    for item in items:
        module = item.path.relative_to(ROOT).as_posix()
        if getattr(item, "originalname", None) in SLOW.get(module, ()):
            item.add_marker(pytest.mark.slow)
