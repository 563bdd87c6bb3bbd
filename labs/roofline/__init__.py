"""The roofline lab: attainable performance under a memory-bandwidth slope and a compute roof."""

from labs.registry import LabRegistration

LAB = LabRegistration(
    slug="roofline",
    title="Roofline lab",
    blurb="arithmetic intensity, memory bandwidth and the compute roof.",
    intro=(
        "Set the arithmetic intensity I and the memory bandwidth B, read off the attainable "
        "performance min(P, I·B), then Step or Play a fixed workload on the chosen device and "
        "watch the slower of its bytes and its FLOPs set when it is done."
    ),
    model="labs.roofline.model:RooflineModel",
    view="labs.roofline.view:RooflineLab",
    page_options={"presets": True},
    lesson_options={"presets": False},
    units={"attainable": "GFLOP/s", "ridge": "FLOP/byte"},
    choices={"regime": ("memory-bound", "compute-bound", "at the ridge: memory-bound and compute-bound at once")},
)
