"""A lost connection, in Chromium: the server is killed under an open lesson, then started again.

The page must say so (``role="alert"``) within a few seconds, turn off the controls that need the
server, offer "Reload" once the server answers on the same port, and come back after the reload
with the exercise progress (localStorage) and the lab's typed values (sessionStorage) in place.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import panel as pn
import pytest
from playwright.sync_api import Page, expect

from app.web.connection import ConnectionWatch
from app.web.shell import page as course_page
from devtools.ports import free_port
from tests.conftest import ARTIFACTS, LiveServer, serve
from tests.student import step_until, type_value
from tests.waiting import nothing_happens_for

LESSON = "/lesson?id=overlap"
FINISHED = "Exercise: A backlog that keeps growing"  # reset, λ = 4, μ = 3, predict 1, run to t = 2
DRAFTED = "Exercise: A backlog that empties"
LOST = "Connection to the course server lost"


class RestartableServer:
    """``python -m app`` on one fixed port, which a test can kill and start again."""

    def __init__(self, log_dir: Path):
        self.port = free_port()
        self.command = [sys.executable, "-m", "app", "--port", str(self.port)]
        self.log_dir = log_dir
        self.logs: list[Path] = []
        self.server: LiveServer | None = None

    @property
    def url(self) -> str:
        return f"http://localhost:{self.port}"

    def start(self) -> None:
        log = self.log_dir / f"server-{len(self.logs)}.log"
        self.logs.append(log)
        self.server = serve(self.command, self.port, log)

    def kill(self) -> None:
        """Kill the process outright (no clean websocket close), as a crash or a pulled cable would."""
        assert self.server is not None
        self.server.process.kill()
        self.server.process.wait(timeout=10)
        self.server = None

    def stop(self) -> None:
        if self.server is not None:
            self.server.process.terminate()
            self.server.process.wait(timeout=10)
            self.server = None

    def tracebacks(self) -> str:
        return "\n".join(log.read_text(errors="replace") for log in self.logs if "Traceback" in log.read_text())


@pytest.fixture
def restartable(tmp_path: Path) -> Iterator[RestartableServer]:
    server = RestartableServer(tmp_path)
    server.start()
    yield server
    server.stop()
    assert not server.tracebacks(), f"server traceback during the test:\n{server.tracebacks()}"


@pytest.fixture
def phone_page(browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A 375 px wide page that fails the test on a page error or a console error.

    Requests that fail while the server is down (the page asking whether it is back) are expected;
    the test sets ``page.offline = True`` for that window.
    """
    context = browser.new_context(viewport={"width": 375, "height": 740})
    new_page = context.new_page()
    new_page.offline = False  # type: ignore[attr-defined]
    problems: list[str] = []

    def console(message) -> None:
        expected = new_page.offline and message.text.startswith("Failed to load resource")  # type: ignore[attr-defined]
        if message.type == "error" and not expected:
            problems.append(f"console error: {message.text}")

    new_page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    new_page.on("console", console)
    yield new_page
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        new_page.screenshot(path=str(ARTIFACTS / "failed-connection.png"), full_page=True)
    context.close()
    assert not problems, "browser errors during the test:\n" + "\n".join(problems)


def finish_growth_exercise(page: Page) -> None:
    """Do the lesson's first exercise with Step, as a student would, up to its verdict.

    Each action waits for the page to show the server's answer before the next: the card ticks the
    step (Reset, λ, μ), the prediction field locks. On a busy machine an answer still on its way when
    the next action is taken redraws the card under it (a typed prediction drawn over by the card's
    answer to μ is locked as nothing, and the run is never judged).
    """
    lab = page.get_by_role("region", name="Queue lab")
    region = page.get_by_role("region", name=FINISHED)
    region.get_by_role("button", name="Start this exercise").click()
    steps = region.get_by_role("listitem")
    expect(steps.first).to_be_visible()
    lab.get_by_role("button", name="Reset").click()
    expect(steps.nth(0)).to_contain_text("(done)")
    type_value(lab, re.compile("^Arrival rate"), "4")
    expect(steps.nth(1)).to_contain_text("(done)")
    type_value(lab, re.compile("^Service rate"), "3")
    expect(steps.nth(2)).to_contain_text("(done)")
    prediction = region.get_by_role("textbox", name="Your prediction")
    prediction.fill("1")
    region.get_by_role("button", name="Lock prediction").click()
    expect(prediction).to_be_disabled()  # locked: the server took the prediction
    expect(lab.get_by_role("button", name="Step")).to_be_enabled()
    step_until(lab, 2)
    expect(region.get_by_role("status")).to_contain_text("Correct")


