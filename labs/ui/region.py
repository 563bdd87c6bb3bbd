"""A landmark region with an accessible name around any Panel object."""

from __future__ import annotations

import param
from panel.custom import Child, Children, JSComponent

from labs.ui import browser_code

REGION_JS = browser_code("region.js")


class NamedRegion(JSComponent):
    """Render ``<section role="region" aria-label=label>`` around a lab: heading, controls, body.

    Panel has no ARIA parameters of its own; this is the wrapper design.md asks for, so that screen
    readers and role queries find each lab by its name. It also lays out the lab's heading and its
    row of controls (wrapping on a phone) itself: every Panel layout object would be one more model
    to build for every student.
    """

    label = param.String(default="", doc="The region's accessible name, e.g. 'Queue lab'.")
    role = param.Selector(
        default="region", objects=["region", "group"], doc="The landmark's role: a region, or a group of controls."
    )
    heading = param.String(default="", doc="An optional visible heading (h2) at the top of the region.")
    controls = Children(default=[], doc="Controls shown in a row under the heading, wrapping as needed.")
    object = Child(doc="The Panel object shown inside the region, under the controls.")

    _esm = REGION_JS
