"""Bokeh's ``extra_patterns`` are tried after every application's routes, with no public way in front (stock Bokeh).

``BokehTornado.__init__`` builds its route list as: the favicon, each application's routes
(``/app/?``, ``/app/ws``, ...) and static routes, then ``extra_patterns``, then the top-level
routes. An extra pattern that overlaps an application's route is never reached. Tornado's public
``Application.add_handlers`` can put rules in front, but ``bokeh.server.server.Server`` keeps its
Tornado application as the private ``_tornado``. This script serves one app with an extra pattern
for ``/app/`` (a redirect to ``/app``, as a site that wants one canonical URL would add), requests
``/app/`` and prints which handler answered.

Run: python routes_first.py. Prints the status and the handler's class.
"""

import socket
import urllib.error
import urllib.request

from bokeh.application import Application
from bokeh.application.handlers.function import FunctionHandler
from bokeh.models import Div
from bokeh.server.server import Server
from tornado.ioloop import IOLoop
from tornado.web import RedirectHandler


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Report a redirect instead of following it."""

    def redirect_request(self, *args, **kwargs):
        """Follow nothing."""
        return None


def main() -> None:
    """Serve, request /app/, print what answered."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = Application(FunctionHandler(lambda doc: doc.add_root(Div(text="hi"))))
    server = Server({"/app": app}, io_loop=IOLoop.current(), port=port, address="127.0.0.1",
                    extra_patterns=[(r"/app/", RedirectHandler, {"url": "/app"})])
    server.start()
    routes = [rule.matcher.regex.pattern for rule in server._tornado.default_router.rules[0].target.rules]
    print("route order:", routes[:4], "...", [r for r in routes if r.startswith("/app/$")])

    loop = IOLoop.current()

    def request() -> None:
        opener = urllib.request.build_opener(NoRedirect)
        try:
            with opener.open(f"http://127.0.0.1:{port}/app/") as response:
                print(f"GET /app/ -> {response.status}, {len(response.read()):,} bytes of Bokeh's page "
                      "(the extra pattern's redirect was never tried)")
        except urllib.error.HTTPError as error:
            print(f"GET /app/ -> {error.code} {error.headers.get('Location')} (the extra pattern answered)")
        loop.add_callback(loop.stop)  # from the request's thread: thread-safe

    loop.run_in_executor(None, request)
    loop.start()
    server.stop()


if __name__ == "__main__":
    main()
