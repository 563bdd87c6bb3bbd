"""app.upstream.class_constants: every page is the same document with it, and works its class constants out once."""

from __future__ import annotations

import pytest
from panel.config import config
from panel.custom import ReactiveESM
from panel.pane import HTML
from panel.theme import Bootstrap
from panel.theme.base import Design
from panel.theme.bootstrap import BootstrapDefaultTheme
from param import Filename

from app.upstream import class_constants
from tests.page_documents import PAGE_PATHS, document_shape, page_document


@pytest.fixture
def panel_own(monkeypatch):
    """Switch between Panel's own methods and the fix's within a test (each switch starts with nothing kept)."""

    def use(kept: bool) -> None:
        class_constants._esm.clear()
        class_constants._modifiers.clear()
        render = class_constants.render_esm if kept else class_constants._ORIGINAL_RENDER_ESM.__func__
        modifiers = class_constants.get_modifiers if kept else class_constants._ORIGINAL_GET_MODIFIERS.__func__
        monkeypatch.setattr(ReactiveESM, "_render_esm", classmethod(render))
        monkeypatch.setattr(Design, "_get_modifiers", classmethod(modifiers))

    yield use
    class_constants._esm.clear()
    class_constants._modifiers.clear()


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_page_is_the_same_document_with_the_fix(path, panel_own):
    panel_own(kept=False)
    own = document_shape(page_document(path))
    panel_own(kept=True)
    page_document(path)  # the first page fills what is kept
    assert document_shape(page_document(path)) == own


def test_a_second_page_works_out_no_class_constant_again(panel_own, monkeypatch):
    panel_own(kept=True)
    path = "/lesson?id=overlap&exercise=growth"
    page_document(path)
    worked_out: list[tuple[str, type]] = []
    own_render, own_modifiers = class_constants._ORIGINAL_RENDER_ESM, class_constants._ORIGINAL_GET_MODIFIERS

    def render(cls, compiled=True, server=False):
        worked_out.append(("browser code", cls))
        return own_render.__func__(cls, compiled, server)

    def modifiers(cls, viewable, theme=None, isolated=True):
        worked_out.append(("stylesheets", type(viewable)))
        return own_modifiers.__func__(cls, viewable, theme, isolated)

    monkeypatch.setattr(class_constants, "_ORIGINAL_RENDER_ESM", classmethod(render))
    monkeypatch.setattr(class_constants, "_ORIGINAL_GET_MODIFIERS", classmethod(modifiers))
    page_document(path)
    assert worked_out == []
    panel_own(kept=False)  # Panel's own methods: the same page works each of them out per model
    monkeypatch.setattr(ReactiveESM, "_render_esm", classmethod(render))
    monkeypatch.setattr(Design, "_get_modifiers", classmethod(modifiers))
    page_document(path)
    assert len([kind for what, kind in worked_out if what == "stylesheets"]) > 20


def test_the_stylesheet_list_handed_out_is_a_new_one_each_time(panel_own):
    panel_own(kept=True)
    theme = BootstrapDefaultTheme()
    first, _ = class_constants.get_modifiers(Bootstrap, HTML("x"), theme, True)
    assert first["stylesheets"] and len(class_constants._modifiers) == 1
    first["stylesheets"].append("changed by a caller")
    first["added by a caller"] = True
    second, _ = class_constants.get_modifiers(Bootstrap, HTML("y"), theme, True)
    assert len(class_constants._modifiers) == 1  # the same answer, kept
    assert "changed by a caller" not in second["stylesheets"] and "added by a caller" not in second


def test_under_autoreload_panels_own_methods_run(panel_own, monkeypatch):
    panel_own(kept=True)
    monkeypatch.setattr(config, "autoreload", True)
    page_document("/lesson?id=overlap")
    assert class_constants._esm == {} and class_constants._modifiers == {}


def test_the_key_reads_the_themes_files_as_given_without_resolving_them(panel_own, monkeypatch):
    """param's Path resolves against the disk on each read: the key must not pay that for every model."""
    panel_own(kept=True)
    theme = BootstrapDefaultTheme()
    class_constants.get_modifiers(Bootstrap, HTML("x"), theme, True)
    resolved: list[str] = []
    own_resolve = Filename._resolve

    def counting(self, path):
        resolved.append(path)
        return own_resolve(self, path)

    monkeypatch.setattr(Filename, "_resolve", counting)
    class_constants.get_modifiers(Bootstrap, HTML("y"), theme, True)
    class_constants.get_modifiers(Bootstrap, HTML("z"), BootstrapDefaultTheme, True)
    assert resolved == []
    assert class_constants.theme_path(theme, "css") == BootstrapDefaultTheme.param["css"].default


def test_a_theme_with_other_stylesheets_gets_an_answer_of_its_own(panel_own, tmp_path):
    panel_own(kept=True)
    other_css = tmp_path / "other.css"
    other_css.write_text(".x { color: red; }")
    plain, other = BootstrapDefaultTheme(), BootstrapDefaultTheme(css=str(other_css))
    class_constants.get_modifiers(Bootstrap, HTML("x"), plain, True)
    class_constants.get_modifiers(Bootstrap, HTML("x"), other, True)
    assert len(class_constants._modifiers) == 2
    assert class_constants.theme_path(other, "css") == str(other_css)
