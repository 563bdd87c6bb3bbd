"""A lab's first frame: its plots as the server can draw them, in the page before any script has run.

A lab's plots are drawn by BokehJS on canvases once the page's bundles have run and its lab has
arrived; a phone on slow 4G shows an empty box for five seconds or more. The first frame is each plot
of the lab's picture as it stands when the lab opens, drawn here from the Bokeh figure the view
built: the same box (the page's width, the figure's height), the title, the axes with their ticks
and labels, the grid, and the lines, bars and markers of the model's initial state. The live plot
takes its place in the same box (:mod:`app.web.first_paint`).

The frame's inside (grid, lines, bars) is an SVG image stretched over the plot's frame, which is as
wide as the page: its lines keep their width (``vector-effect``), and its text (title, ticks, axis
labels) is HTML laid over it, so nothing is drawn stretched. Being an image, it is also what a
browser counts as the page's largest paint.

Only what the course's figures use is drawn (``Line``, ``HBar``, ``HSpan``, ``Scatter``; linear,
log and categorical axes); anything else is left out of the first frame, never an error.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterator, Sequence
from urllib.parse import quote

from bokeh.models import (
    FactorRange,
    FixedTicker,
    HBar,
    HSpan,
    Line,
    LogAxis,
    Plot,
    Range1d,
    Scatter,
    Title,
)
from bokeh.models.formatters import LogTickFormatter

from labs.ui.palette import BAR_LABEL_INK, MUTED_GREY, PLOT_GRID

VIEW = 1000.0
"""The SVG's own width and height: data are mapped onto 0..VIEW before it is stretched over the frame."""

TICK_MANTISSAS = (1.0, 2.0, 5.0, 10.0)
"""The steps a linear axis takes between ticks, times a power of ten (Bokeh's ``BasicTicker``)."""

CHAR_PX = 6.2
"""About how wide a tick label's character is at Bokeh's 11 px."""

SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def plots_in(model: object) -> Iterator[Plot]:
    """The plots of a Bokeh layout, in the order it lays them out.

    Parameters
    ----------
    model : object
        A Bokeh model: a plot, or a row or column of them and other models.

    Yields
    ------
    bokeh.models.Plot
        Each plot, first to last.
    """
    if isinstance(model, Plot):
        yield model
        return
    for child in getattr(model, "children", None) or []:
        yield from plots_in(child[0] if isinstance(child, tuple) else child)


def linear_ticks(start: float, end: float, desired: int = 6) -> list[float]:
    """Ticks every 1, 2 or 5 times a power of ten, the step nearest ``(end - start) / desired``.

    Parameters
    ----------
    start, end : float
        The axis's range (``start < end``).
    desired : int
        How many ticks the axis would like.

    Returns
    -------
    list of float
        The ticks inside the range, in order.
    """
    ideal = (end - start) / desired
    power = 10.0 ** math.floor(math.log10(ideal))
    step = min((mantissa * power for mantissa in TICK_MANTISSAS), key=lambda candidate: abs(candidate - ideal))
    first = math.ceil(start / step - 1e-9)
    last = math.floor(end / step + 1e-9)
    return [round(index * step, 12) for index in range(first, last + 1)]


def tick_text(value: float, log: bool) -> str:
    """A tick's label: a power of ten on a log axis as 10 with a superscript, else the shortest number.

    Parameters
    ----------
    value : float
        The tick.
    log : bool
        Whether the axis labels its ticks as powers of ten (Bokeh's ``LogTickFormatter``).

    Returns
    -------
    str
        The label as text.
    """
    if log and value > 0:
        exponent = math.log10(value)
        if abs(exponent - round(exponent)) < 1e-9:
            return "10" + str(round(exponent)).translate(SUPERSCRIPT)
    if float(value).is_integer():
        return str(int(value))
    return f"{value:g}"


