"""What every page does when it loses its connection to the course server.

Bokeh 3 does not carry a session over a server restart, and a lost websocket used to leave the
page silent: Step did nothing, typed values were neither applied nor refused. :class:`ConnectionWatch`
is one small component on every page (added by :func:`app.web.shell.page`) whose browser code
(``assets/connection/``) listens for Bokeh's ``connection_lost`` document event (and for the browser
reporting itself offline for more than 3 s: a dropped Wi-Fi can leave the websocket open and
silent) and then, in the browser only:

- shows a ``role="alert"`` message: what happened, what still works, what to do;
- disables every control inside the page's named regions (each lab, each exercise card) and stops
  events from reaching anything in them, so nothing can be typed or pressed that would go nowhere
  (Play too: it would run in the browser, but nothing it showed could be checked or recorded);
- saves the lab's typed values, its selections and any unfinished prediction in ``sessionStorage``;
- asks ``/healthz`` every few seconds (``panel serve`` has none: then any answer below 500 to the
  page's own URL will do) and, once the server answers, offers a focused "Reload" button.

After the reload the saved values are typed back into the same controls (the server checks them
as it checks anything typed), predictions come back unlocked in their fields, and finished
exercises come from ``localStorage`` as always (:mod:`app.course.progress`). While connected it sends
nothing and runs no timer; its cost per session is one model.
"""

from __future__ import annotations

from pathlib import Path

from panel.custom import JSComponent

from app.web.delivery.browser_code import script
from labs.ui import stylesheet

ASSETS = Path(__file__).parent / "assets"

CONNECTION_PARTS = ("state.js", "page.js", "lockout.js", "saved.js", "notice.js", "connection.js")
"""``assets/connection/``, one job a file, joined in this order into one module (``connection.js`` last)."""

# Sent to every page in its session document: the comment lines stay in the files, not on the wire.
CONNECTION_JS = script(*(ASSETS / "connection" / part for part in CONNECTION_PARTS))

CONNECTION_CSS = stylesheet(ASSETS / "connection.css")


class ConnectionWatch(JSComponent):
    """The page's notice for a lost connection to the course server, hidden while connected."""

    _esm = CONNECTION_JS

    def __init__(self, **params):
        params.setdefault("stylesheets", [CONNECTION_CSS])
        params.setdefault("margin", 0)
        super().__init__(**params)
