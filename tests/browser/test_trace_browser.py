"""The trace page in a real Chromium: drop rank files, read the figures, choose a step, compare with the model."""

from __future__ import annotations

import gzip
import json
import re
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from app.trace import TraceError, parse_trace
from app.trace.page.shown import figures_text
from app.trace.ranks import combine_ranks
from devtools.ports import free_port
from tests.waiting import STUCK_AFTER_S, poll

pytestmark = pytest.mark.browser

ROOT = Path(__file__).parents[2]
TRACES = Path(__file__).parents[1] / "fixtures" / "traces"
GLOO = [TRACES / f"gloo_schedule_rank{rank}.json.gz" for rank in (0, 1)]


def expected(paths: list[Path], step: int | None = None) -> list[str]:
    """The readout's line for each rank, computed by the parser alone: ``rank R: all-reduces = …``."""
    traces = [parse_trace(path.read_bytes(), source=path.name) for path in paths]
    run = combine_ranks(traces, step)
    return [f"rank {t.rank}: {figures_text(t)}" for t in run.timelines]


def readout(paths: list[Path], step: int | None = None) -> str:
    """The readout's line for the last file's rank, as the page should show it (every rank has one)."""
    return expected(paths, step)[-1]


def add_files(page: Page, paths: list[Path]) -> None:
    """Put files in the dropper, as choosing them in the file dialog does."""
    group = page.get_by_role("group", name="Trace file")
    group.locator("input[type=file]").set_input_files([str(p) for p in paths])


def drop(page: Page, paths: list[Path]):
    page.goto(page.base_url + "/trace")  # type: ignore[attr-defined]
    add_files(page, paths)
    return page.get_by_role("region", name="Trace")


def test_the_index_links_to_the_trace_page(page):
    page.goto(page.base_url + "/")
    page.get_by_role("link", name="Trace", exact=True).click()
    expect(page.get_by_role("group", name="Trace file")).to_be_visible()


def test_two_ranks_give_the_figures_a_step_and_the_model_beside_them(page):
    trace = drop(page, GLOO)
    status = trace.get_by_role("status").first
    expect(status).to_contain_text(readout(GLOO))
    table = trace.get_by_role("table", name=re.compile("^Buckets of"))
    expect(table.get_by_role("columnheader", name="last ready")).to_be_visible()
    expect(table.get_by_role("row")).to_have_count(5)  # a header and four buckets
    every = trace.get_by_role("table", name=re.compile("^Every step"))
    expect(every.get_by_role("row")).to_have_count(5)  # a header and steps 2 and 3 on two ranks
    expect(trace.get_by_text("Over 1 warm step (3), every rank:")).to_be_visible()
    trace.get_by_role("button", name="Open in the bucket timeline lab").click()
    lab = page.get_by_role("region", name="Bucket timeline lab")
    expect(lab.get_by_role("status").first).to_contain_text("buckets = 4")
    comparison = trace.get_by_text("Model: step =")
    expect(comparison).to_contain_text("Measured: step =")
    expect(comparison).to_be_in_viewport()  # the answer to the click is brought into view, and focused
    expect(comparison).to_be_focused()
    before = comparison.inner_text()
    box = lab.get_by_role("textbox", name="Bucket cap (MiB)", exact=True)
    box.fill("1024")
    box.press("Enter")
    expect(lab.get_by_role("status").first).to_contain_text("buckets = 2")
    expect(comparison).not_to_have_text(before)  # the model's prediction follows the new layout
    expect(box).to_be_focused()  # a redrawn comparison leaves the focus where the student is typing
    steps = trace.get_by_role("combobox", name="Step")
    steps.select_option(label="step 2")
    expect(status).to_contain_text(readout(GLOO, 2))
    expect(comparison).not_to_have_text(before)


