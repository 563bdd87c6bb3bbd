"""A trace file's bytes to its metadata and kept events, streaming, within size and time limits.

The bytes are never written anywhere and no path in the trace is ever opened. A ``.json.gz`` is
recognised by its magic number, not its name, and expanded piece by piece so that a gzip bomb
stops at the limit. The JSON is read with the standard library: ``json.JSONDecoder.raw_decode``
one element of ``traceEvents`` at a time, over a window of the text, so that memory holds the
events kept (:func:`app.trace.events.compact`), never the whole document as Python objects.
"""

from __future__ import annotations

import codecs
import json
import re
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from app.trace.errors import TraceError
from app.trace.events import Event, compact, kept_cost

MIB = 2**20
CHUNK = 1 << 20
"""Bytes expanded or decoded at a time."""
LARGEST_VALUE = 64 * MIB
"""No single event or top-level value may be longer than this many characters."""
_NOT_BLANK = re.compile(r"[^ \t\n\r]")
"""The first character that is not JSON's white space (found in C, not a character at a time)."""


MAX_WORLD = 65_536
"""The largest world size (and so rank + 1) a trace may state: more ranks than any DDP run a trace comes from."""


@dataclass(frozen=True)
class Limits:
    """How much a trace may cost to parse: every size a file states is checked against these first.

    Parameters
    ----------
    max_file_bytes : int
        The file as given (compressed or not); 200 MiB by default.
    max_expanded_bytes : int
        The JSON text after gzip, white space included; 1 GiB by default.
    max_events : int
        Elements of ``traceEvents`` read, kept or not; 3,000,000 by default (the largest real trace
        read here had 1.43 million).
    max_blank_run : int
        Characters of white space in a row between two values; 1 MiB by default (a pretty-printed
        trace has a line's indentation).
    max_kept_bytes : int
        About the memory the events kept may take (:func:`app.trace.events.kept_cost`); 1.5 GiB by
        default, about 2.2 million kept events.
    max_world_size : int
        The largest ``distributedInfo.world_size``, and so ``rank`` + 1, a file may state.
    time_limit_s : float
        Wall-clock seconds for reading the events and the steps; 60 by default.
    """

    max_file_bytes: int = 200 * MIB
    max_expanded_bytes: int = 1024 * MIB
    max_events: int = 3_000_000
    max_blank_run: int = MIB
    max_kept_bytes: int = 1536 * MIB
    max_world_size: int = MAX_WORLD
    time_limit_s: float = 60.0


@dataclass
class RawTrace:
    """What the reader found: top-level fields, kept events, and how the reading ended.

    Parameters
    ----------
    meta : dict
        The top-level fields other than ``traceEvents`` (empty for a bare list).
    events : list of Event
        The kept events, in file order.
    event_count : int
        How many elements of ``traceEvents`` were read in all.
    truncated : str
        Empty, or a sentence saying where the file ends early.
    expanded_bytes : int
        The bytes of JSON text read.
    has_events : bool
        Whether the file is a bare event list or has a ``traceEvents`` list (an execution trace or
        other JSON has not).
    objects : int
        How many of the events read are JSON objects (a Chrome trace's all are).
    kept_bytes : int
        About the memory the kept events take (:func:`app.trace.events.kept_cost`).
    """

    meta: dict = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    event_count: int = 0
    truncated: str = ""
    expanded_bytes: int = 0
    has_events: bool = False
    objects: int = 0
    kept_bytes: int = 0


class _Truncated(Exception):
    """The text ended inside the JSON text."""


def _size(n: int) -> str:
    return f"{n / MIB:.1f} MiB" if n >= MIB else f"{n:,} bytes"


def _cut_short(rest: str) -> bool:
    """Whether the text where decoding failed at the end of the file is the start of a valid value."""
    rest = rest.strip()
    return (
        not rest
        or any(word.startswith(rest) for word in ("true", "false", "null", "NaN", "Infinity", "-Infinity"))
        or all(c in "0123456789+-.eE" for c in rest)
    )


