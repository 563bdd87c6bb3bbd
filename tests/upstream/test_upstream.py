"""app.upstream: one version-checked install() for every change to a library's internals.

Each check that installs runs in a fresh process: install() works once per process, and the suite's
own process has every fix installed (tests/conftest.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from app import upstream
from app.upstream import FIXES, Fix, why_not
from devtools.ports import free_port
from tests.waiting import poll

ROOT = Path(__file__).resolve().parents[2]

LIBRARY_FUNCTIONS = """
import asyncio
import bokeh.embed.wrappers as wrappers
import bokeh.model.util as model_util
import panel.io.document as panel_document
import panel.io.server as panel_server
import panel.reactive as panel_reactive
from bokeh.core.has_props import HasProps
from panel.template.base import BasicTemplate
from panel.widgets import FileDropper
from param.parameterized import Parameter, ParameterizedMetaclass

def library_functions():
    return {
        "HasProps.__init__": HasProps.__init__,
        "HasProps.query_properties_with_values": HasProps.query_properties_with_values,
        "visit_immediate_value_references": model_util.visit_immediate_value_references,
        "visit_value_and_its_immediate_references": model_util.visit_value_and_its_immediate_references,
        "_dispatch_msgs": panel_document._dispatch_msgs,
        "_garbage_collect": panel_document._garbage_collect,
        "server_html_page_for_session": panel_server.server_html_page_for_session,
        "_ONLOAD": wrappers._ONLOAD,
        "Handle._run": asyncio.events.Handle._run,
        "BasicTemplate._init_doc": BasicTemplate.__dict__["_init_doc"],
        "BasicTemplate._build_layout": BasicTemplate._build_layout,
        "ReactiveCustomBase._set_on_model": panel_reactive.ReactiveCustomBase._set_on_model,
        "ReactiveCustomBase._patch_datamodel_ref": vars(panel_reactive.ReactiveCustomBase)["_patch_datamodel_ref"],
        "ParameterizedMetaclass.__init__": ParameterizedMetaclass.__init__,
        "Parameter.__getattribute__": Parameter.__dict__.get("__getattribute__"),
        "Parameter.__new__": Parameter.__dict__.get("__new__"),
        "FileDropper._process_event": FileDropper._process_event,
        "FileDropper._cleanup": FileDropper._cleanup,
    }
"""


def run_python(code: str, **env: str) -> dict:
    """Run ``code`` in a fresh interpreter in the repository; it prints one JSON object, returned."""
    done = subprocess.run(
        [sys.executable, "-c", LIBRARY_FUNCTIONS + code],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]) | {"stderr": done.stderr}


def test_importing_every_module_of_the_app_changes_no_library():
    said = run_python("""
import importlib, json, pkgutil
import app
before = library_functions()
for module in pkgutil.walk_packages(app.__path__, "app."):
    # __main__ runs the server or the trace CLI; the panel serve plugin installs on import, by design
    if not module.name.endswith(("__main__", "panel_plugin")):
        importlib.import_module(module.name)
after = library_functions()
print(json.dumps({"changed": [name for name in before if before[name] is not after[name]]}))
""")
    assert said["changed"] == []


def test_install_installs_every_fix_once_on_the_versions_checked():
    said = run_python("""
import json
from app import upstream
before = library_functions()
first = upstream.install()
middle = library_functions()
second = upstream.install()
after = library_functions()
print(json.dumps({
    "first": first, "second": second, "report": upstream.report(),
    "changed": [name for name in before if before[name] is not middle[name]],
    "again": [name for name in middle if middle[name] is not after[name]],
}))
""")
    assert said["first"] == said["second"] == said["report"]["installed"]
    assert set(said["first"]) == {fix.name for fix in FIXES if not fix.only_if}
    assert said["report"]["skipped"] == {}
    assert set(said["changed"]) == {
        "HasProps.__init__",
        "HasProps.query_properties_with_values",
        "visit_immediate_value_references",
        "visit_value_and_its_immediate_references",
        "_dispatch_msgs",
        "_garbage_collect",
        "_ONLOAD",
        "server_html_page_for_session",
        "BasicTemplate._init_doc",
        "ReactiveCustomBase._set_on_model",
        "ReactiveCustomBase._patch_datamodel_ref",
        "ParameterizedMetaclass.__init__",
        "Parameter.__getattribute__",
        "Parameter.__new__",
        "FileDropper._process_event",
        "FileDropper._cleanup",
    }
    assert said["again"] == []  # idempotent


def test_on_newer_libraries_nothing_is_changed_and_one_line_says_what_was_skipped():
    said = run_python("""
