"""app.web.serving_settings: Bokeh's development checks are off where the course is served, and find nothing here.

The server no longer validates each session's document, so this file does, on every page: Bokeh's
integrity checks (the ones ``Document.validate`` runs) find no error, and no warning but an empty
layout (the trace page's places for a trace not yet read). The rest of the
suite runs with Bokeh's defaults: every callback's signature is still checked as the pages are built.
"""

from __future__ import annotations

import pytest
from bokeh.core.validation.check import check_integrity
from bokeh.settings import settings

from app.web import serving_settings
from tests.page_documents import PAGE_PATHS, page_document


@pytest.fixture
def restored_settings():
    """Bokeh's settings as they were before the test."""
    yield
    for name in serving_settings.CHECKS:
        getattr(settings, name).unset_value()


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_page_passes_bokehs_integrity_checks(path):
    issues = check_integrity(page_document(path).models)
    assert issues.error == []
    assert {issue.name for issue in issues.warning} <= {"EMPTY_LAYOUT"}


def test_the_suite_keeps_bokehs_defaults():
    assert settings.perform_document_validation() is True
    assert settings.perform_error_diagnostics() is True


def test_install_turns_both_checks_off(monkeypatch, restored_settings):
    for variable in serving_settings.CHECKS.values():
        monkeypatch.delenv(variable, raising=False)
    assert serving_settings.install() == dict.fromkeys(serving_settings.CHECKS, False)
    assert settings.perform_document_validation() is False
    assert settings.perform_error_diagnostics() is False


def test_a_variable_in_the_environment_wins(monkeypatch, restored_settings):
    monkeypatch.setenv("BOKEH_VALIDATE_DOC", "true")
    monkeypatch.delenv("BOKEH_PERFORM_ERROR_DIAGNOSTICS", raising=False)
    assert serving_settings.install() == {"perform_document_validation": True, "perform_error_diagnostics": False}
