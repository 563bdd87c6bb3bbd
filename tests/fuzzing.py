"""The fuzz engine: random student actions in a real Chromium, every figure on the page checked.

Each lab gets ACTIONS_PER_LAB (40 in `make test`) random actions from a fixed seed: typing into its fields (ordinary
numbers with a point or a comma, and hostile text: ``-0``, ``1e308``, ``5e-324``, ``nan``, ``inf``,
``1,000``, empty, ``abc``, a 5000-character paste), Step, Reset, Play/Pause, waits while playing,
and its selects (speed, device, model, iteration). Controls are found by role and name, as a
student's screen reader would. After each action one snapshot of the lab (its texts through every
shadow root, its fields, its readout, the Bokeh labels drawn on the canvas) is checked:

- what the readout says agrees with the controls the fields show: the queue's backlog is
  ``max(0, q0 + (λ − μ)·t)`` (bent where arrivals stop) and its M/M/1 L is λ/(μ − λ) or "no steady
  state"; the roofline's attainable is ``min(P, I·B)`` with its ridge ``P/B`` and the right regime;
  the timeline's buckets are the model's, and its step and exposed time the model's so far at t;
- a typed value the model refuses shows a refusal naming the control and the value kept, and the
  field keeps what was typed, marked invalid (the model, and the readout, keep the old value); an
  accepted one is shown back as the model reads it (``1,5`` as ``1.5``) and clears the refusal;
- every control the student clicks (or taps, in a touch context) takes the click: a click another
  element intercepts (a control covered by something) is a violation naming that element, with
  the actions that led to it, and the run goes on;
- no ``NaN``, ``nan``, ``inf``, ``Infinity`` (nor ``undefined``/``unbounded``), no negative zero
  and no number longer than 20 characters anywhere in the lab (what a student typed, quoted back in
  a refusal, is theirs and is not checked).

Used by ``tests/browser/test_fuzz_browser.py`` (ACTIONS_PER_LAB a lab, where the ``page`` fixture fails the
test on any page error, console error or server traceback) and by ``bench/fuzz.py`` (10,000
actions, with counts).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from playwright.sync_api import Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app.course.content import Exercise, load_lessons
from app.course.exercise_range import prediction_range
from labs.numbers import NotANumber, format_number, parse_number
from labs.queue.model import QueueModel
from labs.roofline.model import RooflineModel
from labs.timed import InvalidInput, TimedModel
from labs.timeline.model import TimelineModel
from tests.student import field_name, open_lab, readout
from tests.waiting import STUCK_AFTER_S, settles

SEED = 20261130
ACTIONS_PER_LAB = 40
"""Random actions per lab in `make test`; bench/fuzz.py runs thousands (its figures are in docs/benchmarks.md)."""
SETTLE_SECONDS = STUCK_AFTER_S
"""How long the page may take to show the server's answer before a mismatch counts as a violation:
long enough for any busy machine (a right page settles at once; only a violation waits this long)."""

LONGEST_NUMBER = 24
"""Figures stay far below this; a refusal may name the exact value typed, up to 17 significant digits
plus a sign, a point and 4 leading zeros (``-0.00012345678901234567``)."""

HOSTILE = [
    "-0",
    "\u22120",
    "-0.0",
    "1e308",
    "-1e308",
    "1e309",
    "5e-324",
    "1e-300",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "Infinity",
    "1,5",
    "0,5",
    "2,25",
    "1,000",
    "1.000,5",
    "1,000.5",
    "1,2,3",
    "",
    "   ",
    "abc",
    "1 000",
    "1_0",
    "0x10",
    "1e",
    ".",
    "-",
    "+3",
    "\u0663",  # an Arabic-Indic 3: a digit
    "∞",
    "½",
    "99.99999999999999",
    "100.00000000000001",
    "0.0009999999999999998",
    "-1",
    "0",
    "1e15",
    "never",
    "<b>1</b>",
    "'; alert(1); '",
    "9" * 400,
    "1" * 5000,
]

SNAPSHOT_JS = """
(name) => {
  const under = (root, out) => {
    for (const el of root.querySelectorAll("*")) {
      out.push(el)
      if (el.shadowRoot) under(el.shadowRoot, out)
    }
    return out
  }
  const region = under(document, []).find(
    (el) => el.getAttribute("role") === "region" && el.getAttribute("aria-label") === name)
  if (!region) return null
  const inside = under(region, [])
  const texts = []
  const alerts = []
  const fields = {}
  const invalid = {}
  const buttons = {}
  let status = null
  for (const el of inside) {
    if (el.tagName === "STYLE" || el.tagName === "SCRIPT") continue
    for (const node of el.childNodes) {
      if (node.nodeType === 3 && node.textContent.trim()) texts.push(node.textContent)
    }
    const role = el.getAttribute("role")
    if (role === "status" && status === null) {  // a lab's readout: the Div's element, its text in its shadow root
      const readout = el.shadowRoot && el.shadowRoot.querySelector(".readout")
      status = (readout || el).textContent
    }
    if (role === "alert" && el.textContent.trim()) alerts.push(el.textContent.trim())
    if ((el.tagName === "INPUT" || el.tagName === "SELECT") && el.labels && el.labels[0]) {
      const caption = el.labels[0].textContent.trim()
      fields[caption] = el.type === "checkbox" ? String(el.checked) : el.value
      if (el.getAttribute("aria-invalid") === "true") {  // a refused value kept for correction: why, by its id
        const line = el.getRootNode().getElementById(el.getAttribute("aria-describedby") || "")
        invalid[caption] = line ? line.textContent.trim() : ""
      }
    }
    if (el.tagName === "BUTTON" && el.checkVisibility()) buttons[el.textContent.trim()] = !el.disabled
  }
  const drawn = []
  const times = []  // each transport's t as the server last set it, exact (labs.ui.playback.PlaybackState)
  for (const doc of (window.Bokeh && Bokeh.documents) || []) {
    for (const model of doc.all_models) {
      if ("stop_at" in model && "horizon" in model && "ask_time" in model) times.push(model.t)
      if (model.type === "Label" || model.type === "Title") drawn.push(String(model.text))
      if (model.type === "LinearAxis" || model.type === "LogAxis") {
        drawn.push(String(model.axis_label ?? ""))
        for (const text of Object.values(model.major_label_overrides ?? {})) drawn.push(String(text))
      }
    }
  }
  return {texts, alerts, fields, invalid, buttons, status, drawn, times}
}
"""

FIGURE = r"(-?\d+(?:\.\d+)?)(?: × 10\^(-?\d+))?"
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
NOT_FINITE = re.compile(r"\b(?:nan|inf|infinity|undefined|unbounded)\b", re.IGNORECASE)
NEGATIVE_ZERO = re.compile(r"(?<![\w.])[-\u2212]0(?:[.,]0+)?(?![\w.,])")
DIGITS = re.compile(r"\d[\d.,]*\d|\d")
KEPT = re.compile(r"; kept (.+)\.$")
ACTIONABILITY = re.compile(
    r"- (?:(.+?) intercepts pointer events|element (?:is not|is outside|was detached).*)$", re.MULTILINE
)
"""A line of Playwright's call log that says why it could not click yet: covered, or not visible,
enabled, stable, attached or in the viewport."""


def covered_to_the_end(call_log: str) -> str | None:
    """The element over the control when Playwright gave up, or None if it gave up for another reason.

    Playwright retries a click until its timeout, and its log says each time why it could not click.
    Only a control covered at the last try is covered: one covered for a moment while the page laid
    itself out and then hidden, disabled or gone (a button pressed twice, Play turned off by a gate)
    is a miss, as a student's second tap on a vanished button is.

    Parameters
    ----------
    call_log : str
        The text of Playwright's ``TimeoutError``.

    Returns
    -------
    str or None
        The covering element as Playwright names it.
    """
    reasons = ACTIONABILITY.findall(call_log)
    return reasons[-1] or None if reasons else None


CLICK_TIMEOUT_MS = 5000
"""How long a click may wait for its control to be visible, stable and not covered: far longer than
any layout takes to settle, far shorter than Playwright's 30 s (a covered control is a violation)."""


