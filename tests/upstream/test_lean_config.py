"""app.upstream.lean_config: the course template's ``config.set`` saves and restores only the design, and every page
is the same.

Each test sets the fix on or off itself, so that they check the same either way when the suite runs
with every fix skipped (tests/upstream/test_upstream.py).
"""

from __future__ import annotations

import contextlib

import pytest
from panel.config import _config, config
from panel.io.state import set_curdoc
from panel.theme import Material

from app.upstream import lean_config
from tests.page_documents import PAGE_PATHS, document_shape, page_document


def build_with(lean: bool, monkeypatch: pytest.MonkeyPatch, path: str):
    """The page's document, with the lean ``config.set`` or with Panel's own."""
    monkeypatch.setattr(lean_config.LeanConfig, "on", lean)
    return page_document(path)


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_page_document_is_the_same_as_with_panels_own_set(path, monkeypatch):
    lean = document_shape(build_with(True, monkeypatch, path))
    assert document_shape(build_with(False, monkeypatch, path)) == lean


def test_no_page_part_changes_any_other_config_parameter(monkeypatch):
    """What makes saving only the given parameters enough: with Panel's own set, nothing else moves."""
    own_set = _config.set
    changed: list[tuple[str, str]] = []
    calls = []

    @contextlib.contextmanager
    def watching(self, **values):
        calls.append(values)
        before = {name: getattr(self, name) for name in self.param if name not in values}
        with own_set(self, **values):
            yield
            changed.extend((name, repr(value)) for name, value in before.items() if getattr(self, name) is not value)

    monkeypatch.setattr(_config, "set", watching)
    monkeypatch.setattr(lean_config.LeanConfig, "on", False)
    for path in PAGE_PATHS:
        page_document(path)
    assert calls, "no page rendered a part through config.set: the lean set replaces nothing"
    assert {name for values in calls for name in values} == {"design"}
    assert changed == []


def test_panels_set_is_back_after_a_page_and_never_called_during_it(monkeypatch):
    calls = []
    own_set = _config.set

    def counted(self, **values):
        calls.append(values)
        return own_set(self, **values)

    monkeypatch.setattr(_config, "set", counted)
    build_with(True, monkeypatch, "/lesson?id=overlap")
    assert calls == []
    assert "set" not in vars(config)
    build_with(False, monkeypatch, "/lesson?id=overlap")
    assert calls


@pytest.mark.parametrize("path", ["/", "/lab?id=queue", "/lesson?id=overlap"])
def test_a_sessions_design_after_the_page_is_the_same_as_with_panels_own_set(path, monkeypatch):
    designs = []
    for lean in (True, False):
        doc = build_with(lean, monkeypatch, path)
        with set_curdoc(doc):
            designs.append(config.design)
    assert designs[0] is designs[1]


@pytest.mark.parametrize("fails", [False, True])
def test_setting_only_sets_for_the_block_and_puts_back_what_was_there(fails):
    doc = page_document("/")
    with set_curdoc(doc):
        before = config.design
        assert before is not Material
        with contextlib.suppress(RuntimeError), lean_config.setting_only(design=Material):
            assert config.design is Material
            if fails:
                raise RuntimeError("a part failed to render")
        assert config.design is before


def test_lean_set_takes_itself_away_when_the_block_fails():
    with pytest.raises(RuntimeError), lean_config.lean_set():
        assert config.set is lean_config.setting_only
        raise RuntimeError("the template failed")
    assert "set" not in vars(config)
    assert config.set.__func__ is _config.set


def test_in_use_is_a_block_that_changes_nothing_when_not_installed(monkeypatch):
    monkeypatch.setattr(lean_config.LeanConfig, "on", False)
    with lean_config.in_use():
        assert "set" not in vars(config)
