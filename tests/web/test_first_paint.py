"""A page's first paint (app/web/first_paint.py): its markup and the component stylesheets kept to it."""

from __future__ import annotations

import pytest

from app.web.first_paint import first_paint_html, scoped


def test_a_components_stylesheet_is_kept_to_the_first_paint_and_its_host_rules_left_out():
    css = ":host { font-size: 1rem; }\np, li { margin: 3px 0; }\na { color: blue; }"
    assert scoped(css, "#first-paint .index") == (
        "#first-paint .index p, #first-paint .index li { margin: 3px 0; }\n#first-paint .index a { color: blue; }"
    )


def test_a_stylesheet_with_an_at_rule_is_refused_rather_than_rewritten_wrong():
    with pytest.raises(ValueError, match="plain rules"):
        scoped("@media (min-width: 600px) { p { margin: 0; } }", "#first-paint")


def test_the_first_paint_names_what_ends_it_and_brings_its_script():
    markup = str(first_paint_html("<h1>Queue</h1>", "<p>text</p>", until="lab", stylesheets=(".x { color: red; }",)))
    assert markup.startswith('<div id="first-paint" data-until="lab"><style>')
    assert ".x { color: red; }" in markup and "<h1>Queue</h1><p>text</p></div>" in markup
    assert markup.rstrip().endswith("</script>") and "overlap-drawn" in markup


def test_a_first_paint_waiting_for_an_unknown_component_is_refused():
    with pytest.raises(ValueError, match="waits for one of"):
        first_paint_html("", "", until="plot")