import json
from app import upstream
before = library_functions()
installed = upstream.install(versions={"panel": "1.10.0", "bokeh": "3.10.0", "param": "2.5.0", "python": "3.11"})
after = library_functions()
from app.upstream import early_connection, routes_first
print(json.dumps({
    "installed": installed, "report": upstream.report(),
    "changed": [name for name in before if before[name] is not after[name]],
    "early_connection": str(early_connection.script_html("a-token")),
    "routes_first": routes_first.add_first(object(), []),
}))
""")
    assert said["installed"] == [] and said["changed"] == []
    assert said["early_connection"] == "" and said["routes_first"] is False  # stock: Bokeh's socket, Bokeh's routes
    skipped = said["report"]["skipped"]
    assert set(skipped) == {fix.name for fix in FIXES if not fix.only_if}
    assert skipped["lean_models"] == "checked on bokeh >=3.9.2,<3.10, found 3.10.0"
    assert skipped["panel_write_queue"] == "checked on panel >=1.9.4,<1.10, found 1.10.0"
    lines = [line for line in said["stderr"].splitlines() if "app.upstream" in line]
    assert len(lines) == 1, said["stderr"]
    assert "panel 1.10.0" in lines[0] and "bokeh 3.10.0" in lines[0] and "lean_models" in lines[0]
    for fix in FIXES:  # the log says what the course loses, not "only slower"
        if not fix.only_if:
            assert fix.consequence and fix.consequence in lines[0], fix.name
    assert "only slower" not in lines[0]


def test_a_post_release_inside_the_range_keeps_every_fix():
    said = run_python("""
import json
from app import upstream
installed = upstream.install(versions={"panel": "1.9.4.post1", "bokeh": "3.9.2", "param": "2.4.2", "python": "3.11"})
print(json.dumps({"installed": installed}))
""")
    assert set(said["installed"]) == {fix.name for fix in FIXES if not fix.only_if}


def test_every_fixs_range_holds_the_versions_pyproject_pins():
    import tomllib

    pins = {}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for requirement in project["dependencies"]:
        name, _, version = requirement.partition("==")
        if version:
            pins[name.strip()] = version.strip()
    assert {"panel", "bokeh", "param"} <= set(pins)
    python_range = project["requires-python"]
    for fix in FIXES:
        for library, checked in fix.checked_on:
            if library == "python":
                assert checked == python_range, (fix.name, checked, python_range)
            else:
                assert upstream.in_range(pins[library], checked), (fix.name, library, pins[library], checked)


def test_the_server_starts_and_serves_every_page_kind_where_the_private_names_are_gone(tmp_path):
    """A Panel without the private names the fixes read: those fixes are skipped and said, every page answers."""
    port = free_port()
    script = f"""
import runpy, sys
import panel.io.document as document
from bokeh.server.server import BaseServer
from panel.template.base import BasicTemplate
for name in ("_garbage_collect", "_dispatch_msgs", "_WRITE_MSGS"):
    delattr(document, name)
# a Bokeh whose server keeps its Tornado application elsewhere, and a Panel whose template method has
# another signature: the same objects, reached through code that no longer names what the fixes read
bokeh_init, panel_init_doc = BaseServer.__init__, BasicTemplate._init_doc
BaseServer.__init__ = lambda self, *args, **kwargs: bokeh_init(self, *args, **kwargs)
BasicTemplate._init_doc = lambda self, *args, **kwargs: panel_init_doc(self, *args, **kwargs)
sys.argv = ["app", "--port", "{port}", "--address", "127.0.0.1"]
runpy.run_module("app", run_name="__main__")
"""
    log = tmp_path / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    try:
        base = f"http://127.0.0.1:{port}"

        def healthy() -> dict | None:
            if server.poll() is not None:
                raise AssertionError(log.read_text())
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=30) as reply:
                    return json.load(reply)
            except urllib.error.HTTPError as starting:
                return json.load(starting)
            except (urllib.error.URLError, ConnectionError):
                return None

        poll(healthy, timeout=300, what="/healthz answering")  # it answers 503 "starting" while it warms up
        poll(lambda: healthy()["status"] == "ok", timeout=300, what="/healthz saying ok")
        said = healthy()["upstream"]
        assert set(said["skipped"]) == {"collector", "panel_write_queue", "routes_first", "template_freeze"}, said
        assert "no panel.io.document._garbage_collect" in said["skipped"]["collector"]
        assert "no longer keeps its Tornado application as _tornado" in said["skipped"]["routes_first"]
        assert "no longer takes the document first" in said["skipped"]["template_freeze"]
        for path in (
            "/",
            "/lesson?id=overlap",
            "/lesson?id=buckets&exercise=growth",
            "/queue",
            "/roofline",
            "/timeline",
            "/trace",
            "/embed/queue",
            "/embed/lesson?id=overlap&exercise=growth",
        ):
            with urllib.request.urlopen(base + path, timeout=120) as reply:
                assert reply.status == 200 and b"<html" in reply.read().lower(), path
                if path.startswith("/embed/"):  # Tornado's transforms, passed the public way, still run
                    policy = reply.headers["Content-Security-Policy"]
                    assert policy.endswith("; frame-ancestors *") and "script-src 'self'" in policy, path
        # without routes_first, Bokeh's own routes answer: the page's notice, and the static files as they are
        with urllib.request.urlopen(f"{base}/lesson?id=no-such-lesson", timeout=120) as reply:
            assert reply.status == 200 and b"<title>No such lesson" in reply.read()
        with urllib.request.urlopen(f"{base}/static/js/bokeh.min.js", timeout=120) as reply:
            assert reply.status == 200 and reply.headers.get("Content-Encoding") is None
        assert "Traceback" not in log.read_text()
        assert "panel_write_queue (no panel.io.document._dispatch_msgs" in log.read_text()
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_fix_named_in_the_environment_is_skipped_and_said():
    said = run_python(
        """
