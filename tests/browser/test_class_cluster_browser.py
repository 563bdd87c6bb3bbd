"""A class of 18 locks predictions through nginx onto two app processes, and one process dies midway.

The cluster ``make serve-cluster`` runs (two ``python -m app`` behind nginx) sharing one SQLite class
database. Twelve students lock a prediction; one app process is killed; the students whose page was
on it are told, reload onto the other process and go on (their vote is already in and stays one);
six more students lock on the survivor. The instructor then sees exactly 18, with the right split.
"""

from __future__ import annotations

import json
import os
import signal
import urllib.request
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from app.course.content import load_lessons
from deploy.cluster import Cluster, ClusterError
from tests.site.test_deploy import free_ports, nginx_or_skip

pytestmark = pytest.mark.browser

TOKEN = "the-cluster-test-instructor-token"
LESSON = next(lesson for lesson in load_lessons() if lesson.slug == "overlap")
EXERCISE = LESSON.exercise("growth")
PATH = f"/lesson?id={LESSON.slug}&exercise={EXERCISE.id}"
BATCH = 6
"""Students a batch: enough that both processes hold pages of the second batch when one dies."""


def prediction_of(student: int) -> str:
    """Two thirds predict 1 (right), one third 2."""
    return "2" if student % 3 == 0 else "1"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    nginx = nginx_or_skip()
    folder = tmp_path_factory.mktemp("class-cluster")
    port, *apps = free_ports(3)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSTRUCTOR_TOKEN", TOKEN)  # inherited by every app process
        cluster = Cluster(
            port=port,
            app_ports=apps,
            nginx=nginx,
            log=folder / "cluster.log",
            app_args=["--class-db", f"sqlite:///{folder / 'class.db'}"],
            start_timeout=60,
        )
        try:
            cluster.start()
        except ClusterError as error:
            pytest.fail(f"{error}\n{(folder / 'cluster.log').read_text(errors='replace')}")
    try:
        yield cluster
    finally:
        cluster.stop()


class Student:
    """One student's browser (a context of its own: its own anonymous id) on the exercise."""

    def __init__(self, browser: Browser, url: str, number: int) -> None:
        self.number = number
        self.context: BrowserContext = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page: Page = self.context.new_page()
        self.closed_sockets = 0
        self.page.on("websocket", lambda ws: ws.on("close", lambda _ws: self._closed()))
        self.page.goto(url + PATH, wait_until="commit")  # the class arrives at once

    def _closed(self) -> None:
        self.closed_sockets += 1

    @property
    def card(self):
        return self.page.get_by_role("region", name=f"Exercise: {EXERCISE.title}")

    def lock(self) -> None:
        expect(self.card).to_contain_text("shared anonymously with the instructor")
        self.card.get_by_role("textbox", name="Your prediction").fill(prediction_of(self.number))
        self.card.get_by_role("button", name="Lock prediction").click()


def rounds(cluster: Cluster) -> list[dict]:
    request = urllib.request.Request(
        f"{cluster.url}/instructor/rounds.json?exercise={LESSON.slug}/{EXERCISE.id}",
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.loads(reply.read())["rounds"]


def test_a_class_and_a_dead_process_lose_no_prediction(browser, cluster):
    first = [Student(browser, cluster.url, n) for n in range(BATCH)]
    for student in first:
        student.lock()
    for student in first:
        expect(student.card).to_contain_text("Shared anonymously with the instructor (round 1).")
        student.context.close()

    second = [Student(browser, cluster.url, n) for n in range(BATCH, 2 * BATCH)]
    for student in second:
        student.lock()
    for student in second:
        expect(student.card).to_contain_text("Shared anonymously with the instructor (round 1).")
    assert len(rounds(cluster)[0]["predictions"]) == 2 * BATCH

    victim = cluster.processes[f"app on port {cluster.app_ports[0]}"]
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait(timeout=30)

    third = [Student(browser, cluster.url, n) for n in range(2 * BATCH, 3 * BATCH)]  # all on the survivor
    for student in third:
        student.lock()
    for student in third:
        expect(student.card).to_contain_text("Shared anonymously with the instructor (round 1).")

    cut_off = [student for student in second if student.closed_sockets]
    assert cut_off, f"least_conn put none of {BATCH} pages on the killed process"
    for student in cut_off:  # told, reloaded onto the other process, and able to go on
        # Told at once; the other process answers /healthz through nginx, so the alert soon says the
        # server is back and offers Reload.
        expect(student.page.get_by_role("alert").filter(has_text="course server")).to_be_visible()
        student.page.get_by_role("button", name="Reload").click()
        # The same tab: the exercise comes back locked (issue 63); the same browser, so the same
        # anonymous id: its vote is in already, and it stays the one counted.
        expect(student.card).to_contain_text("You already shared a prediction in round 1")
        expect(student.card.get_by_role("textbox", name="Your prediction")).to_have_value(prediction_of(student.number))
    for student in second + third:
        student.context.close()

    (only,) = rounds(cluster)
    assert sorted(only["predictions"]) == sorted(float(prediction_of(n)) for n in range(3 * BATCH))

    context = browser.new_context()
    page = context.new_page()
    page.goto(cluster.url + "/instructor")
    page.get_by_role("textbox", name="Instructor token").fill(TOKEN)
    page.get_by_role("button", name="Sign in").click()
    results = page.get_by_role("region", name="Class results")
    expect(results.get_by_role("combobox", name="Exercise")).to_be_enabled()  # built once the token matched
    results.get_by_role("combobox", name="Exercise").select_option(label=f"{LESSON.title}: {EXERCISE.title}")
    expect(results.get_by_role("status").first).to_contain_text(f"locked = {3 * BATCH} · round 1 · answer hidden")
    ones = sum(prediction_of(n) == "1" for n in range(3 * BATCH))
    expect(results.get_by_role("table")).to_contain_text(str(ones))  # the split: 12 predicted 1, 6 predicted 2
    context.close()
