"""The security headers of every response: a Content-Security-Policy the pages satisfy, ``nosniff``, a Referrer-Policy.

Every response gets ``X-Content-Type-Options: nosniff`` (a file is only ever what its type says),
``Referrer-Policy: same-origin`` (a link out of the course tells the other site nothing) and the
framing headers of :mod:`app.web.frame_headers`. An HTML page gets a whole policy
(:func:`page_policy`):

- ``script-src 'self' 'nonce-…'``: the page's own scripts from this server, and its inline
  ``<script>`` blocks only if they carry this response's nonce. Bokeh's and Panel's pages have inline
  scripts whose content differs per session (the session's token), so no hash could name them:
  :func:`add_nonce` writes a fresh nonce into each ``<script>`` tag of the HTML, before it is
  compressed, and the header carries the same one. A script injected into the page carries none.
  The page's bundle loader passes the nonce on to the inline code it runs
  (``app/web/delivery/assets/bundle_loader.js``).
- ``'unsafe-eval'``: BokehJS compiles every ``CustomJS`` callback (the labs' Play and readouts run in
  the browser as ``js_on_click``/``js_on_change`` code) with ``new Function``, and Panel's
  ``JSComponent`` modules are evaluated from source by es-module-shims; without it Chromium refuses
  both (checked: without it every page fails with "Evaluating a string as JavaScript violates …",
  the labs' from ``bokeh.min.js`` too). es-module-shims also fetches the modules it made from
  ``blob:`` URLs, hence ``connect-src 'self' blob:``; ``script-src`` needs no ``blob:``.
- ``style-src 'self' 'unsafe-inline'``: Bokeh and Panel style every view with ``style`` attributes
  and ``<style>`` elements made in the browser; styles cannot run code.
- everything else from this server alone (``default-src 'self'``; images and fonts also from
  ``data:``), the websocket included, no plugins, no ``<base>`` elsewhere,
  forms posting only here, and ``frame-ancestors`` as :mod:`app.web.frame_headers` decides.

It is one Tornado output transform (one of ``tornado.web.Application``'s ``transforms``, listed
before Tornado's gzip so that it sees the HTML uncompressed): no handler of Panel's or Bokeh's is
changed. ``panel serve`` runs no such transform and sends none of this.
"""

from __future__ import annotations

import re
import secrets

from tornado.httputil import HTTPHeaders, HTTPServerRequest
from tornado.web import OutputTransform

from app.web.frame_headers import ANY_ORIGIN, LTI_PREFIX, frame_headers

EVERY_RESPONSE = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin"}
"""The headers every response gets, whatever its type."""

NONCE_BYTES = 18
"""Random bytes in a nonce: 144 bits, 24 characters of URL-safe base64."""

_MARKUP = re.compile(rb"<!--|<script(?=[\s>/])|<style(?=[\s>/])", re.IGNORECASE)
_ENDS = {b"<!--": re.compile(rb"-->"), b"<script": re.compile(rb"</script", re.IGNORECASE)}
_ENDS[b"<style"] = re.compile(rb"</style", re.IGNORECASE)


def page_policy(nonce: str | None, ancestors: str, forms: str = "'self'") -> str:
    """The Content-Security-Policy of an HTML page.

    Parameters
    ----------
    nonce : str or None
        This response's nonce (:func:`add_nonce`); None for a page with no script of its own
        (then no inline script may run at all).
    ancestors : str
        The ``frame-ancestors`` sources (:func:`app.web.frame_headers.frame_ancestors`).
    forms : str, optional
        The ``form-action`` sources: ``'self'``; under ``/lti/`` also the registered LTI platforms'
        origins (app.lti: a deep-linking response is a form the page posts to the LMS).

    Returns
    -------
    str
        The header's value; see the module's docstring for why each source is there.
    """
    scripts = "'self' 'unsafe-eval'" + (f" 'nonce-{nonce}'" if nonce else "")
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src {scripts}",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data: blob:",
            "font-src 'self' data:",
            "connect-src 'self' blob:",
            "object-src 'none'",
            "base-uri 'self'",
            f"form-action {forms}",
            f"frame-ancestors {ancestors}",
        ]
    )


