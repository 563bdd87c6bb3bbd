"""Names and Roles: the roster's size from the platform's membership service, page by page, members counted not kept."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.lti.handlers import ROUTES
from app.lti.roster import RosterError, learners
from tests.tornado_thread import serving


@pytest.fixture
def served(platform, tool) -> Iterator[str]:
    with serving(ROUTES) as url:  # the platform checks the tool's assertion against its /lti/jwks
        platform.tool_url = url
        yield url


def record(platform) -> dict:
    return {"iss": platform.issuer, "client_id": platform.client_id, "memberships_url": f"{platform.url}/memberships"}


def test_the_active_learners_are_counted_over_every_page(platform, tool, served):
    assert learners(tool, record(platform)) == 3  # s1, s2 (no status: active), s4; not the inactive, not the teacher
    assert not platform.refused, platform.refused


def test_a_roster_the_platform_refuses_says_why(platform, tool, served):
    platform.client_id = "another-client"  # the tool's assertion no longer names the platform's client
    with pytest.raises(RosterError, match="token endpoint answered 401"):
        learners(tool, record(platform) | {"client_id": tool.config.all()[0].client_id})
