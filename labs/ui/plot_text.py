"""Text alternatives for a lab's plots: what each plot shows now, and its data as a table.

A Bokeh plot is a canvas: a screen reader finds nothing in it, and Bokeh makes its event layer a
tab stop with no name. Each plot's event layer becomes a named image (``role="img"``) whose
name says what the plot shows now, so a keyboard user who tabs onto the plot hears it; under the
plots, one Div holds each plot's data as a table behind a "Show … as a table" disclosure.

The texts change after Step, Reset and edits (whenever the server redraws), never per Play frame:
player.js leaves them alone.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field

from bokeh.models import CustomJS, Div
from bokeh.plotting import figure as Figure

from labs.numbers import fixed
from labs.ui import ASSETS, browser_code, stylesheet

# Runs once each plot has been laid out (inner_width) and whenever the server sends new texts
# (tags); it names each plot's event layer and keeps open tables open across redraws.
NAME_PLOTS_JS = browser_code("plot_text.js")

TABLE_CSS = "<style>" + stylesheet(ASSETS / "plot_tables.css", compact=True) + "</style>"


@dataclass
class PlotText:
    """What one plot shows, in words and as a table.

    Attributes
    ----------
    name : str
        The plot's short name ("Backlog plot"), which starts its description.
    summary : str
        What the plot shows now, in one or two sentences of plain text.
    columns : sequence of str
        Column headings of the data table, with units.
    rows : sequence of sequence of str
        The table's rows, already formatted for people.
    """

    name: str
    summary: str
    columns: Sequence[str] = ()
    rows: Sequence[Sequence[str]] = field(default_factory=list)

    @property
    def description(self) -> str:
        """The plot's accessible name: its name, then what it shows now."""
        return f"{self.name}: {self.summary}"

    def table_html(self, index: int) -> str:
        """The data as an HTML table behind a disclosure (``<details>``); empty without columns."""
        if not self.columns:
            return ""
        head = "".join(f'<th scope="col">{html.escape(c)}</th>' for c in self.columns)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>" for row in self.rows)
        if not self.rows:
            body = f'<tr><td colspan="{len(self.columns)}">nothing drawn yet</td></tr>'
        name = html.escape(self.name)
        return (
            f'<details data-plot="{index}"><summary>Show the {name[:1].lower() + name[1:]} as a table</summary>'
            f'<div class="scroll"><table><caption>{name}</caption><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div></details>"
        )


class PlotTexts:
    """The text alternatives of one lab's plots: a name on each plot, their data under them.

    Parameters
    ----------
    figures : sequence of bokeh.plotting.figure
        The lab's plots, in the order :meth:`update` describes them.
    """

    def __init__(self, figures: Sequence[Figure]):
        self.figures = list(figures)
        self.tables = Div(text="", sizing_mode="stretch_width", margin=(0, 10, 0, 10), styles={"overflow-x": "auto"})
        hook = CustomJS(args={"figures": self.figures, "tables": self.tables}, code=NAME_PLOTS_JS)
        for fig in self.figures:
            fig.js_on_change("inner_width", hook)  # once laid out: the first naming
            fig.js_on_change("tags", hook)  # a new description from the server
        self.tables.js_on_change("text", hook)  # new tables: reopen the ones the student opened

    def update(self, texts: Sequence[PlotText]) -> None:
        """Describe the plots as they are now (one :class:`PlotText` per figure, same order).

        Parameters
        ----------
        texts : sequence of PlotText
            What each figure shows now.
        """
        if len(texts) != len(self.figures):
            raise ValueError(f"{len(self.figures)} plots but {len(texts)} descriptions")
        for fig, text in zip(self.figures, texts, strict=True):
            if fig.tags != [text.description]:
                fig.tags = [text.description]
        tables = "".join(text.table_html(i) for i, text in enumerate(texts))
        self.tables.text = TABLE_CSS + tables if tables else ""


def path_words(ts: Sequence[float], ys: Sequence[float], unit: str, time_unit: str = "s", per: str = "second") -> str:
    """A drawn piecewise-linear path in words: where it starts, how each stretch runs, where it is now.

    For example "from 4.00 units at t = 0.00 s, rising 1.00 units per second; now 6.00 units at
    t = 2.00 s". Consecutive stretches with the same slope read as one.

    Parameters
    ----------
    ts, ys : sequence of float
        The path's points, in time order; the last one is where it is now.
    unit : str
        The unit of ``ys``.
    time_unit : str
        The unit of ``ts``.
    per : str
        ``time_unit`` spelled out, for the slopes ("per second").

    Returns
    -------
    str
        One sentence without a final full stop.
    """
    if len(ts) == 0:
        return "nothing drawn yet"
    if len(ts) == 1 or ts[-1] <= ts[0]:
        return f"{fixed(ys[-1])} {unit} at t = {fixed(ts[-1])} {time_unit}; Step or Play draws the rest"
    words = f"from {fixed(ys[0])} {unit} at t = {fixed(ts[0])} {time_unit}"
    stretches: list[tuple[float, int]] = []  # (slope, index of the stretch's last point)
    for i in range(1, len(ts)):
        span = ts[i] - ts[i - 1]
        if span <= 0:
            continue
        slope = (ys[i] - ys[i - 1]) / span
        if stretches and fixed(stretches[-1][0]) == fixed(slope):
            stretches[-1] = (slope, i)
        else:
            stretches.append((slope, i))
    for number, (slope, end) in enumerate(stretches):
        shown = fixed(abs(slope))
        verb = "flat" if shown == fixed(0.0) else f"{'rising' if slope > 0 else 'falling'} {shown} {unit} per {per}"
        words += (", then " if number else ", ") + verb
        if number + 1 < len(stretches):
            words += f" to {fixed(ys[end])} {unit} at t = {fixed(ts[end])} {time_unit}"
    return words + f"; now {fixed(ys[-1])} {unit} at t = {fixed(ts[-1])} {time_unit}"
