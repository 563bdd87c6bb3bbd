"""labs.ui.stylesheet: the components' CSS lives in ``.css`` files, read once and sent as text."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.course import exercise_card, lesson_text
from app.site.pages import index
from app.trace.page import shown, view
from labs.queue import text as queue_text
from labs.timeline import legend
from labs.ui import palette, plot_text, stage, styles, stylesheet

ROOT = Path(__file__).resolve().parents[2]
SHEETS = {
    "labs/ui/assets/readout_room.css": styles.READOUT_ROOM_CSS,
    "labs/ui/assets/controls.css": styles.CONTROL_CSS,
    "labs/ui/assets/plot_tables.css": plot_text.TABLE_CSS,
    "labs/ui/assets/fields.css": stage.FIELDS_CSS,
    "labs/ui/assets/stage.css": stage.STAGE_CSS,
    "labs/timeline/assets/legend.css": legend.LEGEND_CSS,
    "app/trace/page/assets/tables.css": shown.TABLE_CSS,
    "app/trace/page/assets/dropped_file.css": view.DROPPED_FILE_CSS,
    "app/course/assets/exercise_card.css": exercise_card.CARD_CSS,
    "app/course/assets/prose.css": lesson_text.PROSE_CSS,
    "app/course/assets/lesson_layout.css": lesson_text.LAYOUT_CSS,
    "app/site/assets/index.css": index.INDEX_CSS,
    "app/site/assets/index_first_paint.css": index.FIRST_PAINT_INDEX_CSS,
}
"""Each stylesheet file of labs/ and app/ (but app/web's and the not-found page's) and what its module sends."""
INLINE_STYLES = {
    "labs/ui/assets/readout_style.css": styles.READOUT_STYLE,
    "labs/queue/assets/mm1_box.css": queue_text.MM1_BOX,
    "labs/queue/assets/mm1_heading.css": queue_text.MM1_HEADING,
    "labs/queue/assets/mm1_note.css": queue_text.MM1_NOTE,
}
"""The files that hold one element's declarations (a ``style`` attribute's), and what their modules send."""


def test_every_css_file_is_sent_by_its_module():
    found = {
        str(path.relative_to(ROOT))
        for folder in ("labs", "app/course", "app/trace", "app/classroom", "app/site")
        for path in (ROOT / folder).rglob("*.css")
    } - {"app/site/not_found.css"}  # the not-found page's, sent with the page's own HTML
    assert found == set(SHEETS) | set(INLINE_STYLES)


@pytest.mark.parametrize("name", sorted(INLINE_STYLES))
def test_an_inline_style_is_one_line_of_declarations_with_the_colours_put_in(name):
    sent = INLINE_STYLES[name]
    assert "var(--ol-" not in sent and "${" not in sent and "{" not in sent and "\n" not in sent
    assert ":" in sent and '"' not in sent


@pytest.mark.parametrize("name", sorted(SHEETS))
def test_a_sent_stylesheet_has_the_colours_and_sizes_put_in(name):
    sent = SHEETS[name]
    assert "var(--ol-" not in sent and "${" not in sent
    assert sent.count("{") == sent.count("}") > 0


def test_placeholders_colours_and_compact_lines(tmp_path):
    path = tmp_path / "x.css"
    path.write_text("a { color: var(--ol-navy); }\n@media (min-width: ${WIDE}px) {\n  b { margin: 0; }\n}\n")
    assert (
        stylesheet(path, WIDE=880)
        == f"a {{ color: {palette.NAVY}; }}\n@media (min-width: 880px) {{\n  b {{ margin: 0; }}\n}}\n"
    )
    assert (
        stylesheet(path, compact=True, WIDE=880)
        == f"a {{ color: {palette.NAVY}; }}@media (min-width: 880px) {{b {{ margin: 0; }}}}"
    )
    with pytest.raises(KeyError, match="WIDE"):
        stylesheet(path)
