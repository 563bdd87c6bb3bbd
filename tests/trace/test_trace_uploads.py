"""The trace page with hostile files and uploads, without a browser: refused with a line, nothing sized by them.

The files are the course's real traces (content/traces) with one stated number changed, as the
security review v6 made them (H1); uploads go through a real Bokeh document to the dropper's model.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import panel as pn
import pytest
from bokeh.document import Document
from panel.models.file_dropper import UploadEvent

from app.trace.page.inputs import MAX_FILE, PICKER_RANKS, reading_text
from app.trace.page.view import PROMPT, TraceView
from app.trace.reader import MAX_WORLD
from app.upstream import is_installed
from tests.browser.test_trace_browser import readout

LATE = [Path(__file__).parents[2] / "content" / "traces" / f"gloo_late_rank{rank}.json.gz" for rank in (0, 1)]


def late(rank: int, **info: object) -> bytes:
    """Rank ``rank``'s real trace with ``distributedInfo`` fields replaced (None deletes the whole of it)."""
    data = json.loads(gzip.decompress(LATE[rank].read_bytes()))
    if info.get("world_size", 0) is None:
        del data["distributedInfo"]
    else:
        data["distributedInfo"].update(info)
    return json.dumps(data).encode()


def drop(view: TraceView, files: dict[str, bytes]) -> None:
    """What FileDropper does as each file's last chunk lands: one more entry, then a trigger."""
    for name, data in files.items():
        view.drop.value[name] = data
        view.drop.param.trigger("value")


def test_the_reviews_two_file_drop_is_refused_with_a_line_and_builds_no_rank_list():
    """H1: a world_size of 2,000,000 beside a file with no rank once built a 2-million-entry picker (31 s frozen)."""
    view = TraceView()
    drop(view, {"ws2000000_rank0.json": late(0, world_size=2_000_000), "norank.json": late(1, world_size=None)})
    assert "ws2000000_rank0.json: world_size 2000000 is more than this page reads (at most 65536)" in view.alert.object
    assert 'role="alert"' in view.alert.object
    assert view.rank_pickers.objects == []  # one file read: no rank to ask
    assert "all-reduces = " in view.status.text  # the other file is read alone


def test_the_largest_world_size_asks_the_rank_as_a_bounded_number_not_a_list():
    view = TraceView()
    drop(view, {"big_rank0.json": late(0, world_size=MAX_WORLD), "norank.json": late(1, world_size=None)})
    (picker,) = view.rank_pickers.objects
    assert isinstance(picker, pn.widgets.IntInput)
    assert (picker.start, picker.end, picker.value) == (0, MAX_WORLD - 1, None)
    picker.value = 1
    assert readout(LATE).split(": ", 1)[1] in view.status.text
    assert view.alert.object == ""


def test_a_run_larger_than_the_lab_models_says_so_when_the_lab_is_opened():
    view = TraceView()
    drop(view, {"big_rank0.json": late(0, world_size=MAX_WORLD)})
    view.open_lab.clicks += 1
    said = f"The model cannot be filled in: Ranks p cannot be {MAX_WORLD}; use a number at least 2 and at most 4096"
    assert said in view.comparison.html and 'role="alert"' in view.comparison.html
    assert "all-reduces = " in view.status.text  # the measured figures stay


def test_a_small_run_still_lists_its_ranks():
    view = TraceView()
    drop(view, {"rank0.json": late(0, world_size=8), "norank.json": late(1, world_size=None)})
    (picker,) = view.rank_pickers.objects
    assert isinstance(picker, pn.widgets.Select) and len(picker.options) == 1 + 8 <= 1 + PICKER_RANKS


def test_the_reading_line_says_waiting_while_files_wait_for_a_reader():
    assert reading_text(3, 2, 2).startswith("Waiting to read 2 files: this server reads 2 trace files at a time")
    assert reading_text(1, 0, 2) == "Reading 1 file…"


@pytest.mark.skipif(not is_installed("upload_limits"), reason="the upload fix is not installed here")
def test_a_forged_upload_is_refused_in_the_page_and_nothing_is_kept():
    """H4: chunks claiming a billion of them, sent by a script in the page."""
    view = TraceView()
    doc = Document()
    root = view.drop.get_root(doc)
    doc.add_root(root)
    chunk = bytes(view.drop.chunk_size)
    for k in range(1, 4):
        data = {"chunk": k, "total_chunks": 10**9, "name": "x.json", "data": chunk, "type": "application/json"}
        doc.callbacks.trigger_event(UploadEvent(root, data=data))
    needed = (200_000_000 + 1 + len(chunk) - 1) // len(chunk)
    said = (
        f"x.json: the upload was refused: 1000000000 chunks of {len(chunk):,} bytes is more than a file of at most "
        f"{MAX_FILE} needs ({needed}); nothing else changed."
    )
    assert view.alert.object.count("the upload was refused") == 1 and said in view.alert.object
    assert view.drop.value == {} and PROMPT in view.status.text
    drop(view, {LATE[0].name: LATE[0].read_bytes()})  # a real file afterwards is read; the refusal stays said
    assert readout(LATE[:1]) in view.status.text and said in view.alert.object
