"""The launch's pages are framed by the registered platforms' sites alone, and may post back to them."""

from __future__ import annotations

from app.web.frame_headers import frame_ancestors, frame_headers
from app.web.security_headers import page_policy

PLATFORMS = "https://lms.example https://school.example.edu"


def test_lti_pages_may_be_framed_by_the_registered_platforms_and_the_course():
    for path in ("/lti/lesson", "/lti/instructor", "/lti/launch"):
        assert frame_ancestors(path, "*", PLATFORMS) == f"'self' {PLATFORMS}"
    assert "X-Frame-Options" not in frame_headers("/lti/lesson", "*", PLATFORMS)


def test_without_lti_or_elsewhere_nothing_changes():
    assert frame_ancestors("/lti/lesson", "*") == "'self'"  # no platform registered: the course alone
    assert frame_ancestors("/instructor", "*", PLATFORMS) == "'none'"  # the token page: never framed
    assert frame_ancestors("/lesson", "*", PLATFORMS) == "'self'"
    assert frame_ancestors("/embed/queue", "*", PLATFORMS) == "*"


def test_an_lti_page_may_post_its_forms_to_the_platforms():
    assert "form-action 'self';" in page_policy("n", "'self'") + ";"
    assert f"form-action 'self' {PLATFORMS};" in page_policy("n", "'self'", f"'self' {PLATFORMS}") + ";"
