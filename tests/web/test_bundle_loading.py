"""app.web.delivery.bundle_loading: Bokeh's script tags turned into one loader call, and the embed code waiting for
it."""

from __future__ import annotations

import json
import re

import pytest
from bokeh.embed import wrappers

from app.upstream import bundle_onload
from app.web.delivery.bundle_loading import FAILURE, UNUSED_BUNDLES, read_scripts, scripts_html

SHIMS = "static/extensions/panel/bundled/reactiveesm/es-module-shims@^1.10.0/dist/es-module-shims.min.js"
BOKEH = "static/js/bokeh.min.js?v=6acf"
GL = "static/js/bokeh-gl.min.js?v=11aa"
WIDGETS = "static/js/bokeh-widgets.min.js?v=7cce"
TABLES = "static/js/bokeh-tables.min.js?v=e4f6"
MATHJAX = "static/js/bokeh-mathjax.min.js?v=22bb"
PANEL = "static/extensions/panel/panel.min.js?v=32f9"

BOKEH_JS = f"""<script type="esms-options">{{"shimMode": true}}</script>

<script type="text/javascript" src="{SHIMS}"></script>
<script type="text/javascript" src="{BOKEH}"></script>
<script type="text/javascript" src="{GL}"></script>
<script type="text/javascript" src="{WIDGETS}"></script>
<script type="text/javascript" src="{TABLES}"></script>
<script type="text/javascript" src="{MATHJAX}"></script>
<script type="text/javascript" src="{PANEL}"></script>

<script type="text/javascript">
  Bokeh.set_log_level("info");
</script>"""
"""Bokeh's tags for a lesson page as Panel 1.9.4 writes them (with the two bundles the course leaves out)."""


def loader_arguments(html: str) -> list:
    """The four JSON arguments of the loader call in ``html`` (JSON there never holds ``</``)."""
    call = html[html.rindex(")([") + 2 :]
    return json.loads("[" + call[: call.index(")</script>")] + "]")


def test_the_tags_are_read_in_order_without_the_unused_bundles():
    page = read_scripts(BOKEH_JS)
    assert page.static == ['<script type="esms-options">{"shimMode": true}</script>']
    assert page.steps == [
        {"src": SHIMS},
        {"src": BOKEH},
        {"src": WIDGETS},
        {"src": TABLES},
        {"src": PANEL},
        {"code": '\n  Bokeh.set_log_level("info");\n'},
    ]
    assert not any(part in str(page.steps) for part in UNUSED_BUNDLES)


def test_bokehjs_and_what_runs_before_it_are_fetched_first_then_the_rest_and_the_fixes_run_last():
    html = scripts_html(BOKEH_JS, after=("window.fixed = true",))
    early, late, steps, failure = loader_arguments(html)
    assert early == [SHIMS, BOKEH]
    assert late == [WIDGETS, TABLES, PANEL]
    assert [step.get("src") or step["code"].strip() for step in steps] == [
        SHIMS,
        BOKEH,
        WIDGETS,
        TABLES,
        PANEL,
        'Bokeh.set_log_level("info");',
        "window.fixed = true",
    ]
    assert failure == FAILURE
    assert html.startswith('<script type="esms-options">')
    assert '<script type="text/javascript" src=' not in html  # no tag left for the browser to fetch early


def test_inline_code_cannot_end_the_loaders_script_element():
    html = scripts_html(BOKEH_JS, after=("console.log('</script><script>alert(1)')",))
    assert html.count("</script>") == 2  # esms-options' and the loader's own
    assert loader_arguments(html)[2][-1]["code"] == "console.log('</script><script>alert(1)')"


def test_inline_code_before_any_bundle_stays_where_it_was():
    html = scripts_html(f'<script>window.early = 1</script>\n<script src="{BOKEH}"></script>')
    assert html.startswith("<script>window.early = 1</script>")
    assert loader_arguments(html)[:2] == [[BOKEH], []]


def test_without_bokehjs_every_bundle_is_fetched_at_once():
    html = scripts_html(f'<script src="{SHIMS}"></script><script src="{PANEL}"></script>')
    early, late, _, _ = loader_arguments(html)
    assert (early, late) == ([SHIMS, PANEL], [])


@pytest.mark.parametrize("bokeh_js", [None, "", '<script type="esms-options">{}</script>'])
def test_a_page_without_bundles_gets_no_loader(bokeh_js):
    html = scripts_html(bokeh_js)
    assert "overlapBundles" not in html
    assert html == (bokeh_js or "")


def test_the_embed_code_waits_for_the_loader_where_a_page_has_one():
    bundle_onload.install()
    bundle_onload.install()  # idempotent
    wrapped = wrappers.wrap_in_onload("draw()")
    assert wrapped.count("overlapBundles.then(fn)") == 1
    # Elsewhere it runs as Panel runs it: at once, or at DOMContentLoaded.
    assert re.search(r'else if \(document.readyState != "loading"\) fn\(\);\s*else document.addEventListener', wrapped)


def test_an_unknown_embed_wrapper_is_refused_loudly(monkeypatch):
    monkeypatch.setattr(wrappers, "_ONLOAD", "(function() { %(code)s })();")
    with pytest.raises(RuntimeError, match="embed wrapper changed"):
        bundle_onload.install()


def test_only_classic_scripts_go_to_the_loader():
    module = '<script type="module" src="static/extensions/x/widget.js"></script>'
    html = scripts_html(f'<script src="{BOKEH}"></script>\n{module}\n<script type="module">import "./y.js"</script>')
    assert module in html and '<script type="module">import "./y.js"</script>' in html
    assert loader_arguments(html)[2] == [{"src": BOKEH}]