def add_nonce(html: bytes, nonce: str) -> tuple[bytes, int]:
    """Write ``nonce="…"`` into every ``<script>`` tag of an HTML document.

    Only tags in the markup count: a ``<script`` written inside a script's or a style's text (a
    JSON document, a string) or inside a comment is left alone, so no data changes.

    Parameters
    ----------
    html : bytes
        The document, uncompressed.
    nonce : str
        URL-safe characters (:func:`new_nonce`).

    Returns
    -------
    tuple of (bytes, int)
        The document with the nonces, and how many tags got one.
    """
    attribute = b' nonce="' + nonce.encode("ascii") + b'"'
    parts: list[bytes] = []
    position = 0
    tags = 0
    while (found := _MARKUP.search(html, position)) is not None:
        opening = found.group(0).lower()
        parts.append(html[position : found.end()])
        if opening == b"<script":
            parts.append(attribute)
            tags += 1
        end = _ENDS[opening].search(html, found.end())
        position = len(html) if end is None else end.start()
        parts.append(html[found.end() : position])
    parts.append(html[position:])
    return b"".join(parts), tags


def new_nonce() -> str:
    """A fresh nonce for one response: :data:`NONCE_BYTES` random bytes as URL-safe base64."""
    return secrets.token_urlsafe(NONCE_BYTES)


def is_html(headers: HTTPHeaders) -> bool:
    """Whether a response is an HTML document (the only kind a policy's scripts and frames apply to)."""
    return headers.get("Content-Type", "").split(";")[0].strip().lower() == "text/html"


def transform(embed_from: str = ANY_ORIGIN, lti_from: str = "") -> type[OutputTransform]:
    """The output transform that sets the security headers on each response (one of Tornado's ``transforms``).

    Parameters
    ----------
    embed_from : str
        ``--embed-from``'s ``frame-ancestors`` sources (:func:`app.web.frame_headers.parse_origins`).
    lti_from : str, optional
        The registered LTI platforms' origins (app.lti), which may frame ``/lti/`` pages.

    Returns
    -------
    type
        A ``tornado.web.OutputTransform`` subclass (Tornado makes one per request). List it before
        ``GZipContentEncoding``: it must see the HTML before it is compressed.
    """

    class SecurityHeaders(OutputTransform):
        def __init__(self, request: HTTPServerRequest) -> None:
            self.framing = frame_headers(request.path, embed_from, lti_from)
            lti = request.path.startswith(LTI_PREFIX) and lti_from  # LTI: its pages post back to the platforms
            self.forms = f"'self' {lti_from}" if lti else "'self'"
            self.nonce: str | None = None

        def transform_first_chunk(
            self, status_code: int, headers: HTTPHeaders, chunk: bytes, finishing: bool
        ) -> tuple[int, HTTPHeaders, bytes]:
            for name, value in {**EVERY_RESPONSE, **self.framing}.items():
                headers[name] = value
            if status_code == 304 or not is_html(headers) or "Content-Encoding" in headers:
                return status_code, headers, chunk
            self.nonce = new_nonce()
            chunk = self.transform_chunk(chunk, finishing)
            if finishing and "Content-Length" in headers:
                headers["Content-Length"] = str(len(chunk))
            headers.pop("Etag", None)  # the body differs per response: no 304 may pair it with another nonce
            ancestors = self.framing["Content-Security-Policy"].removeprefix("frame-ancestors ")
            headers["Content-Security-Policy"] = page_policy(self.nonce, ancestors, self.forms)
            return status_code, headers, chunk

        def transform_chunk(self, chunk: bytes, finishing: bool) -> bytes:
            # A page written in several chunks gets its nonces chunk by chunk (Panel's and the 404 page
            # are written at once).
            return chunk if self.nonce is None else add_nonce(chunk, self.nonce)[0]

    return SecurityHeaders
