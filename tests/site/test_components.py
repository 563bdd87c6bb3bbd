"""``/components/...`` never imports a module named by a URL, and the server outlives every such request."""

from __future__ import annotations

import sys
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from app.site.components import servable_component
from devtools.ports import free_port
from tests.conftest import LiveServer, serve
from tests.waiting import poll

HOSTILE_MODULES = [
    "venv.__main__",  # argparse reads the server's argv and exits (security review v6, C1)
    "app.__main__",  # starts a second server on the same port, which exits
    "this",  # prints the Zen of Python: any import runs top-level code
    "antigravity",
    "encodings.mbcs",  # raises on import on Linux
    "__main__",
    "sys",
    "os",
    "panel",  # a real package, but not a component
]
ZEN = "Beautiful is better than ugly"


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server of its own: on a checkout without the fix these requests end it."""
    port = free_port()
    log = tmp_path_factory.mktemp("components") / "server.log"
    server = serve([sys.executable, "-m", "app", "--port", str(port)], port, log)
    poll(lambda: _status(f"{server.url}/healthz") == 200, what="the server's cached pages built")
    yield server
    server.process.terminate()
    server.process.wait(timeout=10)


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=60) as reply:
            return reply.status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.parametrize("module", HOSTILE_MODULES)
def test_a_component_url_imports_nothing_and_the_server_lives(own_server: LiveServer, module: str) -> None:
    for tail in ("x/_css/a", "x/__css__/a.css", "Foo/_resources/css/a"):
        assert _status(f"{own_server.url}/components/{module}/{tail}") == 404
        assert own_server.process.poll() is None, own_server.log.read_text()
        assert _status(f"{own_server.url}/healthz") == 200
    log = own_server.log.read_text(errors="replace")
    assert ZEN not in log
    assert "Cannot start" not in log


def test_a_module_not_yet_imported_stays_unimported() -> None:
    assert "antigravity" not in sys.modules
    assert servable_component("antigravity", "x") is None
    assert "antigravity" not in sys.modules


def test_only_panel_components_templates_and_themes_are_servable() -> None:
    from panel.template import VanillaTemplate
    from panel.theme import Design, Native
    from panel.widgets import Button

    assert servable_component("panel.widgets.button", "Button") is Button
    assert servable_component("panel.template.vanilla", "VanillaTemplate") is VanillaTemplate
    assert servable_component("panel.theme.native", "Native") is Native
    assert servable_component("panel.theme.base", "Design") is Design
    assert servable_component("panel.widgets.button", "param") is None  # a module, not a component
    assert servable_component("os", "path") is None
    assert servable_component("sys", "exit") is None
    assert servable_component("__main__", "main") is None


def test_a_component_file_is_still_served(own_server: LiveServer) -> None:
    """A file a Panel component lists: the route keeps working for what it is for."""
    from panel.template import VanillaTemplate

    css = [str(path).rsplit("/", 1)[-1] for path in VanillaTemplate._css]
    url = f"{own_server.url}/components/panel.template.vanilla/VanillaTemplate/_css/{css[0]}"
    assert _status(url) == 200
    assert _status(f"{own_server.url}/components/panel.template.vanilla/VanillaTemplate/_css/../../../setup.py") in (
        403,
        404,
    )
