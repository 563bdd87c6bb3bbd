"""One student, one vote, through a real page: a script that changes the id before every lock still votes once.

The review's attack (security-v6 M1) in Chromium against ``python -m app`` with a class database:
the page's own data event is captured from one real Lock click, then sent again a few hundred times
with a fresh anonymous id set on the page's progress model before each, as a script in the page
can. The class keeps the one vote of the first id.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from app.course.content import load_lessons
from tests.conftest import LiveServer, serve_with_class

pytestmark = pytest.mark.browser

TOKEN = "a-test-token-for-one-vote-a-round"
LESSON = next(lesson for lesson in load_lessons() if lesson.slug == "overlap")
EXERCISE = LESSON.exercise("growth")
KEY = f"{LESSON.slug}/{EXERCISE.id}"
LOCKS = 300

CAPTURE = """() => {
  const manager = Bokeh.documents[0].event_manager
  const send = manager.send_event.bind(manager)
  manager.send_event = (event) => {
    if (event.event_name === "data_event" && event.data && event.data.action === "lock" && !window.captured) {
      window.captured = {Event: event.constructor, model: event.origin, data: event.data}
    }
    return send(event)
  }
}"""

FLOOD = """(count) => {
  const progress = [...Bokeh.documents[0].all_models].find((m) => "storage_key" in m && "student" in m)
  const {Event, model, data} = window.captured
  const hex = (b) => b.toString(16).padStart(2, "0")
  const fresh = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), hex).join("")
  for (let n = 0; n < count; n++) {
    progress.student = fresh()
    model.trigger_event(new Event({...data, text: String(2 + (n % 3))}))
  }
  model.trigger_event(new Event({...data, text: "not a number"}))  // last: its refusal shows once all are handled
}"""


@pytest.fixture(scope="module")
def class_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from serve_with_class(tmp_path_factory, "votes", TOKEN)


def rounds(server: LiveServer) -> list[dict]:
    request = urllib.request.Request(
        f"{server.url}/instructor/rounds.json?exercise={KEY}", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=60) as reply:
        return json.loads(reply.read())["rounds"]


def test_a_page_script_changing_the_id_before_every_lock_still_votes_once(browser: Browser, class_server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{class_server.url}/lesson?id={LESSON.slug}&exercise={EXERCISE.id}")
    card = page.get_by_role("region", name=f"Exercise: {EXERCISE.title}")
    expect(card).to_contain_text("shared anonymously with the instructor")
    page.evaluate(CAPTURE)
    card.get_by_role("textbox", name="Your prediction").fill("1")
    card.get_by_role("button", name="Lock prediction").click()
    expect(card).to_contain_text("Shared anonymously with the instructor (round 1).")
    page.evaluate(FLOOD, LOCKS)
    expect(card.get_by_role("alert")).to_contain_text("type it as a number")  # every lock before it was handled
    expect(card).not_to_contain_text("Sharing your prediction with the instructor…")  # nothing still on its way
    (only,) = rounds(class_server)
    assert only["predictions"] == [1.0]
    assert not errors, errors
    context.close()
    assert "Traceback" not in class_server.log.read_text()
