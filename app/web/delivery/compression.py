"""Bokeh's and Panel's JavaScript and CSS sent compressed: brotli or gzip, each file compressed once.

Tornado sends static files as they are on disk: about 3.1 MB of JavaScript and CSS for a lesson's
first visit, 0.8 MB gzipped. Tornado's own ``compress_response`` setting would gzip them again for
every student (about 120 ms of server CPU per first visit here, most of a session's cost), so these
handlers keep the gzipped bytes of each file in memory instead, keyed by path, size and mtime.

- ``python -m app`` puts :data:`ROUTES` in front of Bokeh's and Panel's own static routes
  (``app.site.server``) and turns on ``compress_response`` for the rest (the page's HTML).
- ``panel serve ... --plugins app.site.panel_plugin`` adds :data:`ROUTES` the documented way (a plugin
  module's ``ROUTES``); with no root app they are tried before Bokeh's static routes.

A client that accepts brotli (every current browser, over HTTPS and on localhost) gets the file
brotli-compressed once that is ready (:mod:`app.web.delivery.brotli_store` compresses in the background, once
per machine; gzip meanwhile), about 17% fewer bytes than gzip. A client that accepts neither, or asks
for a byte range, gets the file as it is on disk. Every compressible answer says
``Vary: Accept-Encoding``, so nginx's cache keeps the kinds apart, and each encoding has its own ETag.
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

from app.web.delivery import brotli_store

MIN_SIZE = 1024
"""Files smaller than this (bytes) go as they are: gzip's header would eat the gain."""

LEVEL = 9
"""gzip level: compression runs once per file and process, so the smallest output is worth it."""

CHUNK = 64 * 1024
"""Bytes written at a time, as :class:`tornado.web.StaticFileHandler` does."""

COMPRESSIBLE = ("text/", "application/javascript", "application/json", "application/xml", "image/svg+xml")
"""Content types (prefixes) worth compressing; fonts and images are compressed already."""