def choose(select: Locator, label: str) -> bool:
    """Choose the option ``label`` in ``select`` as a student does; False if the page no longer offers it.

    A select's options can change after they were read: the timeline's "Missing event" offers one
    option per bucket, and an edit answered late (a bucket size, the layers) changes how many. The
    student then cannot choose the one they meant either: a miss, not a fault (seed 9090 on a phone,
    5 December 2026: Playwright waited its whole 30 s for "some options", and the run stopped).
    """
    try:
        select.select_option(label=label, timeout=CLICK_TIMEOUT_MS)
    except PlaywrightTimeout:
        return False
    return True


def figure_value(mantissa: str, exponent: str | None) -> float:
    """A shown figure as a float: ``6.00`` or ``7.04 × 10^15``."""
    return float(mantissa) * (10.0 ** int(exponent) if exponent else 1.0)


def figures(text: str) -> dict[str, float]:
    """Every ``name = figure`` in a text, first occurrence of each name."""
    found: dict[str, float] = {}
    for name, mantissa, exponent in re.findall(r"(\w+) = " + FIGURE, text):
        found.setdefault(name, figure_value(mantissa, exponent))
    return found


def humane_problems(texts: list[str]) -> list[str]:
    """What is wrong with texts shown to people: non-finite words, negative zero, overlong numbers."""
    problems = []
    for raw in texts:
        text = QUOTED.sub("''", raw)  # what the student typed, quoted back, is theirs
        if NOT_FINITE.search(text):
            problems.append(f"a non-finite figure shown: {raw[:160]!r}")
        if NEGATIVE_ZERO.search(text):
            problems.append(f"a negative zero shown: {raw[:160]!r}")
        longest = max((len(m) for m in DIGITS.findall(text)), default=0)
        if longest > LONGEST_NUMBER:
            problems.append(f"a {longest}-character number shown: {raw[:160]!r}")
    return problems


# ----- the labs -------------------------------------------------------------------------------


def close(shown: float, true: float, rel: float, abs_: float) -> bool:
    return abs(shown - true) <= max(abs_, rel * abs(true))