def test_files_added_one_at_a_time_and_removed_follow_the_list(page):
    trace = drop(page, GLOO[:1])
    status = trace.get_by_role("status").first
    expect(status).to_contain_text(readout(GLOO[:1]))
    live_region = status.element_handle()
    add_files(page, GLOO[1:])  # the second rank comes later: the page reads both together
    expect(status).to_contain_text(readout(GLOO))
    assert live_region.evaluate("e => e.isConnected"), "the readout's live region was replaced, not updated"
    expect(trace.get_by_role("table").get_by_role("columnheader", name="last ready")).to_be_visible()
    group = page.get_by_role("group", name="Trace file")
    group.locator(".filepond--item").filter(has_text=GLOO[0].name).get_by_role("button", name="Remove").click()
    expect(status).to_contain_text(readout(GLOO[1:]))  # what is left in the list is what is read
    group.locator(".filepond--item").filter(has_text=GLOO[1].name).get_by_role("button", name="Remove").click()
    expect(status).to_contain_text("Drop one trace file per rank")


def test_a_file_without_its_rank_is_asked_for_it(page, tmp_path):
    data = json.loads(gzip.decompress(GLOO[0].read_bytes()))
    del data["distributedInfo"]
    bare = tmp_path / "no_rank.json"
    bare.write_text(json.dumps(data))
    trace = drop(page, [bare, GLOO[1]])
    asked = trace.get_by_role("alert").filter(has_text="no rank information")  # FilePond has an alert of its own
    expect(asked).to_contain_text("choose its rank in “Rank of no_rank.json”")
    # Whichever of the two files landed first (one alone reads as one rank), none of its figures stay.
    expect(trace.get_by_role("status").first).to_contain_text(
        "Choose the rank of no_rank.json to read these 2 files together."
    )
    trace.get_by_role("combobox", name="Rank of no_rank.json").select_option(label="rank 0")
    expect(trace.get_by_role("status").first).to_contain_text(readout(GLOO))
    expect(asked).to_have_count(0)


