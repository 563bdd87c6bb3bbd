"""The course's sample trace, and the lab an exercise uses to ask about it.

The sample is a real two-rank DDP run made with PyTorch (``tools/make_trace_fixtures.py late``,
torch 2.13.0, gloo on CPU): five ``nn.Linear`` layers in four buckets, profiled for two steps, in
which rank 1 sleeps :data:`LATE_MS` in a hook on the first layer's weight just before that gradient,
the last one backward writes, is accumulated. Rank 1 is late with its last bucket, and rank 0 waits
for it inside that bucket's all-reduce. The files are ``content/traces/gloo_late_rank{0,1}.json.gz``;
they are parsed once per process, since they are the same for every student.

:class:`SampleTraceReading` is the sample as a lab model: before Load it holds nothing, and Load is
its Play (``t`` goes from 0 to its horizon, 1). Its quantities are read from the parsed trace, so an
exercise's feedback is what the trace itself says.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import param

from app.trace.parse import RankTrace, parse_trace
from app.trace.ranks import RunTimeline, combine_ranks
from labs.registry import LabRegistration
from labs.timed import TimedModel

SAMPLE_DIR = Path(__file__).resolve().parents[3] / "content" / "traces"
SAMPLE_FILES = ("gloo_late_rank0.json.gz", "gloo_late_rank1.json.gz")
LATE_MS = 20
"""How long rank 1 sleeps before writing its last gradient (``LATE_MS`` in tools/make_trace_fixtures.py)."""
RANK_CHOICES = ("rank 0", "rank 1")


@functools.cache
def sample_traces() -> dict[str, RankTrace]:
    """The sample's two rank files, parsed once per process.

    Returns
    -------
    dict of str to RankTrace
        By file name, rank 0 first. Do not change them: every session shares them.
    """
    return {name: parse_trace((SAMPLE_DIR / name).read_bytes(), source=name) for name in SAMPLE_FILES}


@functools.cache
def sample_run() -> RunTimeline:
    """The sample's last step on both ranks, as the trace page reads it by default.

    Returns
    -------
    RunTimeline
        Its two step timelines, by rank, and who was last ready for each bucket.
    """
    return combine_ranks(list(sample_traces().values()))


class SampleTraceReading(TimedModel):
    """The sample trace as a lab: nothing is read until Load (``t`` = 1); then the trace answers.

    No control changes the trace; Reset unloads it. The quantities are choices read from
    :func:`sample_run`, the same reading the trace page shows.
    """

    controls: tuple[str, ...] = ()
    run_words = "Press Load the sample trace"
    """How an exercise's run step is said: here Load plays the part of Play."""
    play_words = "Load the sample trace"
    """The button an exercise keeps off until a prediction is locked (Play and Step in the timed labs)."""

    horizon = param.Number(default=1.0, bounds=(1.0, 1.0), doc="Loaded: t reaches 1 when the sample is read.")
    step_size = param.Number(default=1.0, bounds=(1.0, 1.0), doc="Load reads the whole sample at once.")

    @property
    def loaded(self) -> bool:
        """Whether the sample has been loaded (Load pressed since the last Reset)."""
        return self.at_end

    @property
    def last_ready_rank(self) -> str:
        """The rank whose gradients were ready last for the last bucket: ``"rank 1"`` in the sample."""
        return f"rank {sample_run().last_ready_rank[-1]}"

    @property
    def longer_tail_rank(self) -> str:
        """The rank whose trace shows the longer tail (last all-reduce end after its own backward end)."""
        longest = max(sample_run().timelines, key=lambda tl: tl.tail_ms if tl.tail_ms is not None else -np.inf)
        return f"rank {longest.rank}"

    def trajectory(self) -> dict[str, np.ndarray]:
        """Two breakpoints: not loaded at 0, loaded at the horizon (nothing else moves)."""
        return {"t": np.array([0.0, self.horizon])}


LAB = LabRegistration(
    slug="trace",
    title="Sample trace",
    blurb="a real two-rank DDP trace in which one rank is late.",
    intro="Load the sample trace: two ranks of a DDP run made with PyTorch, in which rank 1 is late.",
    model="app.trace.page.sample:SampleTraceReading",
    view="app.trace.page.lab:TraceLab",
    choices={"last_ready_rank": RANK_CHOICES, "longer_tail_rank": RANK_CHOICES},
)
"""The sample trace as a lab a lesson's exercise may name (``lab: trace``); it has no page of its own:
the trace page (``/trace``) is where anyone loads the sample or their own files."""