class Scale:
    """One axis of a plot: its range, whether it is logarithmic, its ticks and their labels."""

    def __init__(self, plot_range: object, axis: object) -> None:
        self.log = isinstance(axis, LogAxis)
        self.factors: list[str] = []
        if isinstance(plot_range, FactorRange):
            self.factors = [str(factor) for factor in plot_range.factors]
            padding = plot_range.range_padding if plot_range.range_padding_units == "absolute" else 0.0
            self.start, self.end = -padding, len(self.factors) + padding
        elif isinstance(plot_range, Range1d):
            self.start, self.end = float(plot_range.start), float(plot_range.end)
        else:
            raise ValueError("a first frame needs a fixed range")
        if self.log and (self.start <= 0 or self.end <= 0):
            raise ValueError("a log axis needs a positive range")

    def fraction(self, value: object) -> float | None:
        """Where ``value`` lies along the axis, from 0 (start) to 1 (end); None where it cannot be placed."""
        if self.factors:
            if value not in self.factors:
                return None
            value = self.factors.index(value) + 0.5
        try:
            number = float(value)
        except (TypeError, ValueError):
            return None
        if not math.isfinite(number) or (self.log and number <= 0):
            return None
        if self.log:
            return (math.log10(number) - math.log10(self.start)) / (math.log10(self.end) - math.log10(self.start))
        return (number - self.start) / (self.end - self.start)

    def ticks(self, axis: object) -> list[tuple[float, str]]:
        """Each tick's place along the axis (0 to 1) and its label."""
        if self.factors:
            return [(self.fraction(factor), factor) for factor in self.factors]
        ticker = getattr(axis, "ticker", None)
        fixed = isinstance(ticker, FixedTicker)
        if fixed:
            values = [float(tick) for tick in ticker.ticks]
        elif self.log:
            low, high = math.ceil(math.log10(self.start) - 1e-9), math.floor(math.log10(self.end) + 1e-9)
            values = [10.0**power for power in range(low, high + 1)]
        else:
            values = linear_ticks(self.start, self.end, getattr(ticker, "desired_num_ticks", 6) or 6)
        # a figure that picks its own ticks (a FixedTicker) labels them as numbers, as 1/16 or 10 000
        powers = self.log and isinstance(getattr(axis, "formatter", None), LogTickFormatter) and not fixed
        placed = [(self.fraction(value), tick_text(value, powers)) for value in values]
        return [(where, text) for where, text in placed if where is not None and -1e-9 <= where <= 1 + 1e-9]


def _values(renderer: object, spec: object) -> list | None:
    """A glyph property's values for each point: a column of the renderer's data, or one value repeated."""
    data = renderer.data_source.data
    field = getattr(spec, "field", None) if not isinstance(spec, str) else spec
    if isinstance(field, str) and field in data:
        return list(data[field])
    value = getattr(spec, "value", spec)
    if isinstance(value, str | int | float):
        length = max((len(column) for column in data.values()), default=0)
        return [value] * length
    return None


def _colour(value: object, default: str = MUTED_GREY) -> str:
    text = getattr(value, "value", value)
    return html.escape(text) if isinstance(text, str) and text else default


def _dash(value: object) -> str:
    dash = getattr(value, "value", value)
    if dash == "dashed" or (isinstance(dash, list | tuple) and dash):
        return ' stroke-dasharray="6 4"'
    return ""


def _svg_marks(plot: Plot, x: Scale, y: Scale) -> list[str]:
    """The plot's lines, bars and spans, in the SVG's 0..VIEW square (y downwards)."""
    marks: list[str] = []

    def point(xv: object, yv: object) -> tuple[float, float] | None:
        fx, fy = x.fraction(xv), y.fraction(yv)
        if fx is None or fy is None:
            return None
        return fx * VIEW, (1 - fy) * VIEW

    for renderer in plot.renderers:
        glyph = getattr(renderer, "glyph", None)
        if glyph is None or not renderer.visible or not hasattr(renderer, "data_source"):
            continue
        stroke = 'fill="none" vector-effect="non-scaling-stroke"'
        if isinstance(glyph, Line):
            xs, ys = _values(renderer, glyph.x), _values(renderer, glyph.y)
            points = [p for p in map(point, xs or [], ys or []) if p is not None]
            if len(points) > 1:
                path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
                alpha = getattr(glyph, "line_alpha", 1.0)
                alpha = alpha if isinstance(alpha, int | float) else 1.0
                marks.append(
                    f'<polyline points="{path}" {stroke} stroke="{_colour(glyph.line_color)}" '
                    f'stroke-width="{float(glyph.line_width) if isinstance(glyph.line_width, int | float) else 1.0}" '
                    f'stroke-opacity="{alpha}"{_dash(glyph.line_dash)}/>'
                )
        elif isinstance(glyph, HSpan):
            for value, colour in zip(
                _values(renderer, glyph.y) or [], _values(renderer, glyph.line_color) or [], strict=False
            ):
                fy = y.fraction(value)
                if fy is not None and 0 <= fy <= 1:
                    level = (1 - fy) * VIEW
                    marks.append(
                        f'<line x1="0" x2="{VIEW:g}" y1="{level:.1f}" y2="{level:.1f}" {stroke} '
                        f'stroke="{_colour(colour)}" stroke-width="2"{_dash(glyph.line_dash)}/>'
                    )
        elif isinstance(glyph, HBar):
            columns = [_values(renderer, spec) for spec in (glyph.y, glyph.left, glyph.right, glyph.height)]
            colours = _values(renderer, glyph.fill_color) or []
            if any(column is None for column in columns):
                continue
            for (row, left, right, height), colour in zip(zip(*columns, strict=False), colours, strict=False):
                fy, fl, fr = y.fraction(row), x.fraction(left), x.fraction(right)
                if None in (fy, fl, fr) or fr <= fl:
                    continue
                half = float(height) / 2 / (y.end - y.start)
                top, bottom = (1 - fy - half) * VIEW, (1 - fy + half) * VIEW
                marks.append(
                    f'<rect x="{fl * VIEW:.1f}" y="{top:.1f}" width="{(fr - fl) * VIEW:.1f}" '
                    f'height="{bottom - top:.1f}" fill="{_colour(colour)}"/>'
                )
    return marks


