"""What a class load records: timed actions, each student's outcome, the scenario and its budgets, a run.

``bench/class_load.py`` describes each figure in its docstring; :mod:`bench.lib.student` fills
:class:`Outcome` and :class:`Sample` in, :mod:`bench.lib.class_runs` a :class:`Run`, and
:mod:`bench.lib.class_figures` draws the figures from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from bench.lib.app_health import Snapshot
from bench.lib.machine import MachineSpeed

ACTION_ORDER = ("reset", "lambda", "mu", "lock", "step 1", "step 2", "pause")
"""The timed actions of the growth exercise, in the order a student does them."""

STAGES = (
    ("page", "page GET"),
    ("ack", "websocket+ACK"),
    ("doc", "PULL-DOC"),
    ("ready", "first PATCH-DOC OK"),
    ("usable", "deferred parts"),
)
"""The steps of opening a page: a ``RawSession.timings`` key (and ``usable``) and its name in the report."""

CUSTOM_CLICK_P95_MS = 100.0
"""The budget a custom ``--sessions``/``--ramp`` load is held to: p95 click-to-readout."""


@dataclass
class Sample:
    """One timed action.

    Attributes
    ----------
    session : int
        Which session sent it.
    action : str
        One of :data:`ACTION_ORDER` (or ``"predict (OK)"``, a timed edit with no visible answer, kept
        apart from the click figures; the current exercise card sends none).
    sent : float
        When it was sent, in seconds since the load started.
    ms : float
        Latency to the awaited response, in milliseconds.
    changed : bool
        Whether the awaited change (readout text; Play enabled for the lock) came, rather than
        only some other PATCH-DOC.
    """

    session: int
    action: str
    sent: float
    ms: float
    changed: bool


@dataclass
class Outcome:
    """What one session did.

    Attributes
    ----------
    index : int
        The session number.
    open_ms : float or None
        Page open: from the page's GET until the page could be clicked (its first PATCH-DOC
        answered and every model the exercise uses arrived), in ms; None if it did not get there.
    opened_at : float or None
        When the session finished opening, seconds since the load started.
    stages : dict of str to float
        How long each step of opening took, in ms (keys of :data:`STAGES`).
    connected : bool
        Whether its websocket got the ``ACK`` (the server created, and built, its session).
    samples : list of Sample
        Its timed actions.
    error : str
        Why it stopped early; empty if it finished.
    readout_ok : bool or None
        Whether the readout after the two Steps showed t = 2.00 s and backlog = 6.00.
    feedback_ok : bool or None
        Whether the feedback said "Correct".
    models : int or None
        Bokeh models in its document once it could be clicked (pulled plus sent after load).
    """

    index: int
    open_ms: float | None = None
    opened_at: float | None = None
    stages: dict[str, float] = field(default_factory=dict)
    connected: bool = False
    samples: list[Sample] = field(default_factory=list)
    error: str = ""
    readout_ok: bool | None = None
    feedback_ok: bool | None = None
    models: int | None = None


@dataclass(frozen=True)
class Scenario:
    """How many students arrive over how long, and the budgets (design.md) that apply.

    Attributes
    ----------
    name : str
        ``lecture``, ``burst``, ``seminar`` or ``custom``.
    sessions : int
        Students.
    ramp : float
        Their arrivals are spread evenly over this many seconds.
    text : str
        One line saying so.
    open_p95_s, all_open_s, click_opening_p95_ms, click_open_p95_ms, click_p95_ms : float or None
        The budgets on the page open p95, the time by which every page is open, and the click p95
        while pages open, once all are open, and over all actions; None where none applies.
    """

    name: str
    sessions: int
    ramp: float
    text: str
    open_p95_s: float | None = None
    all_open_s: float | None = None
    click_opening_p95_ms: float | None = None
    click_open_p95_ms: float | None = None
    click_p95_ms: float | None = None

    def scaled(self, factor: float) -> Scenario:
        """The same load with every time budget ``factor`` times longer (a slower machine's budgets).

        Parameters
        ----------
        factor : float
            ``MachineSpeed.slowdown`` (bench/lib/machine.py): 1 on the reference machine or a faster one.

        Returns
        -------
        Scenario
            The budgets a run on this machine is held to.
        """
        times = ("open_p95_s", "all_open_s", "click_opening_p95_ms", "click_open_p95_ms", "click_p95_ms")
        budgets = {name: getattr(self, name) for name in times}
        return replace(self, **{name: value * factor for name, value in budgets.items() if value is not None})


@dataclass
class Run:
    """One scenario against one target.

    Attributes
    ----------
    target : str
        ``cluster`` or ``server`` (``--url``), or ``single`` (the process the bench started).
    base_url : str
        Where the students went.
    scenario : Scenario
        What they did.
    seed : int
        The seed of their start jitter and think times.
    outcomes : list of Outcome
        One per student.
    wall : float
        Seconds the load took.
    client_cpu : float
        CPU seconds this bench process used meanwhile.
    machine_cpu : float
        CPU seconds every process on the machine used meanwhile.
    labels : list of str
        The app processes (``:<port>``).
    before, after : list of Snapshot
        Each process's ``/healthz`` and CPU time at the start (timer reset) and end.
    problems : list of str or None
        Error lines the server logged meanwhile; None if the bench cannot read its log.
    notes : list of str
        Anything else the report should say (sessions still live before the start, ...).
    speed : MachineSpeed, optional
        This machine against the reference one (bench/lib/machine.py), timed before the load.
    """

    target: str
    base_url: str
    scenario: Scenario
    seed: int
    outcomes: list[Outcome]
    wall: float
    client_cpu: float
    machine_cpu: float
    labels: list[str]
    before: list[Snapshot]
    after: list[Snapshot]
    problems: list[str] | None
    notes: list[str] = field(default_factory=list)
    speed: MachineSpeed | None = None


SCENARIOS = {
    "lecture": Scenario(
        "lecture",
        300,
        120.0,
        "300 students arriving uniformly over 120 s",
        open_p95_s=5.0,
        click_opening_p95_ms=250.0,
        click_open_p95_ms=100.0,
    ),
    "burst": Scenario("burst", 100, 10.0, "100 students within 10 s", all_open_s=30.0, click_p95_ms=500.0),
    "seminar": Scenario(
        "seminar",
        100,
        60.0,
        "100 students arriving uniformly over 60 s (one process: make serve for a seminar)",
        open_p95_s=5.0,
        click_p95_ms=250.0,
    ),
    "thousand": Scenario(
        "thousand",
        1000,
        120.0,
        "1,000 students arriving uniformly over 120 s (make serve-cluster on one 2-core machine)",
        open_p95_s=5.0,
        click_p95_ms=250.0,
    ),
}
"""The design's scenarios (design.md), the seminar one process is to hold (issue 20) and the lecture of
1,000 the cluster on one 2-core machine is to hold (issue 47), with budgets."""


def custom_scenario(sessions: int, ramp: float) -> Scenario:
    """A load of ``sessions`` students arriving over ``ramp`` seconds, held to :data:`CUSTOM_CLICK_P95_MS`.

    Parameters
    ----------
    sessions : int
        Students.
    ramp : float
        Seconds over which they arrive.

    Returns
    -------
    Scenario
        Named ``custom``.
    """
    text = f"{sessions} students arriving over {ramp:g} s"
    return Scenario("custom", sessions, ramp, text, click_p95_ms=CUSTOM_CLICK_P95_MS)
