"""The page frame every page shares: title, navigation back to the index, main content."""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

import panel as pn
import param
from bokeh.document import Document
from markupsafe import Markup
from panel.widgets.indicators import BooleanIndicator

from app.upstream import bokeh_fixes_js, early_connection, is_installed
from app.web.connection import ConnectionWatch
from app.web.delivery import bundle_loading
from app.web.first_paint import first_paint_html
from labs.ui import stylesheet
from labs.ui.palette import NAVY, ROOT_CSS

CSS = stylesheet(Path(__file__).parent / "assets" / "shell.css")
"""The page frame's own look: the header's title, the skip link, the alert when the bundles cannot load."""

HEADING_CSS = stylesheet(Path(__file__).parent / "assets" / "heading.css")
"""A bare page's heading: its title and link on one line where they fit."""


def course_scripts(bokeh_js: str | None) -> str:
    """A course page's scripts (the template calls it): Bokeh's, loaded BokehJS first, then the BokehJS fix.

    Both where :func:`app.upstream.install` installed them (``bundle_onload``, ``bokeh_fixes_js``);
    elsewhere Bokeh's own script tags.

    Parameters
    ----------
    bokeh_js : str or None
        Bokeh's ``<script>`` tags for the page.

    Returns
    -------
    str
        What goes in the head instead (:func:`app.web.delivery.bundle_loading.scripts_html`).
    """
    after = bokeh_fixes_js.scripts()
    if is_installed("bundle_onload"):  # the embed code waits for the loader (app.upstream.bundle_onload)
        return bundle_loading.scripts_html(bokeh_js, after=after)
    return Markup("\n".join([bokeh_js or "", *(f"<script>{code}</script>" for code in after)]))


class CourseTemplate(pn.template.BootstrapTemplate):
    """Panel's Bootstrap template with a skip link, a ``<header>`` and one ``<main>`` landmark.

    Its scripts are loaded BokehJS first, without the BokehJS bundles no course page uses (MathJax,
    WebGL), and followed by the BokehJS fix (:mod:`app.upstream.bokeh_fixes_js`): :func:`course_scripts`,
    which the template reads as ``course_scripts`` (the reasons are in :mod:`app.web.delivery.bundle_loading`).
    Before them, the page opens its websocket itself where that fix is installed
    (:mod:`app.upstream.early_connection`, the template's ``early_connection``). Panel's template builds
    the page's document with its models counted once where :mod:`app.upstream.template_freeze` is installed.
    """

    _template = Path(__file__).parent / "templates" / "course.html"

    # No page reads or sets its URL from Python (a lesson's id and exercise come from the request's
    # query, ``pn.state.session_args``), so Panel's Location model, which echoes the URL back to
    # the server in a message per property as every page opens, is left out (``panel.io.location``).
    location = param.Boolean(default=False, readonly=True, doc="Whether Panel adds its Location model (never).")

    bare = param.Boolean(default=False, doc="A frame for another site to embed: no <header> (course.html).")

    # No page shows Panel's busy spinner (page() passes None). Panel's own default is a spinner that
    # param deep-copies for every template made, before the None given replaces it.
    busy_indicator = param.ClassSelector(
        default=None,
        class_=BooleanIndicator,
        allow_None=True,
        constant=True,
        instantiate=False,
        doc="Panel's indicator of a busy server: none on a course page.",
    )

    def __init__(self, **params):
        super().__init__(**params)
        self._rendered: list[Callable[[Document], None]] = []

    def on_rendered(self, callback: Callable[[Document], None]) -> None:
        """Call ``callback(doc)`` once this page's Bokeh models are in a session's document.

        Panel builds a served page's models after the page function returns (``server_doc``, in the
        same task); what must see the whole first document (``app.upstream.collector.track_session``)
        waits for this.

        Parameters
        ----------
        callback : callable
            Called with the document, right after :meth:`server_doc`.
        """
        self._rendered.append(callback)

    def server_doc(self, doc: Document | None = None, title: str | None = None, location: bool = True) -> Document:
        """Panel's ``server_doc``, then the callbacks given to :meth:`on_rendered`."""
        document = super().server_doc(doc, title, location)
        for callback in self._rendered:
            callback(document)
        return document