def queue_backlog(model: QueueModel, t: float) -> float:
    """The fluid backlog written out independently of the model: the design's formula."""
    q0, lam, mu, stop = model.initial_backlog, model.arrival_rate, model.service_rate, model.arrivals_stop
    if stop is None or t <= stop:
        return max(0.0, q0 + (lam - mu) * t)
    at_stop = max(0.0, q0 + (lam - mu) * stop)
    return max(0.0, at_stop - mu * (t - stop))


def check_queue(model: QueueModel, shown: dict[str, float], status: str, texts: str) -> list[str]:
    problems = []
    if "t" not in shown or "backlog" not in shown:
        return [f"queue readout without t and backlog: {status[:200]!r}"]
    t, backlog = shown["t"], shown["backlog"]
    slope = max(abs(model.net_rate), model.service_rate)
    # t is shown to 2 decimals, so the backlog it implies is known to slope × 0.005.
    expected = [queue_backlog(model, t + d) for d in (-0.005, 0.0, 0.005) if t + d >= 0]
    if not any(close(backlog, e, 1e-9, 0.0051 + slope * 0.0051) for e in expected):
        problems.append(f"backlog = {backlog} at t = {t}, expected {expected[1 if len(expected) > 2 else 0]:.4f}")
    if "M/M/1" in texts and "?" not in texts:
        if model.arrival_rate >= model.service_rate:
            if "no steady state" not in texts:
                problems.append("ρ ≥ 1 but the M/M/1 panel does not say 'no steady state'")
        elif "L" in shown:
            true = model.arrival_rate / (model.service_rate - model.arrival_rate)
            if not close(shown["L"], true, 6e-3, 0.0051):
                problems.append(f"M/M/1 L = {shown['L']}, expected {true}")
        else:
            problems.append("ρ < 1 but the M/M/1 panel shows no L")
    return problems


def check_roofline(model: RooflineModel, shown: dict[str, float], status: str, texts: str) -> list[str]:
    if "attainable = ?" in status:
        return []
    problems = []
    P, I, B = model.peak_compute, model.intensity, model.bandwidth  # noqa: E741 (the lesson's names)
    attainable = min(P, I * B)
    if "attainable" not in shown or not close(shown["attainable"], attainable, 5.01e-4, 0.0):
        problems.append(f"attainable = {shown.get('attainable')}, expected min(P, I·B) = {attainable}")
    if "ridge" not in shown or not close(shown["ridge"], P / B, 5.01e-4, 0.0):
        problems.append(f"ridge = {shown.get('ridge')}, expected P/B = {P / B}")
    if not model.at_ridge:
        regime = "memory-bound" if I * B < P else "compute-bound"
        other = "compute-bound" if regime == "memory-bound" else "memory-bound"
        if regime not in status or other in status:
            problems.append(f"I·B = {I * B} against P = {P}: expected {regime}")
    return problems


SHOWN_T_SLACK = 0.0051
"""How far the true t may be from the readout's: it is rounded to 0.01."""
EXACT_T_SLACK = 1e-6
"""How far the true t may be from the transport's (float noise between the server's model and the
checker's, built from the fields' text): far below the 3.5 µs that separate "ended" from "not yet"."""


def exact_time(shown: dict[str, float], shot: dict) -> list[str]:
    """Put the lab's exact t in ``shown`` in place of the readout's rounded one, where the page has it.

    The readout shows t to 0.01 (ms on the timeline): a few µs short of a step's end and at its end
    read the same, and only the second shows how the step ended. An edit made as a run ended keeps t
    (design.md) while it may move the end: seed 4471's 20th page, ranks 9 moved a hang's end 3.5 µs
    later. So once a page is paused with one lab, the checks read the t its transport was last sent,
    after checking that the readout shows it.

    Parameters
    ----------
    shown : dict
        The readout's figures; ``t`` is replaced.
    shot : dict
        The snapshot: its ``times`` (each transport's t) and buttons (Play, not Pause: not playing).

    Returns
    -------
    list of str
        A problem if the readout's t is not the transport's, rounded.
    """
    times = shot.get("times") or []
    if "t" not in shown or len(times) != 1 or "Pause" in shot["buttons"] or "Play" not in shot["buttons"]:
        return []
    exact = float(times[0])
    if abs(shown["t"] - exact) > SHOWN_T_SLACK:
        return [f"the readout says t = {shown['t']}, the lab's t is {exact}"]
    shown["t"], shown["t_slack"] = exact, EXACT_T_SLACK
    return []


