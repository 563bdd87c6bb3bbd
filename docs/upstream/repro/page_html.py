"""With session reuse, Panel renders the same page anew for every request; only the token differs (stock Panel).

``pn.serve(..., reuse_sessions=True)`` answers every request for a page from one cached session,
but ``DocHandler.get`` calls ``server_html_page_for_session`` each time: ``bundle_resources`` over
the document's roots, then Bokeh's Jinja page template. This script serves a BootstrapTemplate app
on loopback with session reuse, requests the page 30 times, times that function on the server (a
wrapper that calls Panel's own), and checks whether the pages differ once each one's session token
and the ids Bokeh generates per render (the roots' element ids, the JSON script's id) are
blanked out.

Run: python page_html.py. Prints ms per render (median) and how many distinct pages came back.
"""

import os
import re
import socket
import statistics
import time
import urllib.request

import panel as pn
from panel.io import server as panel_server

renders: list[float] = []
PANEL_PAGE = panel_server.server_html_page_for_session


def timed_page(*args, **kwargs) -> str:
    """Panel's own ``server_html_page_for_session``, timed."""
    start = time.perf_counter()
    page = PANEL_PAGE(*args, **kwargs)
    renders.append((time.perf_counter() - start) * 1000)
    return page


panel_server.server_html_page_for_session = timed_page


def app() -> pn.template.BootstrapTemplate:
    """A template page with a few widgets."""
    return pn.template.BootstrapTemplate(
        title="Demo", sidebar=[pn.widgets.FloatSlider(name="x")],
        main=[pn.pane.Markdown("# Hello\n\n" + "text " * 100), pn.widgets.Select(options=["a", "b"])],
    )


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
SCRIPT_ID = re.compile(r"""(<script type="application/json" id=|getElementById\()(["'])p\d+\2""")


def blank(page: str) -> str:
    """The page with the ids Bokeh makes anew at each render replaced by placeholders."""
    return SCRIPT_ID.sub(r"\1\2ID\2", UUID.sub("UUID", page))


def main() -> None:
    """Serve with session reuse, request 30 times, compare the pages without their tokens."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pn.config.reuse_sessions = True
    server = pn.serve({"app": app}, port=port, address="127.0.0.1", threaded=True, show=False)
    time.sleep(1.0)
    pages = []
    for _ in range(30):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/app") as response:
            pages.append(response.read().decode())
    server.stop()
    tokens = [re.search(r'"token":"([^"]+)"', page) for page in pages]
    distinct_tokens = {t.group(1) for t in tokens if t}
    blanked = {blank(page.replace(t.group(1), "TOKEN") if t else page) for page, t in zip(pages, tokens, strict=True)}
    later = renders[1:]
    print(f"requests: {len(pages)}; distinct session tokens: {len(distinct_tokens)}; "
          f"distinct pages once token and generated ids are blanked: {len(blanked)}; size: {len(pages[-1]):,} bytes")
    print(f"server_html_page_for_session: first {renders[0]:.1f} ms, then median {statistics.median(later):.1f} ms "
          f"a request (load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
