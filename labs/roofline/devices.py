"""The roofline lab's device presets: real accelerators' compute roofs and memory bandwidths, with sources."""

from __future__ import annotations

import html
from dataclasses import dataclass

from labs.roofline.model import RooflineModel
from labs.ui.palette import MUTED_GREY


@dataclass(frozen=True)
class Device:
    """A device preset: its compute roof, memory bandwidth, and where those figures come from."""

    label: str
    peak_compute: float
    bandwidth: float
    source: str


DEVICES = {
    device.label: device
    for device in (
        Device(
            "Teaching device (1000 GFLOP/s)",
            RooflineModel.param.peak_compute.default,
            RooflineModel.param.bandwidth.default,
            "A made-up device for the lessons: P = 1000 GFLOP/s; choosing it sets B = 200 GB/s.",
        ),
        Device(
            "NVIDIA H100 SXM (989 TFLOP/s, 3.35 TB/s)",
            989_000.0,
            3350.0,
            "NVIDIA H100 Tensor Core GPU datasheet, SXM column: BF16 Tensor Core 1,979 TFLOPS "
            "with sparsity, so about 989 TFLOP/s dense; GPU memory bandwidth 3.35 TB/s (HBM3).",
        ),
        Device(
            "NVIDIA H200 SXM (989 TFLOP/s, 4.8 TB/s)",
            989_000.0,
            4800.0,
            "NVIDIA H200 Tensor Core GPU datasheet, SXM column: the same BF16 Tensor Core figure "
            "as the H100 (1,979 TFLOPS with sparsity, about 989 dense); 4.8 TB/s (HBM3e).",
        ),
        Device(
            "NVIDIA A100 SXM 80GB (312 TFLOP/s, 2.04 TB/s)",
            312_000.0,
            2039.0,
            "NVIDIA A100 Tensor Core GPU datasheet, 80GB SXM column: BF16 Tensor Core 312 TFLOPS "
            "dense (624 with sparsity); GPU memory bandwidth 2,039 GB/s (HBM2e).",
        ),
    )
}
TEACHING_DEVICE = next(iter(DEVICES))
CUSTOM_DEVICE = "Custom (typed compute roof)"


def sources_html() -> str:
    """The device figures' sources, as a named section (the standalone lab shows it)."""
    items = "".join(
        f"<li><strong>{html.escape(d.label)}</strong>: {html.escape(d.source)}</li>" for d in DEVICES.values()
    )
    return (
        f'<section aria-label="Device figures" style="font-size:0.9rem;color:{MUTED_GREY}">'
        "<h3 style='font-size:1rem;margin:4px 0'>Where the device figures come from</h3>"
        f"<ul style='margin:0;padding-left:1.2em'>{items}</ul>"
        "<p style='margin:4px 0'>Peak figures from the vendor's datasheets; real kernels "
        "reach less than either roof.</p></section>"
    )
