"""Every size a trace file states is checked before it sizes anything; hostile variants of real traces are refused.

The variants start from the course's real traces (content/traces, tests/fixtures/traces) and change
one stated number or add one kind of padding, as the security review v6 did (H1, H2).
"""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path

import pytest

from app.trace import Limits, TraceError, parse_trace
from app.trace.links import MAX_ELEMENTS
from app.trace.reader import MAX_WORLD, read_trace

ROOT = Path(__file__).parents[2]
LATE = [ROOT / "content" / "traces" / f"gloo_late_rank{rank}.json.gz" for rank in (0, 1)]


def trace_of(path: Path) -> dict:
    """A real trace file as JSON."""
    return json.loads(gzip.decompress(path.read_bytes()))


def with_info(**info: object) -> bytes:
    """Rank 0's real trace with ``distributedInfo`` fields replaced."""
    data = trace_of(LATE[0])
    data["distributedInfo"].update(info)
    return json.dumps(data).encode()


def refusal(data: bytes, limits: Limits | None = None) -> str:
    """The one line ``parse_trace`` refuses ``data`` with."""
    with pytest.raises(TraceError) as refused:
        parse_trace(data, source="hostile.json", limits=limits)
    message = str(refused.value)
    assert message.startswith("hostile.json: ") and "\n" not in message
    return message


@pytest.mark.parametrize("world", [MAX_WORLD + 1, 2_000_000, 10**12, 10**300])
def test_a_world_size_larger_than_the_page_reads_is_refused_saying_so(world):
    said = refusal(with_info(world_size=world))
    assert said == f"hostile.json: world_size {world} is more than this page reads (at most {MAX_WORLD})"


def test_the_largest_world_size_read_is_read():
    assert parse_trace(with_info(world_size=MAX_WORLD)).world_size == MAX_WORLD


@pytest.mark.parametrize(
    ("info", "said"),
    [
        ({"rank": 10**12, "world_size": 2}, f"rank {10**12} is more than this page reads (at most {MAX_WORLD - 1})"),
        ({"rank": 5, "world_size": 4}, "rank 5 cannot be in a run of 4 ranks"),
    ],
)
def test_a_rank_outside_the_run_is_refused(info, said):
    assert refusal(with_info(**info)) == f"hostile.json: {said}"


def test_a_rank_or_world_size_given_on_the_page_is_checked_too():
    data = trace_of(LATE[1])
    del data["distributedInfo"]
    trace = parse_trace(json.dumps(data).encode(), source="bare.json")
    with pytest.raises(TraceError, match=f"world_size 2000000 is more than this page reads \\(at most {MAX_WORLD}\\)"):
        trace.with_world_size(2_000_000)
    with pytest.raises(TraceError, match="rank 70000 is more than this page reads"):
        trace.with_rank(70_000)
    with pytest.raises(TraceError, match="rank 3 cannot be in a run of 2 ranks"):
        trace.with_rank(3, 2)