def test_a_run_whose_files_do_not_say_its_world_size_is_given_one_on_the_page(page, tmp_path):
    """Two of eight ranks, without distributedInfo: the fit waits for the world size; it is never 2 files."""
    bare = []
    for rank, path in enumerate(GLOO):
        data = json.loads(gzip.decompress(path.read_bytes()))
        del data["distributedInfo"]
        bare.append(tmp_path / f"rank{rank}.json")
        bare[-1].write_text(json.dumps(data))
    trace = drop(page, bare)
    world = trace.get_by_role("textbox", name="World size (ranks in the run)")
    expect(world).to_be_visible()
    for rank, path in enumerate(bare):
        trace.get_by_role("combobox", name=f"Rank of {path.name}").select_option(label=f"rank {rank}")
    expect(trace.get_by_role("status").first).to_contain_text(readout(GLOO))
    trace.get_by_role("button", name="Open in the bucket timeline lab").click()
    expect(trace.get_by_role("alert").filter(has_text="cannot be filled in")).to_contain_text("World size")
    world.fill("8")
    world.press("Enter")
    trace.get_by_role("button", name="Open in the bucket timeline lab").click()
    lab = page.get_by_role("region", name="Bucket timeline lab")
    expect(lab.get_by_role("textbox", name="Ranks p", exact=True)).to_have_value("8")


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("notes.json", b"these are my notes, not a trace"),
        ("cut.json", (TRACES / "gloo_schedule_rank0.json.gz").read_bytes()[:300]),
        ("fsdp.json.gz", (TRACES / "synthetic_fsdp.json.gz").read_bytes()),
        ("plain.json.gz", (TRACES / "synthetic_no_ddp.json.gz").read_bytes()),
    ],
)
def test_a_bad_file_is_named_with_what_is_wrong_and_changes_nothing(page, tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(TraceError) as refusal:
        parse_trace(content, source=name)
    trace = drop(page, [path])
    said = str(refusal.value)
    expect(trace.get_by_role("alert").filter(has_text=said[:60])).to_contain_text(said)
    expect(trace.get_by_role("status").first).to_contain_text("Drop one trace file per rank")
    expect(trace).not_to_contain_text("Traceback")


def test_axe_on_the_page_with_two_ranks_read(page):
    """The bucket table, the every-step table and the summary list read by axe with figures in them."""
    from tests.axe import audit, describe

    trace = drop(page, GLOO)
    expect(trace.get_by_role("status").first).to_contain_text(readout(GLOO))
    expect(trace.get_by_role("table", name=re.compile("^Every step"))).to_be_visible()
    violations = audit(page)  # the dropper's own file list included
    assert not violations, describe(violations)


def test_the_sample_trace_loads_with_a_button_and_reads_like_dropped_files(page):
    """No trace of your own yet: the page's button shows the course's sample (two ranks, rank 1 late)."""
    from app.trace.page.sample import SAMPLE_DIR, SAMPLE_FILES

    page.goto(page.base_url + "/trace")  # type: ignore[attr-defined]
    trace = page.get_by_role("region", name="Trace")
    trace.get_by_role("button", name="Load the sample trace").click()
    expect(trace.get_by_role("status").first).to_contain_text(readout([SAMPLE_DIR / name for name in SAMPLE_FILES]))
    table = trace.get_by_role("table", name=re.compile("^Buckets of"))
    expect(table.get_by_role("row").last).to_contain_text("rank 1")  # last ready for the last bucket
    expect(trace.get_by_role("button", name="Open in the bucket timeline lab")).to_be_enabled()


SAMPLE_LINES = (r"rank 0: all-reduces = 4 · tail = 31\.341 ms", r"rank 1: all-reduces = 4 · tail = 5\.908 ms")
"""The sample's two ranks: rank 0's tail is 31.3 ms, rank 1's 5.9 ms (issue 44: the readout gave rank 1's alone)."""


def load_sample(page: Page):
    page.goto(page.base_url + "/trace")  # type: ignore[attr-defined]
    trace = page.get_by_role("region", name="Trace")
    trace.get_by_role("button", name="Load the sample trace").click()
    return trace


def test_the_sample_readout_names_each_rank_and_the_largest_tail(page):
    status = load_sample(page).get_by_role("status").first
    for line in SAMPLE_LINES:
        expect(status).to_contain_text(re.compile(line))
    largest = r"31\.341 ms · exposed = 31\.540 ms · step = 39\.470 ms \(the largest tail\)"
    expect(status).to_contain_text(re.compile(largest))


def test_the_lab_from_the_sample_shows_no_float_with_more_than_four_decimals(page):
    trace = load_sample(page)
    trace.get_by_role("button", name="Open in the bucket timeline lab").click()
    lab = page.get_by_role("region", name="Bucket timeline lab")
    layers = lab.get_by_role("textbox", name=re.compile("^Layers"))
    expect(layers).to_have_value("1:26.1, 1:5.07, 0.501:0.709, 0.314:0.499")
    expect(lab.get_by_role("textbox", name="Bucket cap (MiB)", exact=True)).to_have_value("0.314")
    values = [box.input_value() for box in lab.get_by_role("textbox").all()]
    assert len(values) >= 6, values
    long_floats = [v for v in values if re.search(r"\d\.\d{5,}", v)]
    assert not long_floats, long_floats
    expect(trace.get_by_text("Model: step =")).to_contain_text("Measured: step =")


def test_on_a_phone_the_tables_scroll_with_a_cue_and_no_row_is_squeezed(phone):
    from app.trace.page.shown import SCROLL_CUE

    trace = load_sample(phone)
    for title in ("^Buckets of", "^Every step"):
        table = trace.get_by_role("table", name=re.compile(title))
        expect(table).to_be_visible()
        box = trace.get_by_role("group", name=re.compile(title))
        width, shown, overflow, tallest = table.evaluate(
            """t => {const box = t.closest('.trace-scroll');
                     return [t.scrollWidth, box.clientWidth, getComputedStyle(box).overflowX,
                             Math.max(...[...t.rows].map(r => r.getBoundingClientRect().height))]}"""
        )
        assert tallest < 100, f"{title}: a row {tallest} px tall"
        if width > shown:  # wider than the screen: it scrolls, and the line above says so
            assert overflow in ("auto", "scroll"), overflow
            cue = box.locator("xpath=preceding-sibling::p[1]")
            expect(cue).to_have_text(SCROLL_CUE)
            expect(cue).to_be_visible()
    # the page itself does not scroll sideways: only the tables do
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def test_a_one_gpu_training_trace_is_refused_for_that_reason_on_the_page(page):
    name = "kineto_resnet50_1gpu_2021.json.gz"
    trace = drop(page, [TRACES / "real" / name])
    said = f"{name}: it records training on a GPU but no collective at all"  # FilePond has an alert of its own
    refusal = trace.get_by_role("alert").filter(has_text=said)
    expect(refusal).to_be_visible(timeout=60_000)
    expect(refusal).to_contain_text("so the run had one GPU and nothing to all-reduce")
    expect(refusal).not_to_contain_text("inference")


# ---- hostile files and uploads (security review v6, H1, H2, H4) ----------------------------------


def healthz_status(url: str) -> int:
    """``/healthz``'s status code (503 while the server warms up), or 0 when it does not answer within 30 s."""
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=30) as reply:
            return reply.status
    except urllib.error.HTTPError as error:
        return error.code
    except (urllib.error.URLError, OSError):
        return 0


