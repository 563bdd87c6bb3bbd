"""The composition root: the server, its routes and sessions, and the page scripts that wire the packages below.

Everything else of ``app`` is a package this one puts together, and none of them imports it:
``app.upstream`` (fixes to the libraries, importing nothing of ``app``), ``app.web`` (the toolkit
every page uses: the template, background work, share links, delivery of browser code),
``app.course`` and ``app.trace`` (lessons and exercises; the trace reader), ``app.classroom`` (the
class's predictions, above ``app.course``). ``tests/site/test_import_graph.py`` keeps it so.
"""