def _markers(plot: Plot, x: Scale, y: Scale, inset: Sequence[float]) -> list[str]:
    """The plot's markers as HTML dots over the frame (round, or a diamond), so none is drawn stretched."""
    left, top, right, bottom = inset
    dots = []
    for renderer in plot.renderers:
        glyph = getattr(renderer, "glyph", None)
        if not isinstance(glyph, Scatter) or not renderer.visible:
            continue
        xs, ys = _values(renderer, glyph.x), _values(renderer, glyph.y)
        fills = _values(renderer, glyph.fill_color) or []
        edges = _values(renderer, glyph.line_color) or []
        size = getattr(glyph.size, "value", glyph.size)
        size = float(size) if isinstance(size, int | float) else 10.0
        marker = getattr(glyph.marker, "value", glyph.marker)
        for xv, yv, fill, edge in zip(xs or [], ys or [], fills, edges, strict=False):
            fx, fy = x.fraction(xv), y.fraction(yv)
            if fx is None or fy is None or not (0 <= fx <= 1 and 0 <= fy <= 1):
                continue
            shape = (
                "transform:translate(-50%,-50%) rotate(45deg) scale(0.75)"
                if marker == "diamond"
                else ("transform:translate(-50%,-50%);border-radius:50%")
            )
            dots.append(
                f'<span style="position:absolute;width:{size:g}px;height:{size:g}px;box-sizing:border-box;'
                f"left:calc({left:g}px + (100% - {left + right:g}px) * {fx:.4f});"
                f"top:calc({top:g}px + (100% - {top + bottom:g}px) * {1 - fy:.4f});"
                f'background:{_colour(fill)};border:2px solid {_colour(edge)};{shape}"></span>'
            )
    return dots


def frame_inset(plot: Plot, x: Scale, y: Scale) -> tuple[float, float, float, float]:
    """About where BokehJS puts the plot's frame in its box: px from the left, top, right and bottom.

    The title above, the x axis's ticks and label below, the y axis's ticks (as wide as its longest
    label) and label on the left; the live plot measures its text, so these may differ by a few px.
    """
    x_axis, y_axis = plot.below[0], plot.left[0]
    labels = [text for _, text in y.ticks(y_axis)]
    widest = max((len(text) for text in labels), default=1) * (4.5 if y.factors else CHAR_PX)
    left = 5 + (19 if y_axis.axis_label else 0) + 12 + widest
    top = (25 if plot.title is not None and plot.title.text else 5) + 24 * len(subtitles(plot))
    bottom = 5 + (19 if x_axis.axis_label else 0) + 21
    return left, top, 12.0 if x.factors or y.factors else 5.0, bottom


def subtitles(plot: Plot) -> list[str]:
    """The texts of the titles a plot has above its frame besides its own title."""
    return [item.text for item in plot.above if isinstance(item, Title) and item.text]


