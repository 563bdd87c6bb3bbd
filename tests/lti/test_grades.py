"""The grade sent back (AGS): a client-credentials token for the tool's signed assertion, then the score; kept and
retried while the platform does not take it."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from app.lti.grades import backoff_s, score_body, scores_url, send_pending, try_send
from app.lti.grades import queue_score as queue
from app.lti.handlers import ROUTES
from tests.tornado_thread import serving


@pytest.fixture
def served(platform, tool) -> Iterator[str]:
    with serving(ROUTES) as url:  # the platform checks the tool's assertion against the tool's /lti/jwks
        platform.tool_url = url
        yield url


def launch_record(platform, sub: str = "student-9") -> dict:
    return {
        "iss": platform.issuer,
        "client_id": platform.client_id,
        "lineitem": platform.lineitem("7"),
        "sub": sub,
    }


def test_the_score_says_completed_and_fully_graded():
    body = score_body("u1", correct=False, mode="participation", now=0)
    assert body == {
        "userId": "u1",
        "scoreGiven": 1,
        "scoreMaximum": 1,
        "activityProgress": "Completed",
        "gradingProgress": "FullyGraded",
        "timestamp": "1970-01-01T00:00:00.000Z",
    }
    assert score_body("u1", correct=False, mode="correctness")["scoreGiven"] == 0
    assert score_body("u1", correct=True, mode="correctness")["scoreGiven"] == 1


def test_the_scores_endpoint_follows_the_line_item():
    assert scores_url("https://lms.example/api/lineitems/3") == "https://lms.example/api/lineitems/3/scores"
    assert scores_url("https://lms.example/li/3?type=x") == "https://lms.example/li/3/scores?type=x"


def test_a_score_reaches_the_platform(platform, tool, served):
    pending = queue(tool, launch_record(platform), correct=True)
    assert try_send(tool, pending) is True
    (score,) = platform.scores
    assert score["lineitem"] == "7" and score["userId"] == "student-9" and score["scoreGiven"] == 1
    assert tool.state.is_sent(pending.id) and not tool.state.pending_scores(now=time.time() + 3600)
    assert not platform.refused, platform.refused


def test_a_score_the_platform_does_not_take_is_kept_and_sent_later(platform, tool, served, caplog):
    platform.fail_scores = 1
    pending = queue(tool, launch_record(platform), correct=True)
    assert try_send(tool, pending) is False
    assert not platform.scores and [p.id for p in tool.state.pending_scores(now=time.time() + 31)] == [pending.id]
    assert any("not sent yet" in record.getMessage() for record in caplog.records)
    assert "student-9" not in caplog.text
    assert send_pending(tool) == 0  # not due yet: the next try waits 30 s
    assert send_pending(tool, now=time.time() + 31) == 1  # the server's round once it is due
    assert len(platform.scores) == 1 and tool.state.is_sent(pending.id)


def test_correctness_mode_sends_right_or_wrong(platform, tool, served):
    tool.score_mode = "correctness"
    try_send(tool, queue(tool, launch_record(platform), correct=False))
    assert platform.scores[0]["scoreGiven"] == 0


def test_a_platform_that_refuses_the_assertion_gets_nothing_and_the_score_stays(platform, tool, served):
    other = platform.client_id
    platform.client_id = "another-client"  # the platform no longer knows the tool's assertion as its client's
    pending = queue(tool, launch_record(platform) | {"client_id": other}, correct=True)
    assert try_send(tool, pending) is False
    assert not platform.scores and tool.state.pending_scores(now=time.time() + 31)


def test_the_waits_between_tries_double_up_to_an_hour():
    assert [backoff_s(n) for n in (1, 2, 3, 4)] == [30, 60, 120, 240]
    assert backoff_s(50) == 3600
