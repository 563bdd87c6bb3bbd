"""What the page would send a lab's view, for headless view tests (no browser, no server)."""

from __future__ import annotations

import itertools
import re

_SEQUENCE = itertools.count(1)


def status_text(lab) -> str:
    """The lab's readout as plain text."""
    return re.sub(r"<[^>]+>", " ", lab.transport.status.text)


def send(lab, action: str, t: float | None = None) -> None:
    """Deliver one command as player.js sends it (Pause, end, Step, Reset, edit while playing)."""
    lab.transport.state.command = {"action": action, "t": t, "seq": next(_SEQUENCE)}


def field(lab, control: str):
    """The lab's NumberField for ``control``."""
    return next(f for f in lab.fields if f.control == control)