def check_timeline(model: TimelineModel, shown: dict[str, float], status: str, texts: str) -> list[str]:
    problems = []
    if "t" not in shown:
        return [f"timeline readout without t: {status[:200]!r}"]
    if "buckets" not in shown:  # concealed by an exercise
        return []
    slack = shown.get("t_slack", SHOWN_T_SLACK)  # exact where the page is paused (exact_time)
    if not -slack <= shown["t"] <= model.horizon + slack:
        problems.append(f"t = {shown['t']} ms outside the timeline (0 to {model.horizon:.4f})")
    # The readout plays the step back as the run goes (labs/timeline/text.py): at t the step and the
    # exposed tail read their length so far, and what went wrong shows once the step has ended.
    t = shown["t"]
    if model.hangs:
        ended = t >= model.horizon - slack
        if "step" in shown or ended and ("hang" not in status or shown.get("completed") != model.completed):
            problems.append(f"a hang after {model.completed} all-reduces, the readout says {status[:160]!r}")
        return problems
    ended = t >= model.step_time - slack
    if ended and ("INVALID" in status) == model.valid:
        problems.append(f"valid = {model.valid}, the readout says {status[:160]!r}")
    step_so_far = min(t, model.step_time)
    exposed_so_far = max(0.0, step_so_far - model.backward_end)
    for name, true in (("step", step_so_far), ("exposed", exposed_so_far)):
        tolerance = 0.051 if abs(true) >= 99.9 else 0.0101  # t and the figure are each rounded to 0.005
        if name not in shown or not close(shown[name], true, 1e-9, tolerance):
            problems.append(f"{name} = {shown.get(name)} ms at t = {t} ms, expected {true:.4f}")
    if shown.get("buckets") != model.bucket_count:
        problems.append(f"buckets = {shown.get('buckets')}, expected {model.bucket_count}")
    return problems


def ordinary(low: float, high: float) -> Callable[[random.Random], str]:
    """Typical typing for a control: a number in (or just past) its range, with a point or a comma."""

    def typed(rng: random.Random) -> str:
        value = rng.choice(
            [rng.uniform(low, high), rng.uniform(low, min(high, low + 10)), round(rng.uniform(low, high))]
        )
        text = f"{value:.{rng.choice([0, 1, 2, 3, 6])}f}"
        return text.replace(".", ",") if rng.random() < 0.3 else text

    return typed


def layers(rng: random.Random) -> str:
    """A Layers field entry: a few ``size:time`` pairs, now and then a broken one."""
    sizes, times = [0.5, 1, 2, 8, 25, 64, 100], [0, 0.5, 1, 2, 3.25]
    pairs = [f"{rng.choice(sizes)}:{rng.choice(times)}" for _ in range(rng.randint(1, 8))]
    if rng.random() < 0.2:
        pairs.append(rng.choice(["8", "8:2:1", ":2", "8:", "nan:1", "1e400:1", "-1:2", "8:-0", "0:1"]))
    return rng.choice([", ", "; ", ","]).join(pairs)


@dataclass
class LabSpec:
    """One lab as the fuzzer drives it."""

    name: str
    path: str
    model: Callable[[], TimedModel]
    typing: dict[str, Callable[[random.Random], str]]
    selects: tuple[str, ...]
    check: Callable[[TimedModel, dict[str, float], str, str], list[str]]
    choices: dict[str, str] = field(default_factory=dict)
    """Select label → model control it sets (others, like Speed and Device, set none directly)."""
    later: dict[str, str] = field(default_factory=dict)
    """Select or checkbox label → control, set after the typed fields (a choice of a bucket or a layer)."""
    switches: tuple[str, ...] = ()
    """Checkbox labels the fuzzer clicks."""


LABS = {
    "queue": LabSpec(
        name="Queue lab",
        path="/queue",
        model=QueueModel,
        typing={
            "arrival_rate": ordinary(0, 12),
            "service_rate": ordinary(0, 12),
            "initial_backlog": ordinary(0, 40),
            "arrivals_stop": ordinary(0, 12),
        },
        selects=("Speed",),
        check=check_queue,  # type: ignore[arg-type]
    ),
    "roofline": LabSpec(
        name="Roofline lab",
        path="/roofline",
        model=RooflineModel,
        typing={
            "intensity": ordinary(0.0625, 64),
            "bandwidth": ordinary(1, 5000),
            "peak_compute": ordinary(1, 100_000),
        },
        selects=("Speed", "Device"),
        check=check_roofline,  # type: ignore[arg-type]
    ),
    "timeline": LabSpec(
        name="Bucket timeline lab",
        path="/timeline",
        model=TimelineModel,
        typing={
            "layers": layers,
            "bucket_cap": ordinary(0.25, 100),
            "first_bucket_cap": ordinary(0.25, 25),
            "ranks": ordinary(2, 64),
            "bandwidth": ordinary(0.5, 100),
            "latency": ordinary(0, 100),
            "straggler": ordinary(0, 20),
            "compute_slowdown": ordinary(1, 4),
            "comm_slowdown": ordinary(1, 4),
            "launch_gap": ordinary(0, 3),
        },
        selects=("Speed", "Model", "Iteration", "Missing event", "Rank skips a gradient"),
        check=check_timeline,  # type: ignore[arg-type]
        choices={"Model": "preset", "Iteration": "iteration"},
        later={
            "Missing event": "missing_event",
            "Rank skips a gradient": "skipped_layer",
            "Optimizer waits for the all-reduce": "optimizer_waits",
            "Synchronize after every bucket": "sync_each",
            "DDP_SET_LAST_BUCKET_CAP=1 (small bucket last)": "last_bucket_cap",
        },
        switches=(
            "Optimizer waits for the all-reduce",
            "Synchronize after every bucket",
            "DDP_SET_LAST_BUCKET_CAP=1 (small bucket last)",
        ),
    ),
}


