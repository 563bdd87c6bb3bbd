"""The Share button under the README's `panel serve` line, with ``PUBLIC_URL`` set in its environment.

``panel serve`` has no ``/embed/…`` pages and no short ``/<slug>`` addresses: the panel shares
``lab?id=<slug>`` and the lesson's link, says that embedding needs the course's own server, and
starts every link with the public URL.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from devtools.ports import free_port
from tests.browser.test_share_browser import EXERCISE, open_share
from tests.conftest import LiveServer, readme_panel_serve_command, serve

pytestmark = pytest.mark.browser

PUBLIC = "https://course.example.org/overlap"


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The README's `panel serve` line on a free port, told its public URL through the environment."""
    port = free_port()
    log = tmp_path_factory.mktemp("panel-serve-share") / "server.log"
    server = serve(
        ["bash", "-c", f"exec {readme_panel_serve_command()} --port {port}"], port, log, {"PUBLIC_URL": PUBLIC}
    )
    try:
        yield server
    finally:
        server.process.terminate()
        server.process.wait(timeout=10)


def test_a_lab_shares_its_lab_address_under_the_public_url_and_no_embed_code(page: Page, live_server):
    page.goto(f"{live_server.url}/lab?id=queue")
    panel = open_share(page.get_by_role("main"))
    expect(panel.get_by_role("textbox", name="Link")).to_have_value(f"{PUBLIC}/lab?id=queue")
    expect(panel).to_contain_text("Embedding in another site needs the course's own server")
    expect(panel.get_by_role("textbox", name="Embed code")).to_have_count(0)
    expect(panel.get_by_role("button", name="Copy embed code")).to_have_count(0)


def test_an_exercise_shares_its_link_under_the_public_url(page: Page, live_server):
    page.goto(f"{live_server.url}/lesson?id=overlap")
    panel = open_share(page.get_by_role("region", name=EXERCISE))
    expect(panel.get_by_role("textbox", name="Link")).to_have_value(f"{PUBLIC}/lesson?id=overlap&exercise=growth")
    expect(panel.get_by_role("textbox", name="Embed code")).to_have_count(0)