def test_the_reviews_two_file_world_size_drop_is_refused_while_healthz_answers(page, tmp_path):
    """H1: world_size 2,000,000 beside a file with no rank once froze the process 31 s on the rank picker."""
    poll(lambda: healthz_status(page.base_url) == 200, page=page, what="/healthz answering 200")
    late = [ROOT / "content" / "traces" / f"gloo_late_rank{rank}.json.gz" for rank in (0, 1)]
    big = json.loads(gzip.decompress(late[0].read_bytes()))
    big["distributedInfo"]["world_size"] = 2_000_000
    bare = json.loads(gzip.decompress(late[1].read_bytes()))
    del bare["distributedInfo"]
    files = [tmp_path / "ws2000000_rank0.json", tmp_path / "norank.json"]
    files[0].write_text(json.dumps(big))
    files[1].write_text(json.dumps(bare))
    answers: list[int] = []
    done = threading.Event()

    def probe() -> None:  # /healthz asked again and again, as a load balancer would, until the page has answered
        while not done.is_set():
            answers.append(healthz_status(page.base_url))

    prober = threading.Thread(target=probe)
    prober.start()
    try:
        trace = drop(page, files)
        said = "ws2000000_rank0.json: world_size 2000000 is more than this page reads (at most 65536)"
        expect(trace.get_by_role("alert").filter(has_text="world_size 2000000")).to_contain_text(said)
        expect(trace.get_by_role("status").first).to_contain_text("all-reduces = ")  # the other file, read alone
        expect(trace.get_by_role("combobox", name=re.compile("^Rank of"))).to_have_count(0)
    finally:
        done.set()
        prober.join(timeout=60)
    assert answers and set(answers) == {200}, answers


@dataclass
class InProcess:
    """The trace page served by Panel in this process, so a test can fill the trace readers' pool itself."""

    url: str
    views: list


@pytest.fixture(scope="module")
def in_process() -> Iterator[InProcess]:
    import panel as pn

    from app.trace.page.view import TraceView

    views: list = []

    def trace_page():
        view = TraceView()
        views.append(view)
        return view

    port = free_port()
    server = pn.serve(
        {"trace": trace_page},
        port=port,
        address="127.0.0.1",
        show=False,
        threaded=True,
        check_unused_sessions=500,  # a closed tab's session is destroyed within a second
        unused_session_lifetime=500,
    )
    url = f"http://127.0.0.1:{port}"
    poll(lambda: page_answers(url), what="the in-process server answering")
    yield InProcess(url, views)
    server.stop()


def page_answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/trace", timeout=30) as reply:
            return reply.status == 200
    except (urllib.error.URLError, OSError):
        return False