# ----- the engine -----------------------------------------------------------------------------


@dataclass
class Tally:
    """What a fuzz run did and found."""

    actions: Counter = field(default_factory=Counter)
    refusals: int = 0
    checks: int = 0
    violations: list[str] = field(default_factory=list)
    intercepted: int = 0
    """Clicks another element took (each is a violation too)."""
    missed: Counter = field(default_factory=Counter)
    """Other clicks that could not be made, by what Playwright was last waiting for (a button gone as
    it was pressed, a control off while playing)."""


class Fuzzer:
    """Random student actions on one lab region (and, optionally, one exercise beside it).

    Parameters
    ----------
    page : playwright.sync_api.Page
        A page with the lab open.
    spec : LabSpec
        The lab.
    rng : random.Random
        The seeded source of every choice.
    tally : Tally
        Where counts and violations go.
    exercise : Exercise, optional
        An exercise on the same page to drive too (its region ``Exercise: <title>``).
    touch : bool, optional
        Tap instead of clicking (a phone's browser context, with ``has_touch``).
    """

    def __init__(
        self,
        page: Page,
        spec: LabSpec,
        rng: random.Random,
        tally: Tally,
        exercise: Exercise | None = None,
        touch: bool = False,
    ):
        self.page, self.spec, self.rng, self.tally, self.exercise = page, spec, rng, tally, exercise
        self.touch = touch
        self.lab = page.get_by_role("region", name=spec.name)
        self.labels = {control: spec.model().param[control].label for control in spec.typing}
        self.region_name = f"Exercise: {exercise.title}" if exercise else ""
        self.card = page.get_by_role("region", name=self.region_name) if exercise else None
        self.last: dict | None = None
        self.history: list[str] = []

    # -- what the page shows -------------------------------------------------------------------
    def snapshot(self, region: str | None = None) -> dict:
        shot = self.page.evaluate(SNAPSHOT_JS, region or self.spec.name)
        assert shot is not None, f"no region {region or self.spec.name!r} on the page"
        return shot

    def field_text(self, shot: dict, control: str) -> str | None:
        label = self.labels[control]
        for caption, value in shot["fields"].items():
            if caption == label or caption.startswith(label + " ("):
                return value
        return None

    def refusal_of(self, shot: dict, control: str) -> str | None:
        """The refusal shown for a control's field marked invalid, or None while it is valid."""
        label = self.labels[control]
        for caption, why in shot["invalid"].items():
            if caption == label or caption.startswith(label + " ("):
                return why
        return None

    def kept_value(self, control: str, refusal: str) -> str | None:
        """The text of the value a refusal says it keeps (``kept 4``): "" when it does not quote it
        (``kept the previous 24 layers``), None when it says nothing of the kind."""
        kept = KEPT.search(refusal)
        if kept is None or not refusal.startswith(self.labels[control]):
            return None
        return "" if kept.group(1).startswith("the previous ") else kept.group(1)

    def oracle(self, shot: dict) -> tuple[TimedModel | None, list[str]]:
        """A model set from what the fields show, or the refusal the page should not have kept."""
        model = self.spec.model()
        problems = []
        unknown = False  # a control whose value in force the page does not show: nothing to check against
        for label, control in self.spec.choices.items():
            if label in shot["fields"] and shot["fields"][label] != "Custom":
                try:
                    model.apply(control, shot["fields"][label])
                except InvalidInput as refusal:
                    shown = shot["fields"][label]
                    problems.append(f"the page shows {label} = {shown!r}, which the model refuses: {refusal}")
        for control in self.spec.typing:
            text = self.field_text(shot, control)
            if text is None:
                continue  # not on this page (e.g. the roofline's P in a lesson)
            refusal_shown = self.refusal_of(shot, control)
            if refusal_shown is not None:  # a refused text, kept for correction: the model holds the kept value
                text = self.kept_value(control, refusal_shown)
                if text is None:
                    problems.append(f"the {control} field is marked refused, saying {refusal_shown[:160]!r}")
                    continue
                if not text:
                    unknown = True
                    continue
            try:
                model.apply(control, text)
            except InvalidInput as refusal:
                problems.append(f"the {control} field shows {text[:40]!r}, which the model refuses: {refusal}")
        for label, control in self.spec.later.items():
            if label in shot["fields"]:
                try:
                    model.apply(control, shot["fields"][label])
                except InvalidInput as refusal:
                    problems.append(
                        f"the page shows {label} = {shot['fields'][label]!r}, which the model refuses: {refusal}"
                    )
        return (None if problems or unknown else model), problems

    def problems(self, shot: dict, typed: tuple[str, str, str] | None) -> list[str]:
        model, problems = self.oracle(shot)
        status = shot["status"] or ""
        texts = " ".join(shot["texts"])
        if model is not None:
            shown = figures(status) | {k: v for k, v in figures(texts).items() if k == "L"}  # L: the M/M/1 panel
            problems += exact_time(shown, shot)
            problems += self.spec.check(model, shown, status, texts)
        problems += humane_problems([*shot["texts"], *shot["drawn"]])
        # A field shows what the model holds, typed to the last digit: no words, no negative zero
        # (a refused text kept for correction is the student's).
        valid = [text for caption, text in shot["fields"].items() if caption not in shot["invalid"]]
        problems += [p for p in humane_problems(valid) if "-character" not in p]
        if typed is not None:
            control, text, before = typed
            problems += self.typed_problems(shot, control, text, before)
        if self.card is not None:
            problems += self.exercise_problems()
        return problems

    def typed_problems(self, shot: dict, control: str, text: str, before: str) -> list[str]:
        """A refused value stays in the field, marked invalid, with a refusal naming the field and the
        value kept; an accepted one shows as the model reads it, with no refusal.

        What the refusal says is kept is what the oracle builds its model from, so the readout
        checks it (a snapshot taken just before the refusal may show an older value).
        """
        label = self.labels[control]
        shown = self.field_text(shot, control)
        refusal = self.refusal_of(shot, control)
        probe = self.spec.model()
        try:
            probe.apply(control, before)
        except InvalidInput:
            return []  # the field's previous text was refused already: nothing to compare with
        if text == before:
            return []
        try:
            probe.apply(control, text)
        except InvalidInput:
            if refusal is None or not refusal.startswith(label):
                return [f"{control}: {text[:30]!r} was refused without a refusal under the field naming {label!r}"]
            if shown != text:
                return [f"{control}: the refused {text[:30]!r} is not kept in the field for correction: {shown[:30]!r}"]
            if KEPT.search(refusal) is None:
                return [f"{control}: the refusal of {text[:30]!r} does not say what is kept: {refusal[:160]!r}"]
            return []
        wanted = probe.shown_value(control)
        if shown != wanted:
            return [f"{control}: typed {text[:30]!r}, the field shows {shown!r}, the model reads {wanted!r}"]
        if refusal is not None or any(alert.startswith(label) for alert in shot["alerts"]):
            return [f"{control}: {text[:30]!r} was accepted but a refusal is still shown"]
        return []

    def exercise_problems(self) -> list[str]:
        shot = self.snapshot(f"Exercise: {self.exercise.title}")
        problems = humane_problems(shot["texts"])
        said = (shot["status"] or "").strip()
        if said and not said.startswith(("Correct", "Not quite")):
            problems.append(f"exercise feedback starts neither with Correct nor Not quite: {said[:120]!r}")
        match = re.search(r"you predicted " + FIGURE + r" .*the lab shows " + FIGURE, said)
        if said and match:
            predicted = figure_value(match.group(1), match.group(2))
            result = figure_value(match.group(3), match.group(4))
            near = abs(predicted - result) <= self.exercise.tolerance + 0.0051 + 1e-9
            far = abs(predicted - result) > self.exercise.tolerance - 0.0051
            if said.startswith("Correct") and not near or said.startswith("Not quite") and not far:
                problems.append(f"verdict against the figures: {said[:160]!r}")
        return problems

    def check(self, typed: tuple[str, str, str] | None = None) -> dict:
        """Check the invariants, giving the page up to SETTLE_SECONDS to show the server's answer.

        Returns the last snapshot taken.
        """
        self.tally.checks += 1
        seen: dict = {}

        def right() -> bool:
            seen["shot"] = self.snapshot()
            seen["problems"] = self.problems(seen["shot"], typed)
            return not seen["problems"]

        if not settles(right, SETTLE_SECONDS, self.page):
            recent = " → ".join(self.history[-6:])
            self.tally.violations += [f"[{self.spec.name}] {p} (after: {recent})" for p in seen["problems"]]
        self.last = seen["shot"]
        return seen["shot"]

    # -- what the student does ---------------------------------------------------------------------
    def act(self) -> None:
        """Do one random action and check the invariants after it."""
        rng = self.rng
        shot = self.last or self.snapshot()
        roll = rng.random()
        typed = None
        if self.card is not None and roll < 0.25:
            kind = self.act_on_exercise()
        elif roll < 0.55:
            control = rng.choice(list(self.spec.typing))
            text = rng.choice(HOSTILE) if rng.random() < 0.45 else self.spec.typing[control](rng)
            before = self.field_text(shot, control)
            if before is None:
                kind = "skip"
            else:
                box = self.lab.get_by_role("textbox", name=field_name(self.labels[control]))
                if self.press(box, self.labels[control]):  # into the field as a student gets there
                    box.fill(text)
                    box.press("Enter")
                    kind = "type"
                    typed = (control, text, before)
                else:
                    kind = "type (missed)"
        elif roll < 0.70:
            kind = self.click("Step", shot)
        elif roll < 0.75:
            kind = self.click("Reset", shot)
        elif roll < 0.87:
            kind = self.click("Pause" if "Pause" in shot["buttons"] else "Play", shot)
        elif roll < 0.93 and self.spec.switches and rng.random() < 0.25:
            name = rng.choice(self.spec.switches)
            pressed = self.press(self.lab.get_by_role("checkbox", name=name), name)
            kind = f"toggle {name}" if pressed else f"toggle {name} (missed)"
        elif roll < 0.93:
            name = rng.choice(self.spec.selects)
            select = self.lab.get_by_role("combobox", name=name)
            options = [o.strip() for o in select.locator("option").all_text_contents()]
            choice = rng.choice(options) if options else None
            if choice is None or not self.press(select, name, trial=True):  # nothing may cover it
                kind = f"select {name} (missed)"
            elif choose(select, choice):
                kind = f"select {name}"
            else:
                kind = f"select {name} (its option gone)"
        else:
            self.let_it_play(rng.choice([1, 3, 8]), shot)
            kind = "wait"
        self.tally.actions[kind] += 1
        self.history.append(kind if typed is None else f"type {typed[1][:20]!r} into {typed[0]}")
        shot = self.check(typed)
        if typed is not None and any(alert.startswith(self.labels[typed[0]]) for alert in shot["alerts"]):
            self.tally.refusals += 1

    def let_it_play(self, frames: int, shot: dict) -> None:
        """Wait as a student watching: while playing, until the readout has moved on ``frames`` times
        (or playback has stopped); while paused nothing is moving and there is nothing to wait for."""
        if "Pause" not in shot["buttons"]:
            return
        for _ in range(frames):
            before = readout(self.lab)
            settles(lambda b=before: readout(self.lab) != b or "Play" in self.snapshot()["buttons"], page=self.page)

    def press(self, target: Locator, what: str, trial: bool = False) -> bool:
        """Click ``target`` as a student does (a tap in a touch context); False if it could not be.

        Waits at most CLICK_TIMEOUT_MS for it to be visible, stable and the element a click there
        reaches. A click another element intercepts all that time is a violation naming that
        element, with the actions before it; any other miss (a button relabelled or gone as it was
        pressed) is only a miss. ``trial`` checks all that without clicking (before a select).
        """
        try:
            if self.touch and not trial:
                target.tap(timeout=CLICK_TIMEOUT_MS)
            else:
                target.click(timeout=CLICK_TIMEOUT_MS, trial=trial)
        except PlaywrightTimeout as miss:
            covering = covered_to_the_end(str(miss))
            waits = re.findall(r"^\s*- (.+)$", str(miss), re.MULTILINE)
            self.tally.missed[f"{what}: {re.sub(r'<[^>]*>', '<…>', waits[-1])[:90] if waits else 'no call log'}"] += 1
            if covering:
                self.tally.intercepted += 1
                recent = " → ".join([*self.history[-6:], f"click {what!r}"])
                log = " | ".join(line.strip()[:160] for line in waits[-4:])  # Playwright's last tries, for the cause
                self.tally.violations.append(
                    f"[{self.spec.name}] a click on {what!r} was intercepted by {covering[:240]} (after: {recent})"
                    f" [Playwright: {log}]"
                )
            return False
        return True

    def click(self, name: str, shot: dict) -> str:
        if not shot["buttons"].get(name, False):
            return f"{name} (off)"
        if not self.press(self.lab.get_by_role("button", name=name, exact=True), name):
            return f"{name} (missed)"  # relabelled (Play ↔ Pause) as it was pressed: playback ended
        return name

    def act_on_exercise(self) -> str:
        rng = self.rng
        shot = self.snapshot(f"Exercise: {self.exercise.title}")
        roll = rng.random()
        if roll < 0.35:
            return self.do_the_steps()
        if roll < 0.8 and shot["buttons"].get("Lock prediction"):
            self.lock(rng.choice(HOSTILE) if rng.random() < 0.5 else ordinary(-5, 10)(rng))
            return "lock prediction"
        start = next((b for b in ("Try again", "Start this exercise") if shot["buttons"].get(b)), None)
        if start is None:
            return "exercise (off)"
        return start.lower() if self.press_start(start) else f"{start.lower()} (missed)"

    def press_start(self, name: str) -> bool:
        """Press Start or Try again; False if it went away as it was pressed (pressed just before)."""
        return self.press(self.card.get_by_role("button", name=name), name)  # a started exercise has none

    def lock(self, text: str) -> None:
        box = self.card.get_by_role("textbox", name=re.compile("^Your prediction"))
        if not self.press(box, "Your prediction"):
            return
        box.fill(text)
        if self.press(self.card.get_by_role("button", name="Lock prediction"), "Lock prediction"):
            self.check_lock(text)

    def wait_for(self, region: str, ready: Callable[[dict], bool]) -> dict | None:
        """The first snapshot of ``region`` for which ``ready`` holds, or None after SETTLE_SECONDS."""
        seen: dict = {}

        def there() -> bool:
            seen["shot"] = self.snapshot(region)
            return ready(seen["shot"])

        return seen["shot"] if settles(there, SETTLE_SECONDS, self.page) else None

    def do_the_steps(self) -> str:
        """Do the exercise as its steps say, with a prediction near or far from the answer.

        Afterwards the feedback must say Correct or Not quite (its figures are checked with the rest).
        """
        spec, rng, card = self.exercise, self.rng, self.region_name
        shot = self.snapshot(card)
        start = next((b for b in ("Try again", "Start this exercise") if shot["buttons"].get(b)), None)
        if start is not None and self.press_start(start):
            self.wait_for(card, lambda s: s["buttons"].get("Lock prediction", False))
        # At a student's pace: each step shows on the page before the next (a Reset that lands
        # after the next field was typed would undo it, as it would for a student).
        defaults = self.spec.model()
        for step in spec.steps:
            if step.kind == "reset":
                self.press(self.lab.get_by_role("button", name="Reset", exact=True), "Reset")
                self.wait_for(
                    self.spec.name,
                    lambda s: all(self.field_text(s, c) in (None, defaults.shown_value(c)) for c in self.spec.typing),
                )
            elif step.kind == "set":
                label = defaults.param[step.control].label
                box = self.lab.get_by_role("textbox", name=field_name(label))
                self.press(box, label)
                box.fill(format_number(step.value).replace(".", rng.choice([".", ","])))
                box.press("Enter")
                wanted = format_number(step.value, exact=True)
                self.wait_for(self.spec.name, lambda s, c=step.control, w=wanted: self.field_text(s, c) == w)
            elif step.kind == "predict":
                if not self.snapshot(card)["buttons"].get("Lock prediction", False):
                    continue  # locked already, by an earlier action: a verdict is what comes next
                guess = spec.answer + rng.choice([0.0, 0.0, spec.tolerance / 2, spec.tolerance * 3, -1.5, 10.0])
                text = format_number(guess)
                comma = text.replace(".", ",")
                if rng.random() < 0.5 and not re.fullmatch(r"-?[1-9]\d{0,2},\d{3}", comma):
                    text = comma  # a decimal comma, where it cannot be read as thousands
                self.lock(text)
            else:
                if "Pause" in self.snapshot()["buttons"]:
                    self.click("Pause", self.snapshot())  # a Play that ends as it is pressed is no failure
                for _ in range(30):
                    if self.wait_for(self.spec.name, lambda s: s["buttons"].get("Step", False)) is None:
                        texts = " ".join(self.snapshot(card)["texts"])[-300:]
                        self.tally.violations.append(f"[{spec.title}] Step stays off after the steps: {texts!r}")
                        return "do the exercise"
                    said = figures(self.snapshot()["status"] or "")
                    if self.snapshot(card)["status"] or (step.value is not None and said.get("t", 0) >= step.value):
                        break
                    self.press(self.lab.get_by_role("button", name="Step", exact=True), "Step")
        if self.wait_for(card, lambda s: (s["status"] or "").strip().startswith(("Correct", "Not quite"))) is None:
            texts = " ".join(self.snapshot(card)["texts"])[-300:]
            status = self.snapshot()["status"]
            self.tally.violations.append(f"[{spec.title}] all steps done, but no feedback: {texts!r}; lab: {status!r}")
        return "do the exercise"

    def check_lock(self, text: str) -> None:
        """A locked prediction shows as the fields show numbers; a refused one (not a number, or a number
        outside what the exercise can give: app.course.exercise_range) says why."""
        try:
            value: float | None = parse_number(text)
        except NotANumber:
            value = None
        low, high = prediction_range(self.exercise)
        refused = value is None or not low <= value <= high
        seen: dict = {}

        def shown() -> bool:
            shot = seen["shot"] = self.snapshot(f"Exercise: {self.exercise.title}")
            box = seen["box"] = next((v for k, v in shot["fields"].items() if k.startswith("Your prediction")), None)
            if refused:
                return any(a.startswith("Your prediction") for a in shot["alerts"])
            if shot["buttons"].get("Lock prediction", True):
                return False
            try:
                return parse_number(box) == value
            except NotANumber:
                return False  # not (yet) the locked value

        if not settles(shown, SETTLE_SECONDS, self.page):
            self.tally.violations.append(
                f"[{self.exercise.title}] prediction {text[:30]!r}: "
                f"field {str(seen['box'])[:30]!r}, alerts {seen['shot']['alerts']}"
            )
        elif refused:
            self.tally.refusals += 1


def fuzz_lab(
    page: Page,
    spec: LabSpec,
    actions: int,
    seed: int,
    tally: Tally,
    path: str | None = None,
    exercise: Exercise | None = None,
    touch: bool = False,
) -> None:
    """Open a lab (or a page holding it) and do ``actions`` random actions on it (tapping if ``touch``)."""
    lab = open_lab(page, path or spec.path, spec.name)
    if touch:  # a phone folds the panels of rarely used controls: open them, as a student would
        folded = lab.locator("details:not([open]) > summary")
        for _ in range(folded.count()):  # each tap opens one: the first folded one is the next
            folded.first.tap()  # setting up, not fuzzing: the suite's deadline, as for any step a test takes
    fuzzer = Fuzzer(page, spec, random.Random(seed), tally, exercise, touch)
    fuzzer.check()
    for _ in range(actions):
        fuzzer.act()


def growth_exercise() -> Exercise:
    """The lesson exercise the bench drives: 'A backlog that keeps growing' on /lesson?id=overlap."""
    lesson = next(lesson for lesson in load_lessons() if lesson.slug == "overlap")
    return next(e for e in lesson.exercises if e.id == "growth")