class _Source:
    """Bytes to text pieces: gunzip if needed, enforce the limits, decode UTF-8."""

    def __init__(self, data: bytes | bytearray | memoryview, limits: Limits) -> None:
        self.data = memoryview(data)
        self.limits = limits
        self.expanded = 0
        self.gzip_short = False
        self.gzipped = bytes(self.data[:2]) == b"\x1f\x8b"

    def _raw(self) -> Iterator[bytes]:
        if not self.gzipped:
            for start in range(0, len(self.data), CHUNK):
                yield bytes(self.data[start : start + CHUNK])
            return
        inflate = zlib.decompressobj(wbits=31)
        position = 0
        pending = b""
        while True:
            if pending:
                piece = inflate.decompress(pending, CHUNK)
                pending = inflate.unconsumed_tail
            elif inflate.eof:
                rest = inflate.unused_data
                if rest.strip(b"\0"):
                    if rest[:2] != b"\x1f\x8b":
                        return  # trailing garbage after the gzip member: what was expanded is the file
                    inflate = zlib.decompressobj(wbits=31)  # a second gzip member (concatenated files)
                    pending = rest
                    continue
                return
            elif position < len(self.data):
                pending = bytes(self.data[position : position + CHUNK])
                position += len(pending)
                continue
            else:
                self.gzip_short = True  # the compressed stream ended before its end marker
                return
            if piece:
                yield piece

    def pieces(self) -> Iterator[str]:
        if len(self.data) > self.limits.max_file_bytes:
            raise TraceError(
                f"the file is {_size(len(self.data))}, over the limit of {_size(self.limits.max_file_bytes)}"
            )
        decoder = codecs.getincrementaldecoder("utf-8")("strict")
        try:
            for raw in self._raw():
                self.expanded += len(raw)
                if self.expanded > self.limits.max_expanded_bytes:
                    raise TraceError(
                        f"the file expands past the limit of {_size(self.limits.max_expanded_bytes)} "
                        "(a gzip bomb or a trace too large to read here)"
                    )
                text = decoder.decode(raw)
                if text:
                    yield text
        except zlib.error as err:
            raise TraceError(f"the file looks gzipped but is not valid gzip ({err})") from None
        except UnicodeDecodeError:
            raise TraceError("the file is not a JSON trace: it is not UTF-8 text") from None
        try:
            tail = decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            tail = ""  # a character cut in half at the end: the text is truncated anyway
        if tail:
            yield tail


class _Text:
    """A sliding window over the text pieces with the decoder's ``raw_decode``."""

    decoder = json.JSONDecoder()

    def __init__(self, pieces: Iterator[str], limits: Limits | None = None, deadline: float = float("inf")) -> None:
        self.pieces = pieces
        self.limits = limits or Limits()
        self.deadline = deadline
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.blank = 0  # white space read in a row since the last value or punctuation

    def more(self, at_least: int = 1) -> bool:
        """Add pieces to the window until it holds ``at_least`` characters from ``pos`` (or the text ends)."""
        if self.eof:
            return False
        added = []
        have = len(self.buf) - self.pos
        while not added or have < at_least:
            if time.monotonic() > self.deadline:
                raise TraceError(f"reading the trace took longer than the limit of {self.limits.time_limit_s:g} s")
            piece = next(self.pieces, None)
            if piece is None:
                self.eof = True
                break
            added.append(piece)
            have += len(piece)
        if not added:
            return False
        self.buf = self.buf[self.pos :] + "".join(added)
        self.pos = 0
        return True

    def peek(self) -> str:
        """The next character that is not white space ('' at the end of the text).

        White space counts against :attr:`Limits.max_blank_run`: a file of spaces is refused after the
        limit, not read to its end.
        """
        while True:
            found = _NOT_BLANK.search(self.buf, self.pos)
            if found is not None:
                self.blank += found.start() - self.pos
                self.pos = found.start()
            else:
                self.blank += len(self.buf) - self.pos
                self.pos = len(self.buf)
            if self.blank > self.limits.max_blank_run:
                raise TraceError(
                    f"the file holds more than {_size(self.limits.max_blank_run)} of white space in a row, "
                    "more than this page reads (no trace has that much)"
                )
            if found is not None:
                self.blank = 0
                return self.buf[self.pos]
            if not self.more():
                return ""

    def expect(self, chars: str) -> str:
        char = self.peek()
        if not char:
            raise _Truncated
        if char not in chars:
            raise TraceError(
                f"the file is not a JSON trace: expected {' or '.join(map(repr, chars))} but found {char!r}"
            )
        self.pos += 1
        return char

    def value(self) -> object:
        while True:
            if not self.peek():
                raise _Truncated
            try:
                value, end = self.decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as err:
                if self.eof:
                    if _cut_short(self.buf[err.pos :]) or "Unterminated" in err.msg:
                        raise _Truncated from None
                    raise TraceError(f"the file is not a JSON trace: {err.msg}") from None
                window = len(self.buf) - self.pos
                if window > LARGEST_VALUE:
                    raise TraceError(f"the file holds one value longer than {_size(LARGEST_VALUE)}") from None
                # the window doubles (a long value is decoded a few times, not once a piece), up to just past the limit
                self.more(min(2 * window, LARGEST_VALUE + 1))
                continue
            except ValueError:  # Python's own limit on the digits of an integer (sys.set_int_max_str_digits)
                raise TraceError("the file holds a number with more digits than this page reads") from None
            if end < len(self.buf) or self.eof:  # a number at the end of the window may go on
                self.pos = end
                return value
            self.more()


