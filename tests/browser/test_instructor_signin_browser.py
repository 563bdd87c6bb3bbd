"""The instructor's sign-in limit in Chromium: tries from many tabs count together, and HTTP shares the count.

A server of its own (``python -m app`` with a class database), so that no other test's tries count.
Each tab is a session of its own; past the limit the page says how long to wait, the right token is
not checked, and the data over HTTP from the same address answers 429 too.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from app.classroom.limits import SIGN_IN_FAILURES_PER_ADDRESS
from tests.conftest import LiveServer, serve_with_class

pytestmark = pytest.mark.browser

TOKEN = "a-test-token-for-the-sign-in-limit"


@pytest.fixture(scope="module")
def class_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from serve_with_class(tmp_path_factory, "signin", TOKEN)


def test_tries_from_many_tabs_count_together_and_http_shares_the_limit(browser: Browser, class_server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    errors: list[str] = []

    def try_in_a_new_tab(typed: str):
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(class_server.url + "/instructor")
        field = page.get_by_role("textbox", name="Instructor token")
        expect(field).to_be_editable()
        field.fill(typed)
        page.get_by_role("button", name="Sign in").click()
        return page

    for n in range(SIGN_IN_FAILURES_PER_ADDRESS):
        page = try_in_a_new_tab(f"guess number {n}")
        expect(page.get_by_role("alert")).to_contain_text("That is not the instructor token")
        page.close()
    page = try_in_a_new_tab(TOKEN)  # the right token, past the limit: refused without being checked
    expect(page.get_by_role("alert")).to_contain_text(re.compile(r"Too many tries; wait \d+ s\."))
    expect(page.get_by_role("region", name="Class results")).to_have_count(0)

    request = urllib.request.Request(
        class_server.url + "/instructor/export.csv", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=60)
    assert refused.value.code == 429 and int(refused.value.headers["Retry-After"]) >= 1

    log = class_server.log.read_text()
    failed = re.findall(r"instructor sign-in failed from (\S+) on /instructor$", log, re.MULTILINE)
    assert len(failed) == SIGN_IN_FAILURES_PER_ADDRESS and set(failed) <= {"127.0.0.1", "::1"}
    assert "guess number" not in log and TOKEN not in log
    assert not errors, errors
    context.close()