def page(
    title: str,
    main: object,
    intro: str = "",
    extra_html: str = "",
    back: bool = True,
    bare: bool = False,
    heading: Callable[[str], object] | None = None,
    first_paint: str | None = "",
    first_paint_until: str = "",
    first_paint_css: tuple[str, ...] = (),
    first_paint_extra: str | None = None,
) -> CourseTemplate:
    """Wrap ``main`` in the course's page frame.

    Parameters
    ----------
    title : str
        The page title, also the browser tab's title.
    main : object
        Any Panel object: a lab, a lesson, the index.
    intro : str
        An optional sentence shown above ``main``.
    extra_html : str
        Optional trusted HTML shown under the heading (navigation, notices); one pane with it.
    back : bool
        Whether the page links back to the index above its heading (the index itself does not).
    bare : bool
        A frame for another site to embed (``/embed/<lab>``): no site header, no skip link, a smaller
        heading; ``extra_html`` then follows the heading on its line. The page is the same otherwise
        (template, scripts, ``<main>``, the connection notice).
    heading : callable, optional
        Makes the component that shows the heading from its HTML, in place of an HTML pane (a lab
        page's heading with its Share button, :meth:`app.web.share.ShareButton.heading`).
    first_paint : str or None
        Trusted HTML of what ``main`` shows first (a lesson's text, a lab's first frame), sent with the
        heading in the page's HTML and shown until the live page is drawn (:mod:`app.web.first_paint`):
        by default the heading alone; None for no first paint.
    first_paint_until : str
        The component whose drawing ends the first paint (:func:`app.web.first_paint.first_paint_html`).
    first_paint_css : tuple of str
        The CSS ``first_paint`` needs beyond the first paint's own.
    first_paint_extra : str, optional
        What the first paint's heading shows in place of ``extra_html``: the page's HTML is rendered
        once per page kind (:mod:`app.upstream.page_html`), so nothing one request asked for (a
        notice about its URL) may be in it. None for ``extra_html`` itself.

    Returns
    -------
    CourseTemplate
        The page, ready to be served.
    """
    if pn.state.curdoc is not None:
        # Declares this page's Panel extensions (none; the trace page adds "filedropper" itself):
        # with it, Panel leaves out the JavaScript and CSS of every other extension imported in this
        # process (FileDropper's FilePond once the trace page has been served, Tabulator under
        # `panel serve`). Signatures are for IDEs; building them took most of the call's 15 ms.
        # Nor does any page read the browser's details (dark mode, pixel ratio, language, time zone):
        # without BrowserInfo the page sends seven fewer messages as it opens.
        pn.extension(apply_signatures=False, browser_info=False)
    template = CourseTemplate(
        title=title,
        site="Overlap Lab",
        site_url="./",
        header_background=NAVY,
        collapsed_sidebar=True,
        raw_css=[ROOT_CSS, CSS],
        busy_indicator=None,
        # Without it a phone lays the page out about 980 px wide and shrinks it to a third.
        meta_viewport="width=device-width, initial-scale=1",
        bare=bare,
    )
    doc = pn.state.curdoc
    if doc is not None:
        # What course.html reads beside Panel's own variables, through Bokeh's public Document.template_variables
        # (the dictionary Panel's template fills; Panel's public add_variable is pn.Template's only)
        doc.template_variables.update(
            course_scripts=course_scripts, early_connection=early_connection.script_html, bare=bare
        )

    def heading_for(extra: str) -> str:
        if bare:
            return (
                "<div class='bare-heading'>"
                f"<h1 style='font-size:1.2rem;margin:4px 0'>{html.escape(title)}</h1>{extra}</div>"
            )
        return (
            ('<nav aria-label="Course"><a href="./">← All lessons and labs</a></nav>' if back else "")
            + f"<h1 style='font-size:1.7rem;margin:8px 0'>{html.escape(title)}</h1>"
            + (f"<p>{html.escape(intro)}</p>" if intro else "")
            + extra
        )

    heading_html = heading_for(extra_html)
    if doc is not None and first_paint is not None:
        first_heading = heading_html if first_paint_extra is None else heading_for(first_paint_extra)
        doc.template_variables["first_paint"] = first_paint_html(
            first_heading, first_paint, first_paint_until, (HEADING_CSS, *first_paint_css)
        )
    if heading is None:
        looks = [HEADING_CSS] if bare else []
        template.main.append(pn.pane.HTML(heading_html, sizing_mode="stretch_width", stylesheets=looks))
    else:
        template.main.append(heading(heading_html))
    template.main.append(main)
    # the notice for a lost connection (one model per page); a bare page has no header to hold it
    (template.main if bare else template.header).append(ConnectionWatch())
    return template


def deferred(make: Callable[[], object], **column_params) -> pn.Column:
    """A column that receives ``make()`` once the page has loaded, in a server task of its own.

    A page built in one piece holds every click of every other student on the process until it is
    done; a page built in two pieces (the frame and text first, the lab once the browser reports the
    page ready, through ``pn.state.onload``) lets clicks through in between. Outside a server
    session (tests, scripts) the column is filled at once.

    Parameters
    ----------
    make : callable
        Builds what goes in the column.
    **column_params
        Parameters of the column (styles, sizing).

    Returns
    -------
    panel.Column
        Empty until the page has loaded, then holding ``make()``.
    """
    slot = pn.Column(**column_params)

    def fill() -> None:
        slot.objects = [make()]

    pn.state.onload(fill)
    return slot