def plot_frame_html(plot: Plot) -> str:
    """One plot's first frame: a box as wide as the page and as high as the plot, drawn as it opens.

    Parameters
    ----------
    plot : bokeh.models.Plot
        A figure with one axis below and one on the left, and fixed ranges.

    Returns
    -------
    str
        A ``<div class="lab-frame">`` (role ``img``, named by the plot's title), or '' for a plot
        it cannot draw (no fixed range, no axes).
    """
    if not plot.below or not plot.left or plot.height is None:
        return ""
    try:
        x, y = Scale(plot.x_range, plot.below[0]), Scale(plot.y_range, plot.left[0])
    except (ValueError, TypeError):
        return ""
    inset = frame_inset(plot, x, y)
    title = plot.title.text if plot.title is not None else ""
    return (
        f'<div class="lab-frame" role="img" aria-label="{html.escape(title)} (being drawn)" '
        f'style="height:{plot.height}px"><div aria-hidden="true">'
        f'<span class="plot-title">{html.escape(title)}</span>{_image(plot, x, y, inset)}'
        f"{''.join(_texts(plot, x, y, inset))}{''.join(_markers(plot, x, y, inset))}</div></div>"
    )


def _image(plot: Plot, x: Scale, y: Scale, inset: Sequence[float]) -> str:
    """The frame's inside as an SVG image stretched over it: grid, outline, marks, the two axis lines."""
    left, top, right, bottom = inset
    line = 'vector-effect="non-scaling-stroke"'
    grid = [
        f'<line x1="{fx * VIEW:.1f}" x2="{fx * VIEW:.1f}" y1="0" y2="{VIEW:g}"/>' for fx, _ in x.ticks(plot.below[0])
    ]
    grid += [
        f'<line x1="0" x2="{VIEW:g}" y1="{(1 - fy) * VIEW:.1f}" y2="{(1 - fy) * VIEW:.1f}"/>'
        for fy, _ in y.ticks(plot.left[0])
    ]
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {VIEW:g} {VIEW:g}" preserveAspectRatio="none">'
        f'<g stroke="{PLOT_GRID}" {line}>{"".join(grid)}</g>'
        f'<rect width="{VIEW:g}" height="{VIEW:g}" fill="none" stroke="{PLOT_GRID}" {line}/>'
        f"{''.join(_svg_marks(plot, x, y))}</svg>"
    )
    return (
        f'<img alt="" src="data:image/svg+xml,{quote(svg)}" style="position:absolute;left:{left:g}px;top:{top:g}px;'
        f"width:calc(100% - {left + right:g}px);height:calc(100% - {top + bottom:g}px);box-sizing:border-box;"
        f'border-left:1px solid {BAR_LABEL_INK};border-bottom:1px solid {BAR_LABEL_INK}">'
    )


def _texts(plot: Plot, x: Scale, y: Scale, inset: Sequence[float]) -> list[str]:
    """The frame's text laid over it: the titles above, each tick's label, each axis's label."""
    left, top, right, bottom = inset
    across, down = f"(100% - {left + right:g}px)", f"(100% - {top + bottom:g}px)"
    texts = [
        f'<span class="subtitle" style="top:{30 + 24 * index}px">{html.escape(text)}</span>'
        for index, text in enumerate(subtitles(plot))
    ]
    texts += [
        f'<span class="tick x" style="left:calc({left:g}px + {across} * {fx:.4f});'
        f'top:calc(100% - {bottom - 8:g}px)">{html.escape(text)}</span>'
        for fx, text in x.ticks(plot.below[0])
    ]
    texts += [
        f'<span class="tick y" style="right:calc(100% - {left - 8:g}px);'
        f'top:calc({top:g}px + {down} * {1 - fy:.4f})">{html.escape(text)}</span>'
        for fy, text in y.ticks(plot.left[0])
    ]
    if plot.below[0].axis_label:
        where = f"left:calc({left:g}px + {across} / 2)"
        texts.append(f'<span class="axis-label x" style="{where}">{html.escape(plot.below[0].axis_label)}</span>')
    if plot.left[0].axis_label:
        where = f"top:calc({top:g}px + {down} / 2)"
        texts.append(f'<span class="axis-label y" style="{where}">{html.escape(plot.left[0].axis_label)}</span>')
    return texts


def picture_frame_html(picture: object) -> str:
    """Every plot of a lab's picture as its first frame, one under the other.

    Parameters
    ----------
    picture : object
        The Bokeh layout of a lab's picture (:attr:`labs.ui.stage.LabStage.picture`'s model).

    Returns
    -------
    str
        HTML; '' when the picture has no plot this module can draw.
    """
    return "".join(plot_frame_html(plot) for plot in plots_in(picture))
