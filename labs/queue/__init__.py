"""The fluid-queue lab: backlog under arrival rate λ and service rate μ, with an M/M/1 reference and a random queue."""

from labs.queue.schedule import PEAK_AGAINST_MEAN
from labs.registry import LabRegistration

LAB = LabRegistration(
    slug="queue",
    title="Queue lab",
    blurb="arrival rate λ, service rate μ, backlog, and the M/M/1 reference.",
    intro=(
        "Set the arrival rate λ and the service rate μ, then Step or Play to watch the fluid "
        "backlog grow or drain. The M/M/1 panel is a separate reference model."
    ),
    model="labs.queue.model:QueueModel",
    view="labs.queue.view:QueueLab",
    units={
        "backlog": "work units",
        "net_rate": "work units/s",
        "drain_time": "s",
        "random_jobs": "jobs",
        "random_average": "jobs",
        "random_peak": "jobs",
    },
    counts={"random_jobs": "job", "random_peak": "job"},
    choices={"peak_against_mean": PEAK_AGAINST_MEAN},
)
