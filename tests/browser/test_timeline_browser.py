"""The bucket timeline lab in a real Chromium: defaults, Step, Play in the browser, presets, refusals."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from labs.timeline.model import EMBEDDING_FIRST, TimelineModel
from labs.timeline.text import caption
from tests.student import open_lab, play_and_pause_checking_the_websocket, reading, type_value, wait_until

pytestmark = pytest.mark.browser


def figures(model: TimelineModel) -> str:
    return f"buckets = {model.bucket_count} · step = {model.step_time:.2f} ms · exposed = {model.exposed:.2f} ms"


def to_the_end(lab, model: TimelineModel) -> None:
    """Press To the end once the lab shows ``model``'s step (its table's caption): the step's figures
    and what went wrong show once the run has reached them. (Pressed before an edit has reached the
    page, To the end would stop at the horizon the page still had.)"""
    expect(lab.get_by_role("table")).to_contain_text(caption(model))
    lab.get_by_role("button", name="To the end").click()


def test_index_links_to_the_timeline_lab(page):
    page.goto(page.base_url + "/")
    page.get_by_role("link", name="Bucket timeline lab").click()
    expect(page.get_by_role("region", name="Bucket timeline lab")).to_be_visible()


def test_defaults_step_and_the_bucket_table(page):
    lab = open_lab(page, "/timeline", "Bucket timeline lab")
    model = TimelineModel()
    expect(lab.get_by_role("status").first).to_contain_text("step = 0.00 ms · exposed = 0.00 ms")  # at t = 0
    assert reading(lab, "t") == 0
    lab.get_by_role("button", name="Step").click()
    expect(lab.get_by_role("status").first).to_contain_text(f"t = {model.step_size:.2f} ms")
    to_the_end(lab, model)
    expect(lab.get_by_role("status").first).to_contain_text(figures(model))
    table = lab.get_by_role("table")
    expect(table.get_by_role("row")).to_have_count(model.bucket_count + 1)  # a header row, then each bucket
    expect(table).to_contain_text(f"exposed {model.exposed:.2f} ms")


def test_play_runs_in_the_browser_and_reaches_the_step_end(page):
    lab = open_lab(page, "/timeline", "Bucket timeline lab")
    lab.get_by_role("combobox", name="Speed").select_option("0.5×")  # the whole step in 8 s: time to Pause
    play_and_pause_checking_the_websocket(page, lab)
    paused_at = reading(lab, "t")
    assert 0 < paused_at < TimelineModel().step_time
    lab.get_by_role("button", name="Play").click()
    wait_until(lambda: reading(lab, "t") >= round(TimelineModel().step_time, 2))  # shown to 2 decimals
    expect(lab.get_by_role("button", name="Play")).to_be_visible()


def test_a_preset_the_layers_field_and_refusals(page):
    lab = open_lab(page, "/timeline", "Bucket timeline lab")
    lab.get_by_role("combobox", name="Model").select_option(EMBEDDING_FIRST)
    embedding = TimelineModel()
    embedding.apply("preset", EMBEDDING_FIRST)
    to_the_end(lab, embedding)
    expect(lab.get_by_role("status").first).to_contain_text(figures(embedding))
    expect(lab.get_by_role("textbox", name="Layers")).to_have_value(embedding.layers)
    for bad, said in [("8:2, x", "no colon"), ("-8:2", "Layers"), ("", "Layers"), ("8:nan", "Layers")]:
        type_value(lab, "Layers", bad)
        expect(lab.get_by_role("alert").first).to_contain_text(said)
        expect(lab.get_by_role("alert").first).to_contain_text(f"kept {embedding.layers}.")
        expect(lab.get_by_role("textbox", name="Layers")).to_have_value(bad)  # what was typed stays
        expect(lab.get_by_role("status").first).to_contain_text(figures(embedding))
    type_value(lab, "Layers", "8:2, 8:2")
    two = TimelineModel()
    two.apply("layers", "8:2, 8:2")
    to_the_end(lab, two)
    expect(lab.get_by_role("status").first).to_contain_text(figures(two))
    expect(lab.get_by_role("combobox", name="Model")).to_have_value("Custom")
    box = lab.get_by_role("textbox", name="Bucket cap (MiB)", exact=True)
    box.fill("abc")
    box.press("Enter")
    expect(lab.get_by_role("alert").first).to_contain_text("Bucket cap")
    expect(lab.get_by_role("alert").first).to_contain_text("kept 25")
    expect(box).to_have_value("abc")


# ----- what breaks the ideal overlap ---------------------------------------------------------------


def status_of(lab):
    return lab.get_by_role("status").first


def test_contention_slows_backward_and_keeps_the_tail(page):
    lab = open_lab(page, "/timeline", "Bucket timeline lab")
    type_value(lab, "Compute slowdown while communicating", "1.5")
    slowed = TimelineModel(compute_slowdown=1.5)
    to_the_end(lab, slowed)
    expect(status_of(lab)).to_contain_text(figures(slowed) + f" · backward = {slowed.backward_end:.2f} ms")
    expect(lab.get_by_role("table")).to_contain_text(f"{slowed.backward_lost:.2f} ms of it lost to contention")
    type_value(lab, "Communication slowdown while computing", "0.5")  # below 1: refused, state kept
    expect(lab.get_by_role("alert").first).to_contain_text("Communication slowdown while computing")
    expect(lab.get_by_role("alert").first).to_contain_text("kept 1.")
    expect(lab.get_by_role("textbox", name="Communication slowdown while computing")).to_have_value("0.5")
    expect(status_of(lab)).to_contain_text(figures(slowed))


def test_a_launch_gap_shows_issue_times_in_the_table(page):
    lab = open_lab(page, "/timeline", "Bucket timeline lab")
    type_value(lab, "Launch gap (ms)", "0.5")
    gapped = TimelineModel(launch_gap=0.5)
    to_the_end(lab, gapped)
    expect(status_of(lab)).to_contain_text(figures(gapped))
    table = lab.get_by_role("table")
    expect(table.get_by_role("columnheader", name="issue (ms)")).to_be_visible()
    expect(table.get_by_role("row", name="3 3, 2, 1 24 16.00 16.50 16.50 20.90")).to_be_visible()  # ready, issue, start
    type_value(lab, "Launch gap (ms)", "-1")
    expect(lab.get_by_role("alert").first).to_contain_text("Launch gap")
    expect(status_of(lab)).to_contain_text(figures(gapped))


def test_a_value_that_reads_as_the_one_in_force_is_shown_as_the_model_reads_it(page):
    """'-0.0' in a field holding 0 changes nothing on the server: the field still shows 0, not what was typed."""
    lab = open_lab(page, "/timeline", "Bucket timeline lab")
    gap = lab.get_by_role("textbox", name="Launch gap (ms)")
    expect(gap).to_have_value("0")
    type_value(lab, "Launch gap (ms)", "-0.0")
    expect(gap).to_have_value("0")
    type_value(lab, "Launch gap (ms)", "0,5")
    expect(gap).to_have_value("0.5")


def test_a_missing_event_is_invalid_and_names_the_layer_read_early(page):
    lab = open_lab(page, "/timeline", "Bucket timeline lab")
    chooser = lab.get_by_role("combobox", name="Missing event")
    expect(chooser.locator("option")).to_have_count(4)  # none, bucket 1 to 3
    chooser.select_option("bucket 3")
    expect(status_of(lab)).not_to_contain_text("INVALID")  # not before the run has read the layer early
    to_the_end(lab, TimelineModel(missing_event=3))
    expect(status_of(lab)).to_contain_text("INVALID")
    expect(status_of(lab)).to_contain_text("read early: layer 1")
    early = TimelineModel(missing_event=3)
    expect(status_of(lab)).to_contain_text(f"step = {early.step_time:.2f} ms")
    expect(lab.get_by_role("table")).to_contain_text("read early: layer 1")
    chooser.select_option("none")
    expect(status_of(lab)).not_to_contain_text("INVALID")


def test_the_optimizer_that_does_not_wait_and_a_synchronization_after_every_bucket(page):
    lab = open_lab(page, "/timeline", "Bucket timeline lab")
    waits = lab.get_by_role("checkbox", name="Optimizer waits for the all-reduce")
    expect(waits).to_be_checked()
    waits.uncheck()
    to_the_end(lab, TimelineModel(optimizer_waits=False))
    expect(status_of(lab)).to_contain_text("INVALID: the optimizer read gradients still being reduced")
    expect(status_of(lab)).to_contain_text("step = 16.00 ms · exposed = 0.00 ms")
    waits.check()
    synced = lab.get_by_role("checkbox", name="Synchronize after every bucket")
    expect(synced).not_to_be_checked()
    synced.check()
    serial = TimelineModel(sync_each=True)
    to_the_end(lab, serial)
    expect(status_of(lab)).to_contain_text(figures(serial))
    expect(status_of(lab)).not_to_contain_text("INVALID")
    lab.get_by_role("button", name="Reset").click()
    expect(synced).not_to_be_checked()
    to_the_end(lab, TimelineModel())
    expect(status_of(lab)).to_contain_text(figures(TimelineModel()))


def test_the_last_bucket_cap_checkbox_puts_the_small_bucket_last(page):
    lab = open_lab(page, "/timeline", "Bucket timeline lab")
    box = lab.get_by_role("checkbox", name="DDP_SET_LAST_BUCKET_CAP=1 (small bucket last)")
    expect(box).not_to_be_checked()
    box.check()
    small_last = TimelineModel(last_bucket_cap=True)
    to_the_end(lab, small_last)  # the readout plays the step back: its figures show at the step's end
    expect(status_of(lab)).to_contain_text(figures(small_last))
    expect(lab.get_by_text("gives the first cap to the last bucket")).to_be_visible()
    lab.get_by_role("button", name="Reset").click()
    expect(box).not_to_be_checked()
    to_the_end(lab, TimelineModel())
    expect(status_of(lab)).to_contain_text(figures(TimelineModel()))


def test_a_rank_that_skips_a_gradient_hangs_and_find_unused_parameters_completes(page):
    lab = open_lab(page, "/timeline", "Bucket timeline lab")
    lab.get_by_role("combobox", name="Rank skips a gradient").select_option("layer 6")
    to_the_end(lab, TimelineModel(skipped_layer=6))
    expect(status_of(lab)).to_contain_text("hang")
    expect(status_of(lab)).to_contain_text("completed = 1")
    expect(status_of(lab)).not_to_contain_text("step =")
    expect(lab.get_by_role("table")).to_contain_text("never completes")
    iteration = lab.get_by_role("combobox", name="Iteration")
    iteration.select_option(
        label=next(o for o in iteration.locator("option").all_inner_texts() if "find_unused_parameters" in o)
    )
    unused = TimelineModel(skipped_layer=6, iteration="find_unused_parameters=True (registration order, never rebuilt)")
    to_the_end(lab, unused)
    expect(status_of(lab)).to_contain_text(figures(unused))
    expect(status_of(lab)).not_to_contain_text("hang")


# ----- the network: machines, one NCCL group, the communication library ------------------------------


def test_ranks_per_machine_set_the_ring_link_and_a_group_completes_as_one(page):
    lab = open_lab(page, "/timeline", "Bucket timeline lab")
    expect(lab.get_by_text("The ring runs at 10 GB/s: its slowest link, between machines.")).to_be_visible()
    type_value(lab, "Bandwidth inside a machine", "200")
    type_value(lab, "Ranks per machine", "4")  # two machines of four: still the link between them
    expect(lab.get_by_text("The ring runs at 10 GB/s: its slowest link, between machines.")).to_be_visible()
    type_value(lab, "Ranks per machine", "2.5")
    expect(lab.get_by_role("alert").first).to_contain_text("Ranks per machine must be a whole number")
    expect(lab.get_by_role("alert").first).to_contain_text("kept 4.")
    type_value(lab, "Ranks per machine", "8")  # one machine holds all eight ranks
    ring = "The ring runs at 200 GB/s: its slowest link, inside the one machine that holds every rank."
    expect(lab.get_by_text(ring)).to_be_visible()
    one_machine = TimelineModel(machine_ranks=8, intra_bandwidth=200)
    to_the_end(lab, one_machine)
    expect(status_of(lab)).to_contain_text(figures(one_machine))
    group = lab.get_by_role("checkbox", name="Launch the buckets as one NCCL group")
    expect(group).not_to_be_checked()
    group.check()
    grouped = TimelineModel(machine_ranks=8, intra_bandwidth=200, nccl_group=True)
    to_the_end(lab, grouped)
    expect(status_of(lab)).to_contain_text(figures(grouped))
    expect(lab.get_by_text("every all-reduce counts as complete when the last one ends")).to_be_visible()
    library = lab.get_by_role("combobox", name="Communication library")
    expect(library).to_have_value("NCCL (moves the bytes itself)")
    library.select_option("MPI without a progress thread")
    silent = TimelineModel(
        machine_ranks=8, intra_bandwidth=200, nccl_group=True, progress="MPI without a progress thread"
    )
    to_the_end(lab, silent)
    lab.get_by_role("button", name="Reset").click()
    expect(group).not_to_be_checked()
    expect(library).to_have_value("NCCL (moves the bytes itself)")
    expect(lab.get_by_role("textbox", name="Ranks per machine")).to_have_value("1")
    expect(lab.get_by_text("The ring runs at 10 GB/s: its slowest link, between machines.")).to_be_visible()


def test_each_select_is_named_by_its_label_alone(page):
    """The stage's selects (labs/ui/select_field.py): a label around a <select> read all its options as its
    text (the fuzz's reading of the page took "IterationRebuilt…" for a caption) and named the select with
    its choice too; the label names it by its id, beside it."""
    page.goto(page.base_url + "/timeline")
    lab = page.get_by_role("region", name="Bucket timeline lab")
    expect(lab.get_by_role("status").first).to_contain_text("t = ")
    for name in ("Model", "Iteration", "Missing event", "Rank skips a gradient"):
        select = lab.get_by_role("combobox", name=name, exact=True)
        expect(select).to_be_visible()
        assert select.evaluate("el => el.labels[0].textContent.trim()") == name
