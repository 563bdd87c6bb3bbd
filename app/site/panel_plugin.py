"""The routes ``panel serve`` adds for the course (``--plugins app.site.panel_plugin``).

The README's line: ``panel serve app/site/pages/[!_]*.py app/site/pages/instructor.py
app/trace/page/trace.py --plugins app.site.panel_plugin``.

A ``panel serve`` plugin (Panel's documented ``--plugins`` flag) is a module with a ``ROUTES`` list
of Tornado routes, tried after every page's own routes and before Bokeh's top-level ones:

- Bokeh's and Panel's static files, brotli- or gzip-compressed (:mod:`app.web.delivery.compression`);
- the class's data for the instructor's scripts (:mod:`app.classroom.http`; the class is on when
  ``CLASS_DB`` is set);
- ``/`` redirected to the index page (``/index``). The README's line does not pass ``--index
  index``: that would make the index the root app, whose own ``/static/...`` route Bokeh puts in
  front of every plugin's, and Bokeh's JavaScript would go uncompressed again.

Importing it also installs the library fixes checked on the versions found (:func:`app.upstream.install`; not
those that need ``python -m app``), turns off two of Bokeh's development checks and imports every lab's view before
the first page is served, as ``python -m app`` does (:mod:`app.web.serving_settings`,
:func:`app.course.catalog.import_every_view`).
"""

from __future__ import annotations

from tornado.web import RedirectHandler

from app import upstream
from app.classroom.http import ClassDataHandler
from app.course.catalog import import_every_view
from app.site.first_frames import draw_every_first_frame
from app.web import serving_settings
from app.web.delivery.compression import ROUTES as COMPRESSED_STATIC

upstream.install(serving="panel serve")  # the library fixes checked on these versions (app.upstream)
serving_settings.install()  # Bokeh's development checks off, as under python -m app (app.web.serving_settings)
import_every_view()  # every lab's models known to every page, as under python -m app (app.course.catalog)
draw_every_first_frame()  # each lab's picture for the pages' first paint, once (app.site.first_frames)

ROUTES = [
    *COMPRESSED_STATIC,
    (r"/instructor/(export\.csv|rounds\.json)", ClassDataHandler),
    (r"/", RedirectHandler, {"url": "index"}),
]
"""What ``--plugins app.site.panel_plugin`` serves, in the order it is tried."""