def gzip_of(head: bytes, filler: bytes, mib: int, tail: bytes = b"") -> bytes:
    """``head`` + ``mib`` MiB of ``filler`` + ``tail``, gzipped a MiB at a time (never held expanded)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = filler * (2**20 // len(filler))
    parts = [packer.compress(head)] + [packer.compress(block) for _ in range(mib)]
    return b"".join([*parts, packer.compress(tail), packer.flush()])


def test_the_reviews_white_space_bomb_is_refused_after_a_mib_not_read_to_its_end():
    """``{"traceEvents":[`` and a GiB of spaces (security review v6, H2) once kept a thread 70 s."""
    bomb = gzip_of(b'{"traceEvents":[', b" ", 1024)
    assert len(bomb) < 2 * 2**20
    said = refusal(bomb)
    assert "holds more than 1.0 MiB of white space in a row, more than this page reads" in said


@pytest.mark.parametrize("where", ["before the first event", "between two events", "after the list"])
def test_white_space_anywhere_between_values_counts_against_the_budget(where):
    event = json.dumps(trace_of(LATE[0])["traceEvents"][0]).encode()
    pad = b" " * (2 * 2**20)
    data = {
        "before the first event": b'{"traceEvents":[' + pad + event + b"]}",
        "between two events": b'{"traceEvents":[' + event + b"," + pad + event + b"]}",
        "after the list": b'{"traceEvents":[' + event + b"]" + pad + b"}",
    }[where]
    assert "of white space in a row" in refusal(data)


def test_white_space_inside_one_event_is_refused_at_the_largest_value():
    bomb = gzip_of(b'{"traceEvents":[{"ph":', b" ", 80, b'"X"}]}')
    assert "holds one value longer than 64.0 MiB" in refusal(bomb)


def test_an_expansion_bomb_of_values_stops_at_the_expansion_limit():
    bomb = gzip_of(b'{"traceEvents":[', b'{"ph":"i","name":"x"},', 40, b"0]}")
    assert "expands past the limit of 16.0 MiB" in refusal(bomb, Limits(max_expanded_bytes=16 * 2**20))


def test_more_events_than_the_budget_are_refused_as_they_are_counted():
    data = b"[" + b"{}," * 5000 + b"{}]"
    assert refusal(data, Limits(max_events=1000)).endswith("has more events than this page reads (at most 1,000)")
    assert len(read_trace(data, Limits(max_events=5001)).events) == 0  # the budget counts; nothing is kept


def test_the_default_budget_holds_the_largest_real_trace_and_stops_an_event_flood():
    """The review's 150 MB trace had 1.43 M events: the default reads that many and refuses a flood past 3 M."""
    assert Limits().max_events >= 1_430_000
    flood = gzip_of(b"[", b"0," * 512, 7, b"0]")  # 3.67 M events of two bytes each
    assert "more events than this page reads (at most 3,000,000)" in refusal(flood)


def test_numbers_too_long_to_read_are_refused_with_a_line():
    data = trace_of(LATE[0])
    issue = next(event for event in data["traceEvents"] if event.get("name") == "c10d::allreduce_")
    issue["ts"] = 10**400  # past a float's range: no time
    assert "('c10d::allreduce_') has no valid 'ts'" in refusal(json.dumps(data).encode())
    text = json.dumps(trace_of(LATE[0])).replace('"world_size": 2', '"world_size": ' + "9" * 5000)
    assert refusal(text.encode()) == "hostile.json: the file holds a number with more digits than this page reads"


@pytest.mark.parametrize(
    ("field", "value"),
    [("In msg nelems", MAX_ELEMENTS + 1), ("Input Dims", [[2**30, 2**30, 2**30]]), ("Input Dims", [[10**300] * 50])],
)
def test_a_collectives_stated_size_larger_than_the_page_reads_is_refused(field, value):
    data = trace_of(LATE[0])
    for event in data["traceEvents"]:
        if event.get("name") in ("gloo:all_reduce", "c10d::allreduce_"):
            event.setdefault("args", {})[field] = value
    said = refusal(json.dumps(data).encode())
    assert f"is more than this page reads (at most {MAX_ELEMENTS})" in said or "more elements than this page" in said


@pytest.mark.parametrize("number", ["9" * 5000, "1" * 19, "\u00b2"])
def test_a_step_number_too_long_or_not_ascii_is_refused_with_a_line(number):
    data = json.loads(
        gzip.decompress((ROOT / "tests" / "fixtures" / "traces" / "gloo_schedule_rank0.json.gz").read_bytes())
    )
    step = next(event for event in data["traceEvents"] if event.get("name", "").startswith("ProfilerStep#"))
    step["name"] = "ProfilerStep#" + number
    said = refusal(json.dumps(data).encode())
    assert said.startswith("hostile.json: step number ") and said.endswith(
        "is more than this page reads (at most 18 digits)"
    )


def test_the_memory_the_kept_events_take_is_budgeted():
    said = refusal(LATE[0].read_bytes(), Limits(max_kept_bytes=50_000))
    assert (
        "the events the analysis keeps would take more memory than this page gives a file (about 50,000 bytes" in said
    )
    assert read_trace(LATE[0].read_bytes()).kept_bytes < Limits().max_kept_bytes


def test_an_argument_of_a_million_items_is_read_as_absent_never_kept():
    """One event's list of a million dimensions once stayed in memory with the event for as long as it was shown."""
    data = trace_of(LATE[0])
    issues = [event for event in data["traceEvents"] if event.get("name") == "c10d::allreduce_"]
    issues[0]["args"]["Input Dims"] = [[0] * 1_000_000]
    issues[0]["args"]["Input type"] = ["x" * 10_000]
    raw = read_trace(json.dumps(data).encode())
    kept = next(event for event in raw.events if event.name == "c10d::allreduce_")
    assert "Input Dims" not in kept.args and "Input type" not in kept.args
    assert "External id" in kept.args  # the rest of the event is kept as it was


def test_deep_nesting_is_refused_with_a_line():
    assert refusal(b'{"traceEvents":[' + b"[" * 100_000 + b"]" * 100_000 + b"]}").endswith("too deeply to be a trace")
