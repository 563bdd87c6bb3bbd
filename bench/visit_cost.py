"""In-process server CPU of one student's visit, with an app.upstream fix and without it, side by side.

The visit is the class bench's (``bench/class_load.py``): the lesson page ``/lesson?id=overlap&exercise=growth``
built and serialized as a server builds a session's first document, then the guided exercise's
clicks as the page sends them (Reset, λ = 4, μ = 3, Lock 1, two Steps, Pause at 3.5 s), checked to end
in "Correct", with Bokeh's settings as ``python -m app`` serves (:mod:`app.web.serving_settings`).
CPU time (``time.process_time``) of the build and of the clicks, no server, no browser:
it isolates Python's work from the network and the event loop, so a busy machine moves it less than a
timed page open. The visits alternate between the fix on and off in one process, so the machine's
drift falls on both alike.

Fixes it can switch: ``lean_params`` (the app's objects share their class's Parameters),
``param_reads`` (a bound Parameter's attributes read without param's per-read call), ``lean_references``
(reference walks that skip what holds no model).

Usage: ``.venv/bin/python -m bench.visit_cost [--rounds 12] [--fix lean_params]``
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from bokeh.model import util as model_util
from panel.io.state import state

from app import upstream
from app.course import exercise as exercise_module
from app.upstream import lean_params, lean_references, param_reads
from app.web import serving_settings
from tests.headless import field, send
from tests.page_documents import page_document

VISIT = "/lesson?id=overlap&exercise=growth"


def switch_lean_params(on: bool) -> None:
    """The app's classes share their Parameters (on) or copy them per object as param does (off)."""
    for cls in lean_params.app_classes():
        lean_params.share_parameters(cls, on)


def switch_param_reads(on: bool) -> None:
    """Bound Parameters read by Python (on) or through param's ``__getattribute__`` (off)."""
    if on:
        param_reads.install()
    else:
        param_reads.uninstall()


def switch_lean_references(on: bool) -> None:
    """Reference walks skip what holds no model and visit values without Bokeh's per-call import (on), or Bokeh's."""
    lean = {
        "visit_immediate_value_references": lean_references.visit_immediate_value_references,
        "visit_value_and_its_immediate_references": lean_references.visit_value_and_its_immediate_references,
    }
    own = {
        "visit_immediate_value_references": lean_references._ORIGINAL,
        "visit_value_and_its_immediate_references": lean_references._ORIGINAL_VALUE,
    }
    for name, function in (lean if on else own).items():
        setattr(model_util, name, function)


SWITCHES: dict[str, Callable[[bool], None]] = {
    "lean_params": switch_lean_params,
    "param_reads": switch_param_reads,
    "lean_references": switch_lean_references,
}


def visit() -> tuple[float, float]:
    """CPU milliseconds of one visit: the first document (build and serialization), then the clicks."""
    runners: list = []
    original = exercise_module.ExerciseRunner.__init__

    def recording(self, *args, **kwargs) -> None:
        original(self, *args, **kwargs)
        runners.append(self)

    exercise_module.ExerciseRunner.__init__ = recording
    try:
        started = time.process_time()
        doc = page_document(VISIT)
        doc.to_json()
        built = time.process_time()
    finally:
        exercise_module.ExerciseRunner.__init__ = original
    runner = next(r for r in runners if r.exercise.id == "growth")
    lab = runner.lab
    state.curdoc = doc
    try:
        send(lab, "reset")
        field(lab, "arrival_rate").input.value = "4"
        field(lab, "service_rate").input.value = "3"
        runner.card.receive({"action": "lock", "text": "1"})
        send(lab, "step")
        send(lab, "step")
        send(lab, "pause", 3.5)
    finally:
        state.curdoc = None
    clicked = time.process_time()
    if not (runner.finished and "Correct" in runner.card.feedback_html):
        raise SystemExit(f"the visit did not end in Correct: {runner.card.feedback_html!r}")
    return 1000 * (built - started), 1000 * (clicked - built)


def main() -> None:
    """Alternate visits with the fix on and off; print the medians side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=12, help="counted visits each way (default 12)")
    parser.add_argument("--fix", choices=sorted(SWITCHES), default="lean_params", help="the fix to switch")
    args = parser.parse_args()
    upstream.install()
    serving_settings.install()  # as python -m app serves: Bokeh's development checks off
    if not upstream.is_installed(args.fix):
        raise SystemExit(f"{args.fix} is not installed here: {upstream.report()['skipped'].get(args.fix)}")
    use = SWITCHES[args.fix]
    figures: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    for round_ in range(args.rounds + 1):
        for on in (True, False) if round_ % 2 else (False, True):
            use(on)
            figure = visit()
            if round_:  # the first round warms both up
                figures[on].append(figure)
    use(True)
    print(f"One student's visit ({VISIT}, the class bench's exercise), in-process CPU, median of {args.rounds}:")
    print(f"  {'':16}{'build':>10}{'clicks':>10}{'visit':>10}")
    for on in (False, True):
        build = statistics.median(b for b, _ in figures[on])
        clicks = statistics.median(c for _, c in figures[on])
        print(f"  {args.fix + (' on' if on else ' off'):16}{build:8.1f} ms{clicks:8.1f} ms{build + clicks:8.1f} ms")
    off = sum(statistics.median(x[i] for x in figures[False]) for i in (0, 1))
    on_ = sum(statistics.median(x[i] for x in figures[True]) for i in (0, 1))
    print(f"  the visit with the fix: {on_ / off:.2f} of without")


if __name__ == "__main__":
    main()
