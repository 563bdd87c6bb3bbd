"""upload_limits: a FileDropper's limits hold on the server; a forged chunk stream is refused and never kept.

Each event goes through a real Bokeh document to the widget's real model, as the websocket delivers
it (``Document.callbacks.trigger_event``). The files are the course's real traces, in chunks as
Panel's browser code cuts them (``ceil((size + 1) / chunk_size)`` chunks).
"""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import panel as pn
import pytest
from bokeh.document import Document
from panel.models.file_dropper import DeleteEvent, UploadEvent

from app.upstream import is_installed, upload_limits

TRACE = gzip.decompress((Path(__file__).parents[2] / "content" / "traces" / "gloo_late_rank0.json.gz").read_bytes())
"""A real trace, 282,193 bytes of JSON."""
CHUNK = 10_000
TYPE = "application/json"

pytestmark = pytest.mark.skipif(not is_installed("upload_limits"), reason="the fix is not installed here")


class Served:
    """A FileDropper on a real document, with what it refused."""

    def __init__(self, **limits: object) -> None:
        self.widget = pn.widgets.FileDropper(multiple=True, chunk_size=CHUNK, **limits)
        self.doc = Document()
        self.root = self.widget.get_root(self.doc)
        self.doc.add_root(self.root)
        self.refused: list[str] = []
        upload_limits.on_refused(self.widget, lambda _name, said: self.refused.append(said))

    def send(self, name: str, chunk: object, total: object, data: object, **extra: object) -> None:
        body = {"chunk": chunk, "total_chunks": total, "name": name, "data": data, "type": TYPE, **extra}
        self.doc.callbacks.trigger_event(UploadEvent(self.root, data=body))

    def upload(self, name: str, content: bytes) -> None:
        """Send ``content`` as Panel's page does."""
        total = math.ceil((len(content) + 1) / CHUNK)
        for k in range(total):
            self.send(name, k + 1, total, content[k * CHUNK : (k + 1) * CHUNK])

    def buffered(self) -> int:
        """Bytes of files still arriving that the widget holds."""
        return sum(len(part) for parts in self.widget._file_buffer.values() for part in parts)


def test_a_real_file_in_chunks_arrives_whole():
    served = Served(max_file_size="1MB", max_total_file_size="2MB", max_files=4)
    served.upload("rank0.json.gz", TRACE)
    assert served.widget.value == {"rank0.json.gz": TRACE}
    assert served.widget.mime_type == {"rank0.json.gz": TYPE}
    assert served.refused == [] and served.buffered() == 0


def test_a_forged_chunk_stream_is_refused_at_once_and_the_buffer_never_grows():
    """The review's stream (H4): chunks claiming a billion of them; 30 kept took a server from 149 to 449 MB."""
    served = Served(max_file_size="1MB")
    for k in range(1, 31):
        served.send("x.json", k, 10**9, TRACE[:CHUNK])
        assert served.buffered() == 0
    assert served.refused == [
        "x.json: the upload was refused: "
        "1000000000 chunks of 10,000 bytes is more than a file of at most 1MB needs (101)"
    ]
    assert served.widget.value == {}


def test_chunks_past_the_file_size_are_refused_and_what_came_is_dropped():
    served = Served(max_file_size="100KB")
    total = math.ceil((100_000 + 1) / CHUNK)  # as many as a file of the largest size needs
    for k in range(1, total + 1):
        served.send("big.json", k, total, TRACE[:CHUNK])
        assert served.buffered() <= 100_000
    assert served.refused == ["big.json: the upload was refused: the file is over 100KB, the largest this page takes"]
    assert served.buffered() == 0 and served.widget.value == {}


@pytest.mark.parametrize(
    ("chunks", "said"),
    [
        ([(1, 3, CHUNK + 1)], "a chunk of 10,001 bytes is longer than the chunk size of 10,000 bytes"),
        ([(1, 3, CHUNK), (3, 3, 10)], "chunk 3 of 3 came out of order"),
        ([(1, 3, CHUNK), (2, 5, 10)], "chunk 2 of 5 came out of order"),
        ([(2, 3, 10)], "chunk 2 of 3 came out of order"),
        ([(0, 3, 10)], "chunk 0 of 3 is not a chunk of the file"),
        ([(4, 3, 10)], "chunk 4 of 3 is not a chunk of the file"),
        ([("1", 3, 10)], "the upload event is not one Panel's page sends"),
        ([(1, 3.5, 10)], "the upload event is not one Panel's page sends"),
    ],
)
def test_a_chunk_out_of_line_is_refused_with_what_is_wrong(chunks, said):
    served = Served(max_file_size="1MB")
    for chunk, total, length in chunks:
        served.send("x.json", chunk, total, TRACE[:length])
    assert served.refused == [f"x.json: the upload was refused: {said}"]
    assert served.buffered() == 0 and served.widget.value == {}


def test_an_event_without_a_name_or_bytes_is_refused_not_a_traceback():
    served = Served(max_file_size="1MB")
    served.send(None, 1, 1, b"x")  # type: ignore[arg-type]
    served.send("y.json", 1, 1, "not bytes")
    assert served.refused == [
        "a file: the upload was refused: the upload event is not one Panel's page sends",
        "y.json: the upload was refused: the upload event is not one Panel's page sends",
    ]


def test_files_past_the_count_and_the_total_are_refused_the_others_kept():
    served = Served(max_file_size="1MB", max_total_file_size="700KB", max_files=2)
    served.upload("a.json", TRACE)
    served.upload("b.json", TRACE)
    served.upload("c.json", TRACE)
    assert sorted(served.widget.value) == ["a.json", "b.json"]
    assert served.refused == [
        "c.json: the upload was refused: it would be file 3, and this page takes at most 2 at once"
    ]
    served.doc.callbacks.trigger_event(DeleteEvent(served.root, data={"name": "b.json"}))
    larger = TRACE + TRACE[:200_000]  # with a.json, 764 kB held
    served.upload("c.json", larger)
    assert served.refused[1:] == [
        "c.json: the upload was refused: the files held for this page would pass 700KB in all"
    ]
    assert served.buffered() == 0
    served.widget.value["a.json"] = b""  # read and let go, as the trace page does
    served.upload("c.json", larger)
    assert served.widget.value["c.json"] == larger and len(served.refused) == 2


def test_a_file_still_arriving_is_dropped_when_its_session_ends():
    served = Served(max_file_size="1MB")
    served.send("x.json", 1, 5, TRACE[:CHUNK])
    assert served.buffered() == CHUNK
    served.widget._cleanup(served.root)  # what Panel does with each view as its session is destroyed
    assert served.buffered() == 0


def test_panel_alone_keeps_every_chunk_the_page_sends():
    """Fails once Panel checks chunks itself: delete the fix then (docs/upstream-fixes.md)."""
    served = Served(max_file_size="1MB")
    stock = upload_limits._ORIGINAL["_process_event"]
    for k in range(1, 31):
        stock(
            served.widget,
            UploadEvent(
                served.root,
                data={"chunk": k, "total_chunks": 10**9, "name": "x.json", "data": TRACE[:CHUNK], "type": TYPE},
            ),
        )
    assert served.buffered() == 30 * CHUNK


@pytest.mark.parametrize(
    ("text", "size"),
    [("200MB", 200_000_000), ("750KB", 750_000), ("1.5GB", 1_500_000_000), ("12", 12), (None, None), ("lots", None)],
)
def test_sizes_are_read_as_filepond_reads_them(text, size):
    assert upload_limits.size_in_bytes(text) == size
