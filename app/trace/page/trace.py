"""The page "Your own trace" (``/trace``): a PyTorch profiler trace of DDP on the bucket timeline."""

from __future__ import annotations

import panel as pn

from app.web.shell import deferred, page

INTRO = (
    "Drop the Chrome-trace files torch.profiler exported for one DDP run, one per rank (.json or "
    ".json.gz). The page finds each bucket's ready, issue, start and end, the tail and the exposed "
    "communication, and can fill the bucket timeline lab with the same layout so you can compare the "
    "model with what you measured. The files stay in this browser tab's session and are never stored."
)


def build() -> pn.template.base.BaseTemplate:
    """Build the trace page for one session."""
    from app.trace.page.view import TraceView  # the page's own view, built once the page has loaded

    pn.extension("filedropper")  # its JavaScript must be on the page before the deferred view arrives
    return page("Your own trace", deferred(TraceView, sizing_mode="stretch_width"), intro=INTRO)


if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
    build().servable()
