"""Baseline for bench/play_cpu.py: the queue lab animated by the server, 20 frames per second.

Served with ``panel serve``; never part of the app. Each session starts playing on load, the way a
naive implementation would: one periodic callback per session that advances t and redraws.
"""

import panel as pn

from labs.queue.view import QueueLab

FRAME_MS = 50

lab = QueueLab()
lab.model.param.update(arrival_rate=2.0, service_rate=3.0, horizon=10_000.0)


def advance() -> None:
    """Move model time on by one frame; the view's watchers redraw and push the patch."""
    lab.model.t = lab.model.t + FRAME_MS / 1000


pn.state.onload(lambda: pn.state.add_periodic_callback(advance, period=FRAME_MS))
lab.servable()
