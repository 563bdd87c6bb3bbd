"""The course starts and serves whatever an upgrade does to a private name a fix needs (issue 66, item 1).

For every name a fix declares (:attr:`app.upstream.Fix.needs`), a fresh ``python -m app`` runs on a
library where that name is renamed throughout the library, moved to its class's base, or (for a
function a fix copies) edited (:mod:`tests.upstream.changed_library`); it must serve a lesson page and
a lab page, say the fix it skipped and why on ``/healthz``, and log no traceback. The cases run a few
at a time, each in its own process.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from app.course.library import lessons
from app.upstream import FIXES, Fix
from app.upstream.needs import Need
from devtools.ports import free_port
from labs.registry import registrations
from tests.waiting import STUCK_AFTER_S, poll

ROOT = Path(__file__).resolve().parents[2]
LESSON, LAB = "/lesson?id=overlap", "/queue"


@dataclass(frozen=True)
class Case:
    """One change to one declared name."""

    kind: str
    fix: Fix
    need: Need

    def __str__(self) -> str:
        return f"{self.kind} {self.need} ({self.fix.name})"


def is_private(name: str) -> bool:
    """Whether ``name`` is an underscore name that is not a dunder."""
    return name.startswith("_") and not name.startswith("__")


MOVABLE = """
import json, sys
from app.upstream import FIXES
from tests.upstream.changed_library import holder_of, uses_super
movable = []
for fix in FIXES:
    for need in fix.needs:
        attr = need.name.rsplit(".", 1)[-1]
        holder = holder_of(need.owner(), attr)
        if isinstance(holder, type) and holder.__bases__ != (object,) and not uses_super(vars(holder)[attr]):
            movable.append(str(need))
print(json.dumps(movable))
"""
"""Which declared names a stock library could move to a base class (this process has every fix installed)."""


@cache
def movable() -> frozenset[str]:
    """The declared names held by a class with a base, whose value calls no ``super()`` (stock libraries)."""
    done = subprocess.run([sys.executable, "-c", MOVABLE], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return frozenset(json.loads(done.stdout.splitlines()[-1]))


def cases() -> list[Case]:
    """The table: each declared name edited (a copied function) or renamed, and moved where a class holds it."""
    table = []
    for fix in FIXES:
        if fix.only_if:  # a bench's tool, never in the served app
            continue
        for need in fix.needs:
            attr = need.name.rsplit(".", 1)[-1]
            if need.source:
                table.append(Case("edit", fix, need))
            elif is_private(attr) or str(need) not in movable():
                table.append(Case("rename", fix, need))
            if str(need) in movable() and not need.source:
                table.append(Case("move", fix, need))
    return table


def title_of(path: str) -> str:
    """The title the page at ``path`` has (its lesson's or lab's)."""
    if path.startswith("/lesson"):
        return next(lesson.title for lesson in lessons() if lesson.slug == path.rsplit("=", 1)[-1])
    return next(lab.title for lab in registrations() if f"/{lab.slug}" == path)


def get(url: str) -> tuple[int, str]:
    """The status and body of ``url`` (an HTTP error's too)."""
    try:
        with urllib.request.urlopen(url, timeout=60) as reply:
            return reply.status, reply.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")


def run_case(case: Case, log: Path) -> list[str]:
    """Start the app on the changed library; what went wrong (empty when the case passes)."""
    port = free_port()
    command = [sys.executable, "-m", "tests.upstream.changed_library", case.kind, case.need.module, case.need.name]
    with log.open("w") as out:
        server = subprocess.Popen(
            [*command, "--", "--port", str(port), "--address", "127.0.0.1"],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    problems = []
    try:

        def lesson_answers() -> tuple[int, str] | None:
            if server.poll() is not None:
                raise AssertionError(f"{case}: the app exited {server.returncode}:\n{log.read_text()[-3000:]}")
            try:
                return get(base + LESSON)
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                return None

        poll(lesson_answers, timeout=4 * STUCK_AFTER_S, what=f"{case}: the lesson page answering")
        for path in (LESSON, LAB):
            status, body = get(base + path)
            if status != 200 or title_of(path) not in body:
                problems.append(f"{case}: {path} answered {status} without its title")
        said = json.loads(get(base + "/healthz")[1])["upstream"]
        if case.kind != "move" and str(case.need) not in said["skipped"].get(case.fix.name, ""):
            problems.append(f"{case}: /healthz does not say {case.fix.name} was skipped for it: {said}")
    except AssertionError as error:
        problems.append(str(error))
    finally:
        server.terminate()
        server.wait(timeout=60)
    if "Traceback" in log.read_text():
        problems.append(f"{case}: a traceback in the log:\n{log.read_text()[-3000:]}")
    return problems


def test_the_table_covers_every_declared_name_and_each_kind_of_change():
    table = cases()
    declared = {need for fix in FIXES if not fix.only_if for need in fix.needs}
    assert {case.need for case in table} == declared
    assert {case.kind for case in table} == {"rename", "move", "edit"}
    assert any(str(case) == "move panel.custom.ReactiveESM._render_esm (class_constants)" for case in table)


def test_the_course_serves_its_pages_whatever_is_done_to_a_name_a_fix_needs(tmp_path):
    table = cases()
    with ThreadPoolExecutor(max_workers=4) as pool:
        found = pool.map(lambda numbered: run_case(numbered[1], tmp_path / f"case-{numbered[0]}.log"), enumerate(table))
        problems = [problem for case_problems in found for problem in case_problems]
    assert not problems, "\n".join(problems)
