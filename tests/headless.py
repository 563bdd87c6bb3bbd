"""What the page would send a lab's view, for headless view tests (no browser, no server)."""

from __future__ import annotations

import itertools
import re

_SEQUENCE = itertools.count(1)


def status_text(lab) -> str:
    """The lab's readout as plain text."""
    return re.sub(r"<[^>]+>", " ", lab.transport.status.text)


def send(lab, action: str, t: float | None = None) -> None:
    """Deliver one command as player.js sends it (Pause, end, Step, Reset, edit while playing).

    The sample trace (app.trace.page.lab.TraceLab) has no player: Reset is its Reset button, and every
    command that plays ("step", "end") is a press of Load the sample trace.
    """
    if not hasattr(lab, "transport"):
        button = lab.reset if action == "reset" else lab.sample
        button.clicks += 1
        return
    lab.transport.state.command = {"action": action, "t": t, "seq": next(_SEQUENCE)}


def play_allowed(lab) -> bool:
    """Whether the lab's Play and Step are on (the sample trace's Load the sample trace)."""
    return lab.transport.allowed if hasattr(lab, "transport") else not lab.sample.disabled


def field(lab, control: str):
    """The lab's NumberField for ``control``."""
    return next(f for f in lab.fields if f.control == control)