import json
from app import upstream
before = library_functions()
upstream.install()
after = library_functions()
print(json.dumps({"report": upstream.report(), "changed": [n for n in before if before[n] is not after[n]]}))
""",
        OVERLAP_UPSTREAM_SKIP="lean_models, lean_references",
    )
    assert said["report"]["skipped"] == {
        "lean_models": "skipped by OVERLAP_UPSTREAM_SKIP",
        "lean_references": "skipped by OVERLAP_UPSTREAM_SKIP",
    }
    assert "HasProps.__init__" not in said["changed"] and "visit_immediate_value_references" not in said["changed"]
    assert "visit_value_and_its_immediate_references" not in said["changed"]
    assert "HasProps.query_properties_with_values" in said["changed"]


def test_what_needs_python_m_app_or_one_thread_is_refused_elsewhere():
    versions = upstream.found_versions()
    collector = next(fix for fix in FIXES if fix.name == "collector")
    assert why_not(collector, versions, "panel serve", frozenset(), 0) == "only under python -m app"
    assert why_not(collector, versions, "app", frozenset(), 0) == ""
    assert (
        why_not(collector, versions, "app", frozenset(), 4) == "assumes one thread; Panel runs callbacks on 4 threads"
    )
    assert why_not(Fix("x", (("python", "==3.10"),)), versions, "app", frozenset(), 0).startswith("checked on python")


def test_every_fix_is_a_module_with_an_install_and_documented():
    documented = (ROOT / "docs" / "upstream-fixes.md").read_text(encoding="utf-8")
    for fix in FIXES:
        module = __import__(f"app.upstream.{fix.name}", fromlist=["install"])
        assert callable(module.install), fix.name
        assert f"`{fix.name}`" in documented, f"docs/upstream-fixes.md has no entry for {fix.name}"


@pytest.mark.parametrize("tests", [["tests/web/test_serving_settings.py", "tests/upstream/test_template_freeze.py"]])
def test_every_page_document_checks_out_with_every_fix_skipped(tests):
    """The suite's page-document checks (Bokeh's validation, the template's models) without any fix."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
        cwd=ROOT,
        env={**os.environ, "OVERLAP_UPSTREAM_SKIP": "all"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout


def test_healthz_lists_what_is_installed(live_server):
    def report() -> dict | None:
        try:
            with urllib.request.urlopen(f"{live_server.url}/healthz", timeout=30) as reply:
                return json.load(reply)
        except urllib.error.HTTPError as starting:  # 503 until the cached pages are built
            return None if starting.code == 503 else starting

    poll(report, what="/healthz answering 200")
    said = report()["upstream"]
    assert set(said["installed"]) == {fix.name for fix in FIXES if not fix.only_if}
    assert said["skipped"] == {}


# What the app may not read of a library outside app/upstream (architecture review v5, rows 11-19): the
# private names it once reached, as they would be written in Python or in the pages' JavaScript.
REACHES = {
    ".py": (
        "._template_variables",
        "._render_variables",
        "def _update_vars",
        "def _init_doc",
        "._tornado",
        "._applications",
        "self._headers",
        "gc.freeze(",
    ),
    ".js": ("shadow_el", "button_el", "window.WebSocket ="),
}


def test_no_module_outside_app_upstream_reaches_into_a_library():
    found = []
    for folder in ("app", "labs"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in REACHES or "upstream" in path.relative_to(ROOT).parts[:2]:
                continue
            text = path.read_text(encoding="utf-8")
            found += [f"{path.relative_to(ROOT)}: {name}" for name in REACHES[path.suffix] if name in text]
    assert found == []


def test_app_upstream_imports_nothing_else_of_the_app():
    import ast

    found = []
    for path in sorted((ROOT / "app" / "upstream").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            found += [f"{path.name}: {name}" for name in names if name.split(".")[0] == "app"]
    assert [line for line in found if not line.split(": ")[1].startswith("app.upstream")] == []
