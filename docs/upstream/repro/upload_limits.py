"""Panel's FileDropper keeps every chunk a client sends, whatever its limits say (stock Panel).

The events go through a Bokeh document to the widget's model, as Bokeh's server delivers a page's
``upload_event`` (``Document.callbacks.trigger_event``). A page's script can send any of them: the
limits below are handed to FilePond in the browser and nothing on the server reads them.

Run: python upload_limits.py (holds about 35 MB for a moment). Prints what the widget holds.
"""

import panel as pn
from bokeh.document import Document
from panel.models.file_dropper import UploadEvent

MB = 1_000_000


def served(**params) -> tuple[pn.widgets.FileDropper, Document, object]:
    """A FileDropper on a Bokeh document, with its model."""
    widget = pn.widgets.FileDropper(**params)
    doc = Document()
    root = widget.get_root(doc)
    doc.add_root(root)
    return widget, doc, root


def send(doc: Document, root, name: str, chunk: int, total: int, data: bytes) -> None:
    """One ``upload_event``, as the page's FilePond code sends it."""
    body = {"chunk": chunk, "total_chunks": total, "name": name, "data": data, "type": "application/octet-stream"}
    doc.callbacks.trigger_event(UploadEvent(root, data=body))


def buffered(widget: pn.widgets.FileDropper) -> int:
    """Bytes of files still arriving that the widget holds."""
    return sum(len(part) for parts in widget._file_buffer.values() for part in parts)


def main() -> None:
    """Three limits, each exceeded by a client; the widget keeps everything."""
    widget, doc, root = served(max_file_size="1MB", chunk_size=MB)
    for k in range(1, 31):  # a file that claims a billion chunks, 1 MB each
        send(doc, root, "x.bin", k, 10**9, bytes(MB))
    print(f"max_file_size='1MB', chunk_size=1MB: 30 chunks of 1 MB claiming total_chunks=1e9 -> "
          f"buffered {buffered(widget):,} bytes, refused nothing")

    widget, doc, root = served(max_file_size="1MB", chunk_size=MB)
    send(doc, root, "big.bin", 1, 1, bytes(5 * MB))  # one chunk five times chunk_size
    print(f"max_file_size='1MB', chunk_size=1MB: one 5 MB chunk -> value holds "
          f"{len(widget.value['big.bin']):,} bytes")

    widget, doc, root = served(max_files=1, max_total_file_size="100KB", multiple=True)
    for name in ("a.bin", "b.bin", "c.bin"):
        send(doc, root, name, 1, 1, bytes(100_000))
    print(f"max_files=1, max_total_file_size='100KB': three files of 100 kB -> value holds "
          f"{len(widget.value)} files, {sum(map(len, widget.value.values())):,} bytes")


if __name__ == "__main__":
    main()
