"""Bokeh's and Panel's JavaScript and CSS sent gzipped, each file compressed once per process.

Tornado sends static files as they are on disk: about 3.1 MB of JavaScript and CSS for a lesson's
first visit, 0.8 MB gzipped. Tornado's own ``compress_response`` setting would gzip them again for
every student (about 120 ms of server CPU per first visit here, most of a session's cost), so these
handlers keep the gzipped bytes of each file in memory instead, keyed by path, size and mtime.

- ``python -m app`` puts :data:`ROUTES` in front of Bokeh's and Panel's own static routes
  (``app.server``) and turns on ``compress_response`` for the rest (the page's HTML).
- ``panel serve ... --plugins app.panel_plugin`` adds :data:`ROUTES` the documented way (a plugin
  module's ``ROUTES``); with no root app they are tried before Bokeh's static routes.

A client that does not accept gzip, or asks for a byte range, gets the file as it is on disk, as
before. Every compressible answer says ``Vary: Accept-Encoding``, so nginx's cache keeps both kinds
apart, and the gzipped one has its own ETag.
"""

from __future__ import annotations

import gzip
import os
import threading
from typing import ClassVar

from bokeh.server.views.multi_root_static_handler import MultiRootStaticHandler
from bokeh.server.views.static_handler import StaticHandler
from panel.io.resources import extension_dirs
from tornado.iostream import StreamClosedError
from tornado.web import StaticFileHandler

MIN_SIZE = 1024
"""Files smaller than this (bytes) go as they are: gzip's header would eat the gain."""

LEVEL = 9
"""gzip level: compression runs once per file and process, so the smallest output is worth it."""

CHUNK = 64 * 1024
"""Bytes written at a time, as :class:`tornado.web.StaticFileHandler` does."""

COMPRESSIBLE = ("text/", "application/javascript", "application/json", "application/xml", "image/svg+xml")
"""Content types (prefixes) worth compressing; fonts and images are compressed already."""


class GzipStatic(StaticFileHandler):
    """A static-file handler mixin that answers ``Accept-Encoding: gzip`` with cached gzipped bytes.

    Put it before a :class:`tornado.web.StaticFileHandler` subclass in the bases; everything else
    (paths, versions, cache headers, 304s) stays that handler's.
    """

    _gzipped: ClassVar[dict[tuple[str, int, int], bytes | None]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def initialize(self, *args, **kwargs) -> None:  # noqa: D102 - Tornado's hook, documented there
        self._gzip_body: bytes | None = None
        super().initialize(*args, **kwargs)

    def compressible(self) -> bool:
        """Whether this answer's content type is worth compressing.

        Returns
        -------
        bool
            True for text, JavaScript, JSON, XML and SVG.
        """
        return (self.get_content_type() or "").startswith(COMPRESSIBLE)

    def accepts_gzip(self) -> bool:
        """Whether the request takes a gzipped answer (and asks for the whole file).

        Returns
        -------
        bool
            True when ``Accept-Encoding`` names gzip (not with ``q=0``) and there is no ``Range``.
        """
        if self.request.headers.get("Range"):
            return False
        for part in self.request.headers.get("Accept-Encoding", "").split(","):
            coding, _, params = part.strip().partition(";")
            if coding.strip().lower() in ("gzip", "*") and params.replace(" ", "") not in ("q=0", "q=0.0"):
                return True
        return False

    @classmethod
    def gzipped(cls, absolute_path: str) -> bytes | None:
        """The gzipped bytes of a file, compressed on first use and kept for the process's life.

        Parameters
        ----------
        absolute_path : str
            A file the handler has validated.

        Returns
        -------
        bytes or None
            The compressed file, or None when it is too small or does not get smaller.
        """
        stat = os.stat(absolute_path)
        key = (absolute_path, stat.st_size, stat.st_mtime_ns)
        with cls._lock:
            if key in cls._gzipped:
                return cls._gzipped[key]
        body = None
        if stat.st_size >= MIN_SIZE:
            with open(absolute_path, "rb") as file:
                raw = file.read()
            packed = gzip.compress(raw, compresslevel=LEVEL, mtime=0)
            body = packed if len(packed) < len(raw) else None
        with cls._lock:
            cls._gzipped[key] = body
        return body

    def compute_etag(self) -> str | None:
        """The file's ETag, marked ``-gzip`` for the gzipped answer (a different representation).

        Returns
        -------
        str or None
            The quoted ETag.
        """
        etag = super().compute_etag()
        if etag is not None and self._gzip_body is not None:
            return etag[:-1] + '-gzip"'
        return etag

    def set_extra_headers(self, path: str) -> None:
        """Say ``Content-Encoding: gzip`` when gzipped, and ``Vary: Accept-Encoding`` on every compressible answer.

        Parameters
        ----------
        path : str
            The requested path, as Tornado passes it.
        """
        super().set_extra_headers(path)
        settings = self.application.settings
        if self.compressible() and not (settings.get("compress_response") or settings.get("gzip")):
            self.set_header("Vary", "Accept-Encoding")  # else Tornado's own gzip transform adds it
        if self._gzip_body is not None:
            self.set_header("Content-Encoding", "gzip")

    async def get(self, path: str, include_body: bool = True) -> None:
        """Answer with the gzipped file when the client takes it, else as Tornado would.

        Parameters
        ----------
        path : str
            The path captured by the route.
        include_body : bool
            False for HEAD.
        """
        if not self.accepts_gzip():
            return await super().get(path, include_body)
        self.path = self.parse_url_path(path)
        absolute_path = self.get_absolute_path(self.root, self.path)
        self.absolute_path = self.validate_absolute_path(self.root, absolute_path)
        if self.absolute_path is None:
            return None
        body = self.gzipped(self.absolute_path) if self.compressible() else None
        if body is None:
            return await super().get(path, include_body)
        self._gzip_body = body
        self.modified = self.get_modified_time()
        self.set_headers()
        if self.should_return_304():
            self.set_status(304)
            return None
        self.set_header("Content-Length", len(body))
        if include_body:
            for start in range(0, len(body), CHUNK):  # as Tornado sends a file: a tab may close meanwhile
                try:
                    self.write(body[start : start + CHUNK])
                    await self.flush()
                except StreamClosedError:
                    return None
        return None


class GzipBokehStatic(GzipStatic, StaticHandler):
    """BokehJS's files (``/static/...``), gzipped."""


class GzipExtensionStatic(GzipStatic, MultiRootStaticHandler):
    """Bokeh extensions' files, Panel's among them (``/static/extensions/<name>/...``), gzipped."""


ROUTES = [
    (r"/static/extensions/(.*)", GzipExtensionStatic, {"root": extension_dirs}),
    (r"/static/(.*)", GzipBokehStatic),
]
"""The routes, in the order they must be tried (``app.server``, ``app.panel_plugin``)."""
