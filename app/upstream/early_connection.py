"""A page's websocket opened, and its document asked for, from the page's head (``assets/early_connection.js``).

A fix of this package because the script stands in for BokehJS's own connection: it replaces
``window.WebSocket`` until Bokeh creates its socket, and replays to Bokeh the frames of Bokeh's
protocol it has received (BokehJS 3.9's ``protocol/message.ts`` and ``client/connection.ts``). A
page sends it only where :func:`app.upstream.install` found the Bokeh it was checked on; elsewhere
Bokeh opens its websocket itself, once the bundles have run.

Bokeh opens the websocket only once every script bundle has arrived and run; the server then builds
the student's session, and Bokeh asks for the document only after that. On a phone's slow 4G that is
a session build and two round trips after the scripts, with the network idle. The page's head
opens the same websocket instead, so all of it happens while the bundles download, and Bokeh is
handed the open socket with what it has received (the asset's comments say how).

The course template (``templates/course.html``) calls :func:`script_html` with the page's session
token, which Bokeh's page template has as ``doc.token``: the token then appears twice in the page,
here and in Bokeh's own embed script.
"""

from __future__ import annotations

import json

from markupsafe import Markup

from app.upstream import ASSETS
from app.upstream.browser_code import script

EARLY_CONNECTION_JS = script(ASSETS / "early_connection.js")
"""``assets/early_connection.js`` without its comment lines: a function of the session token."""


class EarlyConnection:
    """Whether :func:`install` has been called."""

    on = False


def install() -> None:
    """Open every course page's websocket from its head from now on (idempotent)."""
    EarlyConnection.on = True


def script_html(token: str | None) -> Markup:
    """The ``<script>`` that opens a page's websocket early, or nothing for a page without a session.

    Parameters
    ----------
    token : str or None
        The page's Bokeh session token (a page rendered without a server session has none).

    Returns
    -------
    markupsafe.Markup
        One inline script for the page's head, before the bundles' loader; empty without a token, and
        where the fix is not installed.
    """
    if not token or not EarlyConnection.on:
        return Markup("")
    token_json = json.dumps(token).replace("</", "<\\/")
    return Markup(f"<script>({EARLY_CONNECTION_JS})({token_json})</script>")
