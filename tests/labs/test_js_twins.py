"""The browser's JavaScript twins of Python rules, checked under Node against one table of cases.

``tests/js_cases.py`` computes the table from the Python functions (figure formats, readout
templates, Play's sampling, reveal and bar clipping, the roofline hover); it is kept in
``tests/fixtures/js_twins.json``; ``node --test tests/js/`` checks the page's own files
(``labs/ui/assets/*.js``) against it, and ``app/upstream/assets/early_connection.js`` against a fake
socket. Node comes with npm, which ``make test`` needs anyway: these tests skip without it, except
where browsers are required (``OVERLAP_REQUIRE_BROWSER=1``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.js_cases import FIXTURE, as_json, cases

ROOT = Path(__file__).resolve().parents[2]


def node_or_skip() -> str:
    """The ``node`` executable; without it the test skips, or fails where browsers are required."""
    node = shutil.which("node")
    if node is None:
        message = "node is not installed (Debian: apt-get install nodejs npm)"
        if os.environ.get("OVERLAP_REQUIRE_BROWSER"):
            pytest.fail(message)
        pytest.skip(message)
    return node


def test_the_case_table_is_what_python_computes():
    written = FIXTURE.read_text(encoding="utf-8")
    assert json.loads(written) == json.loads(as_json(cases())), (
        "tests/fixtures/js_twins.json is out of date: `.venv/bin/python -m tests.js_cases` writes it again"
    )


def test_the_javascript_twins_pass_their_node_tests():
    result = subprocess.run(
        [node_or_skip(), "--test", "--test-reporter=tap", "tests/js/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout and "# pass 0" not in result.stdout, result.stdout[-2000:]


def test_every_browser_file_is_package_data():
    """A non-editable install (a wheel) carries every file the pages read (.js, .css, .html), not only the Python.

    Matched as setuptools globs them (``*`` stays within one folder), not as fnmatch, where ``*`` also
    crosses ``/`` and a file in a subfolder would seem carried.
    """
    import tomllib

    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    carried = {
        path
        for package, patterns in package_data.items()
        for pattern in patterns
        for path in (ROOT / Path(*package.split("."))).glob(pattern)
    }
    read = [
        path
        for suffix in ("js", "css", "html")
        for path in [*ROOT.glob(f"app/**/*.{suffix}"), *ROOT.glob(f"labs/**/*.{suffix}")]
    ]
    assert read
    for path in sorted(read):
        assert path in carried, f"{path.relative_to(ROOT)} is not in pyproject.toml [tool.setuptools.package-data]"