@pytest.mark.browser
def test_a_lesson_survives_a_server_restart(phone_page: Page, restartable: RestartableServer):
    page = phone_page
    page.goto(restartable.url + LESSON)
    lab = page.get_by_role("region", name="Queue lab")
    expect(lab.get_by_role("status").first).to_contain_text("=")
    expect(page.get_by_role("alert")).to_have_count(0)  # nothing shown while connected

    # Progress (a finished exercise), a prediction locked in another, one value applied, one typed only.
    finish_growth_exercise(page)
    drafted = page.get_by_role("region", name=DRAFTED)
    drafted.get_by_role("button", name="Start this exercise").click()
    drafted.get_by_role("textbox", name="Your prediction").fill("1.5")
    drafted.get_by_role("button", name="Lock prediction").click()
    expect(drafted.get_by_role("textbox", name="Your prediction")).to_be_disabled()
    drafted.get_by_role("button", name="Share", exact=True).click()  # its read-only Link is not a draft
    expect(drafted.get_by_role("textbox", name="Link")).to_have_value(re.compile("exercise="))
    type_value(lab, re.compile("^Arrival rate"), "2.5")
    expect(page.get_by_role("region", name="Queue lab").get_by_label("M/M/1 reference")).to_contain_text(
        "ρ = λ/μ = 0.83"
    )
    lab.get_by_role("textbox", name=re.compile("^Service rate")).fill("3.5")  # no Enter yet
    step = lab.get_by_role("button", name="Step")
    expect(step).to_be_enabled()

    # The server dies: the page says so within seconds and the lab and exercises are off.
    page.offline = True  # type: ignore[attr-defined]
    restartable.kill()
    killed = time.monotonic()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text(LOST)  # on the websocket's close event, not a timer: no time asserted
    print(f"\nalert {time.monotonic() - killed:.2f} s after the server was killed")
    expect(alert).to_contain_text("lesson text still works")
    expect(step).to_be_disabled()
    expect(lab.get_by_role("button", name="Reset")).to_be_disabled()
    expect(lab.get_by_role("button", name="Play")).to_be_disabled()
    expect(lab.get_by_role("textbox", name=re.compile("^Arrival rate"))).to_be_disabled()
    expect(page.get_by_role("region", name=FINISHED).get_by_role("button", name="Start this exercise")).to_be_disabled()
    box = page.get_by_role("group", name="Connection to the course server")
    within = box.bounding_box()
    assert within is not None and within["x"] >= 0 and within["x"] + within["width"] <= 375 + 1, within
    assert page.evaluate("document.documentElement.scrollWidth") <= 376

    # No Reload while nothing answers: the page keeps asking (every 2-3 s) and keeps failing.
    nothing_happens_for(page, 4.5)
    expect(page.get_by_role("button", name="Reload")).to_have_count(0)

    # The server is back on the same port: Reload appears, takes focus, and brings the lesson back.
    restartable.start()
    reload = page.get_by_role("button", name="Reload")
    expect(reload).to_be_visible()
    expect(reload).to_be_focused()
    expect(alert).to_contain_text("The course server is back")
    page.offline = False  # type: ignore[attr-defined]
    reload.click()

    lab = page.get_by_role("region", name="Queue lab")
    expect(lab.get_by_role("status").first).to_contain_text("=")
    expect(page.get_by_role("region", name=FINISHED)).to_contain_text("You got this right before")
    expect(lab.get_by_role("textbox", name=re.compile("^Arrival rate"))).to_have_value("2.5")
    expect(lab.get_by_role("textbox", name=re.compile("^Service rate"))).to_have_value("3.5")
    expect(page.get_by_role("region", name="Queue lab").get_by_label("M/M/1 reference")).to_contain_text(
        "ρ = λ/μ = 0.71"  # 2.5 / 3.5: the server took both values
    )
    drafted = page.get_by_role("region", name=DRAFTED)
    prediction = drafted.get_by_role("textbox", name="Your prediction")
    expect(prediction).to_have_value("1.5")
    expect(prediction).to_be_disabled()  # the running exercise comes back as it was, locked (issue 63)
    expect(page).to_have_url(re.compile(r"[?&]exercise=drain\b"))
    expect(lab.get_by_role("button", name="Reset")).to_be_enabled()
    expect(page.get_by_role("alert")).to_have_count(0)
    assert page.evaluate("sessionStorage.getItem('overlap-lab-restore-v1')") is None


def test_every_page_carries_one_watch():
    """``page()`` puts exactly one :class:`ConnectionWatch` in the header, and it listens for the loss."""
    template = course_page("Any page", pn.pane.Markdown("text"))
    watches = [item for item in template.header.objects if isinstance(item, ConnectionWatch)]
    assert len(watches) == 1
    assert 'on_event("connection_lost"' in ConnectionWatch._esm
    assert "healthz" in ConnectionWatch._esm


@pytest.mark.browser
def test_a_dropped_network_on_a_lab_page(phone_page: Page, restartable: RestartableServer):
    """The browser goes offline (the websocket stays open and silent): the same notice, then Reload."""
    page = phone_page
    page.goto(restartable.url + "/queue")
    lab = page.get_by_role("region", name="Queue lab")
    expect(lab.get_by_role("status").first).to_contain_text("=")
    type_value(lab, re.compile("^Initial backlog"), "6")
    expect(lab.get_by_role("status").first).to_contain_text("backlog = 6.00")

    page.offline = True  # type: ignore[attr-defined]
    page.context.set_offline(True)
    expect(page.get_by_role("alert")).to_contain_text(LOST)
    expect(lab.get_by_role("button", name="Step")).to_be_disabled()
    expect(page.get_by_role("button", name="Reload")).to_have_count(0)

    page.context.set_offline(False)
    reload = page.get_by_role("button", name="Reload")
    expect(reload).to_be_focused()
    page.offline = False  # type: ignore[attr-defined]
    page.keyboard.press("Enter")
    lab = page.get_by_role("region", name="Queue lab")
    expect(lab.get_by_role("status").first).to_contain_text("backlog = 6.00")
    expect(lab.get_by_role("button", name="Step")).to_be_enabled()