def read_trace(
    data: bytes | bytearray | memoryview,
    limits: Limits | None = None,
    keep: Callable[[object, int], Event | None] = compact,
) -> RawTrace:
    """Read a Chrome trace's bytes: a ``{... "traceEvents": [...]}`` object or a bare event list.

    Parameters
    ----------
    data : bytes-like
        The file's content, gzipped or not.
    limits : Limits, optional
        Size and time limits (the defaults of :class:`Limits`).
    keep : callable
        ``keep(raw_event, order)`` returns what to keep of one event or None.

    Returns
    -------
    RawTrace
        The top-level fields and the kept events. A file that ends early gives what was read and
        ``truncated`` saying so; the caller decides whether that is safe to use.

    Raises
    ------
    TraceError
        If the file is over a limit, is not JSON, is not a trace, or took too long.
    """
    limits = limits or Limits()
    source = _Source(data, limits)
    deadline = time.monotonic() + limits.time_limit_s
    text = _Text(source.pieces(), limits, deadline)
    out = RawTrace()
    first = text.peek()
    if not first:
        raise TraceError("the file is empty" if source.expanded == 0 else "the file holds only white space")
    if first not in "[{":
        raise TraceError("the file is not a JSON trace: it does not begin with '{' or '['")
    state = {"in_events": False}

    def events() -> None:
        text.expect("[")
        state["in_events"] = True
        out.has_events = True
        if text.peek() == "]":
            text.pos += 1
            state["in_events"] = False
            return
        while True:
            raw = text.value()
            kept = keep(raw, out.event_count)
            out.event_count += 1
            out.objects += isinstance(raw, dict)
            if out.event_count > limits.max_events:
                raise TraceError(f"the file has more events than this page reads (at most {limits.max_events:,})")
            if kept is not None:
                out.events.append(kept)
                out.kept_bytes += kept_cost(kept)
                if out.kept_bytes > limits.max_kept_bytes:
                    raise TraceError(
                        f"the events the analysis keeps would take more memory than this page gives a file "
                        f"(about {_size(limits.max_kept_bytes)}, {len(out.events):,} events kept)"
                    )
            if out.event_count % 4096 == 0 and time.monotonic() > deadline:
                raise TraceError(
                    f"reading the trace took longer than the limit of {limits.time_limit_s:g} s "
                    f"({out.event_count:,} events read)"
                )
            if text.expect(",]") == "]":
                state["in_events"] = False
                return

    try:
        if first == "[":
            events()
        else:
            text.expect("{")
            if text.peek() == "}":
                text.pos += 1
            else:
                while True:
                    key = text.value()
                    if not isinstance(key, str):
                        raise TraceError("the file is not a JSON trace: an object key is not a string")
                    text.expect(":")
                    if key == "traceEvents":
                        events()
                    else:
                        out.meta[key] = text.value()
                    if text.expect(",}") == "}":
                        break
        if text.peek():
            raise TraceError("the file is not a JSON trace: there is more text after the end of the document")
    except _Truncated:
        where = "inside traceEvents" if state["in_events"] else "outside traceEvents"
        gz = " (the gzip stream also ends early)" if source.gzip_short else ""
        out.truncated = (
            f"the file is truncated: it ends after {source.expanded:,} bytes of JSON{gz}, {where}, "
            f"with {out.event_count:,} complete events read"
        )
    out.expanded_bytes = source.expanded
    if not out.truncated and source.gzip_short:
        out.truncated = f"the gzip stream ends early after {source.expanded:,} bytes of JSON"
    return out
