"""The roofline lab's view: typed controls, device presets, Reset/Step/Play, the roofline Play plays on.

The pieces live beside it: the device presets (:mod:`labs.roofline.devices`), the words
(:mod:`labs.roofline.text`) and the figure (:mod:`labs.roofline.figures`); this module puts them
together for one session and keeps the Device chooser and the compute roof P in step.
"""

from __future__ import annotations

import panel as pn
import param
from bokeh.models import Div

from labs.numbers import significant
from labs.roofline import LAB
from labs.roofline.devices import CUSTOM_DEVICE, DEVICES, TEACHING_DEVICE, sources_html
from labs.roofline.figures import RooflineChart
from labs.roofline.model import RooflineModel
from labs.roofline.text import (
    UNITS,
    explain_html,
    pace_caption,
    readout_template,
    roofline_text,
    scope_html,
)
from labs.ui.lab_view import LabView
from labs.ui.number_field import NumberField
from labs.ui.plot_text import PlotText
from labs.ui.select_field import SelectField
from labs.ui.stage import ControlGroup
from labs.ui.two_way import TwoWay


class RooflineLab(LabView):
    """One student's roofline lab: a :class:`RooflineModel` drawn with Bokeh, served by Panel.

    With ``presets=True`` (the standalone lab) a "Device" chooser sets P and B from real
    accelerators and P can be typed; with ``presets=False`` (a lesson) P stays at its default,
    1000 GFLOP/s, and is shown as a fixed value.
    """

    title = LAB.title  # one place: the registration in labs/roofline/__init__.py

    model = param.ClassSelector(class_=RooflineModel, doc="This session's roofline model.")
    presets = param.Boolean(
        default=True,
        constant=True,
        doc="Offer the Device chooser and a typed compute roof P; False fixes P as in the lessons.",
    )

    def __init__(self, **params):
        params.setdefault("model", RooflineModel())
        super().__init__(**params)
        names = self.model.controls if self.presets else ("intensity", "bandwidth")
        self.fields = [NumberField(model=self.model, control=n, unit=UNITS[n]) for n in names]
        self.fixed_roof = pn.pane.HTML(
            f"<p style='margin:8px 0'>Compute roof P = {significant(self.model.peak_compute)} GFLOP/s "
            "(fixed in this lesson)</p>",
            min_width=150,
            margin=(0, 10),
            styles={"flex": "1 1 170px"},
        )
        self.device = SelectField(label="Device", options=[*DEVICES, CUSTOM_DEVICE], value=TEACHING_DEVICE)
        if self.presets:  # choosing a device sets P and B; a P of no device shows Custom
            self.device_link = TwoWay(
                self.device,
                shown=self._device_shown,
                apply=self._device_chosen,
                model=self.model,
                controls=("peak_compute",),
                in_force=lambda label: label not in DEVICES,  # Custom changes nothing
            )
        self.explain = Div(text="", sizing_mode="stretch_width", margin=(0, 10, 0, 10))
        self.chart = RooflineChart(self.model.peak_compute, self.transport.marker)
        self.roofline = self.chart.figure
        kernel = ControlGroup("Kernel and device", tuple(self._controls()))
        self._assemble([self.roofline], [kernel], more=[self.explain, self._notes()], plots=[self.roofline])

    # ----- layout -------------------------------------------------------------------------

    def _controls(self) -> list[tuple[str, pn.viewable.Viewable]]:
        """Each control with its key: the device (with presets), the fields, the fixed roof (without)."""
        controls: list[tuple[str, pn.viewable.Viewable]] = [("device", self.device)] if self.presets else []
        controls += [(field.control, field) for field in self.fields]
        if not self.presets:
            controls.append(("peak_compute", self.fixed_roof))
        return controls

    def _notes(self) -> Div:
        """What Play draws on the roofline, the lab's scope and (with presets) the device figures' sources."""
        notes = pace_caption() + scope_html() + (sources_html() if self.presets else "")
        return Div(text=notes, sizing_mode="stretch_width", margin=(0, 10, 0, 10))

    # ----- presets ------------------------------------------------------------------------

    def _device_chosen(self, label: str) -> None:
        device = DEVICES[label]
        self.model.param.update(peak_compute=device.peak_compute, bandwidth=device.bandwidth)

    def _device_shown(self) -> str:
        """The device chosen, while P is still its roof; else the first device with this P, or Custom."""
        peak = self.model.peak_compute
        chosen = DEVICES.get(self.device.value)
        if chosen is not None and chosen.peak_compute == peak:
            return self.device.value
        match = next((d for d in DEVICES.values() if d.peak_compute == peak), None)
        return match.label if match else CUSTOM_DEVICE

    # ----- readout and redraw -------------------------------------------------------------

    def _template(self) -> str:
        return readout_template(self.model, self.conceal)

    def describe_plots(self) -> list[PlotText]:
        """The roofline as drawn now, with Play's pace; while concealed, without ridge, attainable or finish."""
        return [roofline_text(self.model, self.conceal)]

    def _redraw(self) -> None:
        self.chart.redraw(self.model, self.conceal)
        self.explain.text = explain_html(self.model, self.conceal)
