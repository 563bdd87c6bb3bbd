"""The trace page's view without a browser: the dropper's list is what is read, each file once."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from app.trace.page import view as trace_view
from app.trace.page.view import PROMPT, TraceView
from tests.browser.test_trace_browser import GLOO, expected, readout


def drop(view: TraceView, paths: list[Path]) -> None:
    """What FileDropper does as each file's last chunk lands: one more entry, then a trigger."""
    for path in paths:
        view.drop.value[path.name] = path.read_bytes()
        view.drop.param.trigger("value")


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """The names of the files parsed, in order (the parser itself still runs)."""
    seen: list[str] = []
    real = trace_view.read_file

    def counting(raw: bytes, name: str):
        seen.append(name)
        return real(raw, name)

    monkeypatch.setattr(trace_view, "read_file", counting)
    return seen


def test_files_arriving_one_by_one_are_each_read_once_and_removed_ones_forgotten(parses):
    view = TraceView()
    assert PROMPT in view.status.text
    drop(view, GLOO[:1])
    assert readout(GLOO[:1]) in view.status.text
    drop(view, GLOO[1:])
    assert readout(GLOO) in view.status.text
    assert parses == [GLOO[0].name, GLOO[1].name]
    assert all(data == b"" for data in view.drop.value.values())  # the raw bytes are not kept
    del view.drop.value[GLOO[0].name]
    view.drop.param.trigger("value")
    assert readout(GLOO[1:]) in view.status.text
    assert parses == [GLOO[0].name, GLOO[1].name]  # nothing read again
    view.drop.value.clear()
    view.drop.param.trigger("value")
    assert PROMPT in view.status.text
    assert view.traces == []


def test_a_file_that_is_not_a_trace_is_named_and_the_rest_still_shows(tmp_path):
    notes = tmp_path / "notes.json"
    notes.write_bytes(b"not a trace")
    view = TraceView()
    drop(view, [GLOO[0], notes])
    assert readout(GLOO[:1]) in view.status.text
    assert "notes.json" in view.alert.object and 'role="alert"' in view.alert.object


@pytest.mark.parametrize("ranked_first", [True, False], ids=["ranked file first", "file without rank first"])
def test_a_file_without_its_rank_asks_for_it_whichever_lands_first(tmp_path, ranked_first):
    data = json.loads(gzip.decompress(GLOO[0].read_bytes()))
    del data["distributedInfo"]
    bare = tmp_path / "no_rank.json"
    bare.write_text(json.dumps(data))
    view = TraceView()
    drop(view, [GLOO[1], bare] if ranked_first else [bare, GLOO[1]])
    assert "Choose the rank of no_rank.json to read these 2 files together." in view.status.text
    assert "all-reduces = " not in view.status.text  # not one file's figures of the two
    (picker,) = view.rank_pickers.objects
    picker.value = 0
    assert readout(GLOO) in view.status.text


def test_the_readout_names_every_rank_and_the_largest_tail():
    """The sample's rank 0 has a 31.3 ms tail and rank 1 a 5.9 ms one: each line says whose figures it gives."""
    from app.trace.page.sample import SAMPLE_DIR, SAMPLE_FILES

    view = TraceView()
    view.sample.clicks += 1
    paths = [SAMPLE_DIR / name for name in SAMPLE_FILES]
    lines = expected(paths)
    assert lines[0].startswith("rank 0: all-reduces = 4 · tail = 31.341 ms")
    assert lines[1].startswith("rank 1: all-reduces = 4 · tail = 5.908 ms")
    text = view.status.text
    assert f"ranks = 2<br>{lines[0]} (the largest tail)<br>{lines[1]}<" in text


def test_a_bucket_whose_kernel_is_not_in_the_trace_shows_unknown_figures_and_no_lab(tmp_path):
    from tests import trace_synth as synth

    data = synth.nccl_trace(0)
    kernels = [e for e in data["traceEvents"] if e["name"].startswith("ncclDevKernel_AllReduce")]
    data["traceEvents"].remove(kernels[-1])
    cut = tmp_path / "cut.json"
    cut.write_bytes(synth.encode(data))
    view = TraceView()
    drop(view, [cut])
    assert "tail = unknown · exposed = unknown · step" in view.status.text
    assert view.open_lab.disabled
    assert "bucket 3" not in view.source.data["label"]  # no bar for a run that is not in the trace
    assert view.table.object.count("<td style='padding:2px 8px;text-align:right'>?</td>") >= 2


def test_a_hidden_tail_is_shown_as_zero_and_by_how_much():
    from app.trace.report import tail_text

    assert [tail_text(v) for v in (1.5, 0.0, -3.14, None)] == [
        "1.500 ms",
        "0.000 ms",
        "0 ms (hidden by 3.140 ms)",
        "unknown",
    ]


def test_every_step_and_the_warm_summary_are_shown_once_per_set_of_files(monkeypatch):
    from app.trace import summary as summary_module

    calls = []
    real = trace_view.summarize
    monkeypatch.setattr(trace_view, "summarize", lambda traces: calls.append(len(traces)) or real(traces))
    view = TraceView()
    drop(view, GLOO)
    text = view.summary.object
    assert "left out: the trace&#x27;s first step" in text and "Over 1 warm step (3), every rank:" in text
    run = summary_module.summarize(view.traces)
    tails = run.figures["tail_ms"]
    assert f"tail: median {tails.median:.3f} ms, {tails.low:.3f}–{tails.high:.3f} ms" in text
    assert "bucket 1 last ready: rank " in text
    view.steps.value = 2  # another step shown: the summary is not read again
    assert calls == [1, 2]  # once as each file landed, not again for another step


def test_the_world_size_is_asked_for_when_no_file_says_it_never_taken_from_the_file_count(tmp_path):
    """Two of a run's ranks dropped without distributedInfo: p is what the reader says, not 2 files."""
    bare = []
    for path in GLOO:
        data = json.loads(gzip.decompress(path.read_bytes()))
        del data["distributedInfo"]
        bare.append(tmp_path / path.name.replace(".json.gz", "_bare.json"))
        bare[-1].write_text(json.dumps(data))
    view = TraceView()
    assert not view.world.visible  # nothing dropped: nothing to ask
    drop(view, bare)
    assert view.world.visible and view.world.value is None
    for picker, rank in zip(view.rank_pickers.objects, (0, 1), strict=True):
        picker.value = rank
    assert readout(GLOO) in view.status.text
    assert all(trace.world_size is None for trace in view.traces)  # unknown, not len(files)
    view._open_lab(None)
    assert "World size (ranks in the run)" in view.comparison.html and 'role="alert"' in view.comparison.html
    view.world.value = 8  # the two files were ranks 0 and 1 of eight
    assert [trace.world_size for trace in view.traces] == [8, 8]
    view._open_lab(None)
    assert view.lab.model.ranks == 8 and "Model: step =" in view.comparison.html
    drop(view, [GLOO[0]])  # a file that says its world size (2) takes over from the field
    assert not view.world.visible


def test_the_exposed_stretch_stands_out_from_the_bar_it_lines_and_the_page():
    """The exposed band lines the bottom of an all-reduce bar: 3:1 against the bar and the white page."""
    from app.trace.page.shown import COMM_COLOUR, EXPOSED_COLOUR
    from tests.colours import contrast, rgb

    assert contrast(rgb(EXPOSED_COLOUR), rgb(COMM_COLOUR)) >= 3
    assert contrast(rgb(EXPOSED_COLOUR), rgb("#ffffff")) >= 3
