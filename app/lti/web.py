"""What the LTI handlers share: the tool, the refusal page, and the tool's own absolute URLs."""

from __future__ import annotations

import html
import logging

from tornado.web import RequestHandler

from app.classroom.signin import client_address
from app.lti.tool import Tool, current_tool
from app.web import share

LOG = logging.getLogger("app.lti")

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem">
<main><h1>{title}</h1><p role="alert">{reason}</p><p>{advice}</p></main></body></html>
"""

ADVICE = "Nothing of the course was opened. Open the link in your course again; if this persists, tell the instructor."


def refusal_page(title: str, reason: str, advice: str = ADVICE) -> str:
    """A plain HTML page saying why a request was refused (escaped; no script)."""
    return PAGE.format(title=html.escape(title), reason=html.escape(reason), advice=html.escape(advice))


def tool_url(handler: RequestHandler, path: str) -> str:
    """An absolute URL of the tool: ``--public-url`` (or ``PUBLIC_URL``) and ``path``, else this request's host."""
    base = share.public_url()
    if not base:
        base = f"{handler.request.protocol}://{handler.request.host}/"
    return base.rstrip("/") + "/" + path.lstrip("/")


class LtiHandler(RequestHandler):
    """What every LTI handler shares: the tool, and the refusal page."""

    def prepare(self) -> None:
        """Answer 404 when LTI is off in this process (the routes are then not even added by ``python -m app``)."""
        self.set_header("Cache-Control", "no-store")
        if current_tool() is None:
            self.send_error(404)

    @property
    def tool(self) -> Tool:
        """The process's tool (``prepare`` made sure there is one)."""
        tool = current_tool()
        assert tool is not None
        return tool

    def refuse(self, where: str, reason: str, status: int = 400) -> None:
        """Finish with the refusal page and log one line (never a token, a cookie or a user id)."""
        LOG.warning("LTI %s refused from %s: %s", where, client_address(self.request), reason)
        self.set_status(status)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(refusal_page("This launch was refused", f"The launch was refused: {reason}."))

    def write_error(self, status_code: int, **kwargs) -> None:
        """A plain page for errors too (a 404 when LTI is off, a 500), never a traceback."""
        self.set_header("Content-Type", "text/html; charset=utf-8")
        reason = "LTI is not configured on this server." if status_code == 404 else "Something went wrong."
        self.finish(refusal_page(f"{status_code}", reason))