class CompressedStatic(StaticFileHandler):
    """A static-file handler mixin that answers ``Accept-Encoding`` with cached brotli or gzip bytes.

    Put it before a :class:`tornado.web.StaticFileHandler` subclass in the bases; everything else
    (paths, versions, cache headers, 304s) stays that handler's.
    """

    _gzipped: ClassVar[dict[tuple[str, int, int], bytes | None]] = {}
    gzip_lock: ClassVar[threading.Lock] = threading.Lock()
    """Held while the gzip cache is read or written; not named ``_lock``, which is Tornado's own lock."""
    _cache_control: str | None = None  # this answer's Cache-Control so far, as set through set_header

    def initialize(self, *args, **kwargs) -> None:  # noqa: D102 - Tornado's hook, documented there
        self._coding: str | None = None  # the Content-Encoding of this answer, if compressed
        self._brotli_pending = False  # the client takes brotli, whose bytes are not ready yet
        super().initialize(*args, **kwargs)

    def compressible(self) -> bool:
        """Whether this answer's content type is worth compressing.

        Returns
        -------
        bool
            True for text, JavaScript, JSON, XML and SVG.
        """
        return (self.get_content_type() or "").startswith(COMPRESSIBLE)

    def accepted_codings(self) -> set[str]:
        """The compressed encodings this request takes for the whole file, as HTTP reads them.

        Returns
        -------
        set of str
            Of ``br`` and ``gzip``: those ``Accept-Encoding`` names (``*`` names both) without
            ``q=0``; none when the request asks for a byte range.
        """
        if self.request.headers.get("Range"):
            return set()
        accepted: set[str] = set()
        for part in self.request.headers.get("Accept-Encoding", "").split(","):
            coding, _, params = part.strip().partition(";")
            if params.replace(" ", "").lower() in ("q=0", "q=0.0", "q=0.00", "q=0.000"):
                continue
            coding = coding.strip().lower()
            accepted |= {"br", "gzip"} if coding == "*" else {coding} & {"br", "gzip"}
        return accepted

    @classmethod
    def encoded(cls, absolute_path: str, accepted: set[str]) -> tuple[bytes | None, str | None, bool]:
        """The file's bytes in the best encoding the client takes that is ready, and that encoding.

        Parameters
        ----------
        absolute_path : str
            A file the handler has validated.
        accepted : set of str
            From :meth:`accepted_codings`.

        Returns
        -------
        tuple
            ``(body, coding, pending)``: ``"br"`` once brotli's bytes are ready (asking starts
            them), else ``"gzip"``, else ``(None, None, pending)``: the file goes as it is.
            ``pending`` says that brotli was accepted but is not ready yet.
        """
        if os.stat(absolute_path).st_size < MIN_SIZE:
            return None, None, False
        pending = False
        if "br" in accepted:
            done, body = brotli_store.compressed(absolute_path)
            if body is not None:
                return body, "br", False
            pending = not done
        if "gzip" in accepted:
            body = cls.gzipped(absolute_path)
            if body is not None:
                return body, "gzip", pending
        return None, None, pending

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
        with cls.gzip_lock:
            if key in cls._gzipped:
                return cls._gzipped[key]
        body = None
        if stat.st_size >= MIN_SIZE:
            with open(absolute_path, "rb") as file:
                raw = file.read()
            packed = gzip.compress(raw, compresslevel=LEVEL, mtime=0)
            body = packed if len(packed) < len(raw) else None
        with cls.gzip_lock:
            cls._gzipped[key] = body
        return body

    def compute_etag(self) -> str | None:
        """The file's ETag, marked ``-br`` or ``-gzip`` for a compressed answer (another representation).

        Returns
        -------
        str or None
            The quoted ETag.
        """
        etag = super().compute_etag()
        if etag is not None and self._coding is not None:
            return f'{etag[:-1]}-{self._coding}"'
        return etag

    def set_extra_headers(self, path: str) -> None:
        """Say ``Content-Encoding`` when compressed, and ``Vary: Accept-Encoding`` on every compressible answer.

        A client that takes brotli but is sent gzip (brotli's bytes are not ready yet) may keep that
        answer as long as any other (the student's next page takes it from the browser's cache), but
        no shared cache may (``Cache-Control: private``): nginx's would otherwise give that gzip copy
        to every later browser sending the same header.

        Parameters
        ----------
        path : str
            The requested path, as Tornado passes it.
        """
        super().set_extra_headers(path)
        settings = self.application.settings
        if self.compressible() and not (settings.get("compress_response") or settings.get("gzip")):
            self.set_header("Vary", "Accept-Encoding")  # else Tornado's own gzip transform adds it
        if self._coding is not None:
            self.set_header("Content-Encoding", self._coding)
        if self._brotli_pending:
            kept = self._cache_control
            self.set_header("Cache-Control", f"private, {kept}" if kept else "private")

    def set_header(self, name: str, value: object) -> None:
        """Tornado's ``set_header``, remembering the ``Cache-Control`` the static handler chose.

        Parameters
        ----------
        name : str
            The header's name.
        value : object
            Its value, as Tornado takes it.
        """
        super().set_header(name, value)
        if name.lower() == "cache-control":
            self._cache_control = str(value)

    def clear_header(self, name: str) -> None:
        """Tornado's ``clear_header``, forgetting a ``Cache-Control`` it clears.

        Parameters
        ----------
        name : str
            The header's name.
        """
        super().clear_header(name)
        if name.lower() == "cache-control":
            self._cache_control = None

    async def get(self, path: str, include_body: bool = True) -> None:
        """Answer with the brotli or gzipped file when the client takes it, else as Tornado would.

        Parameters
        ----------
        path : str
            The path captured by the route.
        include_body : bool
            False for HEAD.
        """
        accepted = self.accepted_codings()
        if not accepted:
            return await super().get(path, include_body)
        self.path = self.parse_url_path(path)
        absolute_path = self.get_absolute_path(self.root, self.path)
        self.absolute_path = self.validate_absolute_path(self.root, absolute_path)
        if self.absolute_path is None:
            return None
        body, self._coding, self._brotli_pending = (
            self.encoded(self.absolute_path, accepted) if self.compressible() else (None, None, False)
        )
        if body is None:
            return await super().get(path, include_body)
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


class CompressedBokehStatic(CompressedStatic, StaticHandler):
    """BokehJS's files (``/static/...``), compressed."""


class CompressedExtensionStatic(CompressedStatic, MultiRootStaticHandler):
    """Bokeh extensions' files, Panel's among them (``/static/extensions/<name>/...``), compressed."""


ROUTES = [
    (r"/static/extensions/(.*)", CompressedExtensionStatic, {"root": extension_dirs}),
    (r"/static/(.*)", CompressedBokehStatic),
]
"""The routes, in the order they must be tried (``app.site.server``, ``app.site.panel_plugin``)."""