@pytest.fixture
def bare_page(browser, in_process: InProcess) -> Iterator[Page]:
    """A page of the in-process server; the test fails on any page error."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.base_url = in_process.url  # type: ignore[attr-defined]
    yield opened
    context.close()
    assert not errors, errors


def test_files_wait_with_a_visible_line_while_the_trace_readers_are_busy(bare_page, in_process):
    """H2, H4: two parses at once per process; a file waits, and its page says so, then reads.

    While it waits, its bytes count against what the session's dropper may hold (they stay in its
    value until read), so a session cannot queue more than that.
    """
    from app.web.background import TRACE_POOL, TRACE_WORKERS

    gate = threading.Event()
    busy = [TRACE_POOL.submit(lambda: gate.wait(STUCK_AFTER_S)) for _ in range(TRACE_WORKERS)]
    try:
        poll(lambda: TRACE_POOL.running == TRACE_WORKERS, what="the trace readers busy")
        trace = drop(bare_page, GLOO)
        expect(trace.get_by_role("status").first).to_contain_text(
            f"Waiting to read 2 files: this server reads {TRACE_WORKERS} trace files at a time"
        )
        dropper = in_process.views[-1].drop
        assert {name: len(data) for name, data in dropper.value.items()} == {p.name: p.stat().st_size for p in GLOO}
    finally:
        gate.set()
    assert all(future.result(timeout=STUCK_AFTER_S) for future in busy)
    expect(trace.get_by_role("status").first).to_contain_text(readout(GLOO))
    assert dropper.value == {p.name: b"" for p in GLOO}  # read, then let go


CAPTURE_UPLOAD = """() => {
    const doc = Bokeh.documents[0];
    const manager = doc.event_manager;
    const send = manager.send_event.bind(manager);
    manager.send_event = (event) => {
        if (event.event_name === 'upload_event' && !window.forgedUpload) window.forgedUpload = event.constructor;
        send(event);
    };
}"""
"""Keeps the page's upload event class as the dropper sends its first chunk (the review's steps: it is not global)."""
FORGE_CHUNKS = """([first, last, total, name, bytes]) => {
    const dropper = [...Bokeh.documents[0].all_models].find((m) => 'chunk_size' in m && 'max_files' in m);
    for (let k = first; k <= last; k++) {
        dropper.trigger_event(new window.forgedUpload(
            {chunk: k, data: new ArrayBuffer(bytes), name, total_chunks: total, type: 'application/json'}));
    }
}"""
"""Sends chunks ``first`` to ``last`` of a file said to have ``total``, ``bytes`` each, as a script in the page can."""


def forge_ready(page: Page, tmp_path: Path) -> None:
    """Open the trace page and drop a tiny file, so that the page's upload event class is kept."""
    tiny = tmp_path / "tiny.json"
    tiny.write_text("[]")
    page.goto(page.base_url + "/trace")  # type: ignore[attr-defined]
    expect(page.get_by_role("group", name="Trace file")).to_be_visible()
    page.evaluate(CAPTURE_UPLOAD)
    add_files(page, [tiny])
    expect(page.get_by_role("alert").filter(has_text="tiny.json")).to_be_visible()  # the real file, read and refused


FORGED_SAID = "1000000000 chunks of 10,000,000 bytes is more than a file of at most 200MB needs"


def test_a_forged_chunk_stream_is_refused_in_the_page_and_nothing_is_kept(bare_page, in_process, tmp_path):
    """H4: 30 chunks claiming a billion of them, sent by a script in the page (the review's steps)."""
    forge_ready(bare_page, tmp_path)
    bare_page.evaluate(FORGE_CHUNKS, [1, 30, 10**9, "x.json", 10**6])
    refusal = bare_page.get_by_role("alert").filter(has_text="x.json: the upload was refused")
    expect(refusal).to_contain_text(FORGED_SAID)
    view = in_process.views[-1]
    assert view.drop._file_buffer == {} and "x.json" not in view.drop.value


def test_a_forged_chunk_stream_is_refused_on_the_courses_own_trace_page(page, tmp_path):
    """The same stream to ``python -m app``'s page: refused there, said once, and the server logs no traceback."""
    forge_ready(page, tmp_path)
    page.evaluate(FORGE_CHUNKS, [1, 30, 10**9, "x.json", 10**6])
    refusal = page.get_by_role("alert").filter(has_text="x.json: the upload was refused")
    expect(refusal).to_contain_text(FORGED_SAID)
    assert refusal.inner_text().count("the upload was refused") == 1


def test_a_file_still_arriving_is_dropped_when_its_tab_closes(browser, in_process, tmp_path):
    """The first chunk of three, within every limit, is held; closing the tab ends the session and drops it."""
    context = browser.new_context()
    opened = context.new_page()
    opened.base_url = in_process.url  # type: ignore[attr-defined]
    forge_ready(opened, tmp_path)
    view = in_process.views[-1]
    opened.evaluate(FORGE_CHUNKS, [1, 1, 3, "part.json", 10**6])
    poll(lambda: len(view.drop._file_buffer.get("part.json", [])) == 1, page=opened, what="the first chunk held")
    context.close()
    poll(lambda: view.drop._file_buffer == {}, what="the file still arriving dropped as its session ended")
