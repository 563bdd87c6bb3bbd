"""The bucket timeline lab: DDP's gradient buckets, the all-reduce stream and the exposed tail of one step."""

from labs.registry import LabRegistration

LAB = LabRegistration(
    slug="timeline",
    title="Bucket timeline lab",
    blurb="DDP's gradient buckets, the all-reduce stream beside backward, and the exposed tail.",
    intro=(
        "Choose a model and the bucket caps, then Step or Play through one training step: backward "
        "runs from the last layer to the first, each bucket's all-reduce starts once its gradients "
        "are ready and the one before it is done, and what is left after backward is exposed. Below the "
        "caps, make it go wrong: contention, launch gaps, a missing event, an optimizer that does not "
        "wait, a synchronization after every bucket, a rank that skips a gradient."
    ),
    model="labs.timeline.model:TimelineModel",
    view="labs.timeline.view:TimelineLab",
    units={
        "exposed": "ms",
        "step_time": "ms",
        "bucket_count": "buckets",
        "backward_end": "ms",
        "no_overlap_step": "ms",
        "backward_lost": "ms",
        "backward_stalled": "ms",
        "completed": "all-reduces",
        "straggler_wait": "ms",
        "host_return": "ms",
        "host_unseen": "ms",
        "in_flight_layers": "layers",
        "read_early_count": "layers",
        "optimizer_early_count": "layers",
        "ring_bandwidth": "GB/s",
        "pending_max": "all-reduces",
    },
    counts={
        "bucket_count": "bucket",
        "completed": "all-reduce",
        "read_early_count": "layer",
        "optimizer_early_count": "layer",
        "in_flight_layers": "layer",
        "pending_max": "all-reduce",
    },
    choices={
        "result": ("valid", "invalid"),
        "against_no_overlap": ("shorter", "as long", "longer"),
        "cost_share": ("mostly latency", "mostly payload", "half and half"),
    },
)
