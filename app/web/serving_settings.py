"""Two of Bokeh's development checks, off where the course is served: Bokeh's own settings for it.

In a class of 100 students on one process (py-spy, December 2026) they took 4.5% of the server's
CPU, all of it spent finding nothing:

- ``perform_document_validation`` (``BOKEH_VALIDATE_DOC``): every new session's document is put
  through Bokeh's integrity checks (1.6%). ``tests/web/test_serving_settings.py`` runs the same checks on
  every page's document and requires that they find no error and no warning.
- ``perform_error_diagnostics`` (``BOKEH_PERFORM_ERROR_DIAGNOSTICS``): every callback registered
  with ``on_change`` or ``on_event`` has its signature inspected (1.9%), and every look-up of an
  attribute a model lacks builds a list of similarly named ones for the error message (1.0%; Panel
  makes such a look-up, with a default, on each update of a ``JSComponent``). The test suite
  builds every page with both still on, so a wrong signature fails there.

:func:`install` is called by each way of serving (``python -m app``, and ``panel serve`` through
:mod:`app.site.panel_plugin`), not on import, so tests and scripts keep Bokeh's defaults. A variable set
in the environment wins: ``BOKEH_VALIDATE_DOC=true python -m app`` validates as before.
"""

from __future__ import annotations

import os

from bokeh.settings import settings

WEBSOCKET_COMPRESSION = {"websocket_compression_level": 4, "websocket_compression_mem_level": 5}
"""Bokeh server settings: the websocket's messages deflated (permessage-deflate, which every browser offers).

A lesson's document with its lab is JSON, 151 kB for the first lesson: 39 kB deflated at level 4. On a
phone's 4 Mbit/s that is 0.2 s less before the lab is drawn, and a lecture hall's Wi-Fi carries a
quarter of it. Level 4 rather than zlib's default 6: 2.0 against 4.8 ms of the server's CPU to deflate
that document, for 5% more bytes (39.2 against 37.3 kB; level 1 gives 45.0 kB for 1.2 ms), measured
in December 2026 on the 2-core machine, where deflating was 3.8% of the server's CPU in a class of
1,000 (py-spy). Memory level 5 keeps each connection's compressor at about 144 kB (Tornado's
default, 8, takes 256 kB, for 0.03% smaller messages). ``python -m app`` passes these to ``pn.serve``;
the README's ``panel serve`` line gives them as ``--websocket-compression-level 4
--websocket-compression-mem-level 5``.
"""

CHECKS = {
    "perform_document_validation": "BOKEH_VALIDATE_DOC",
    "perform_error_diagnostics": "BOKEH_PERFORM_ERROR_DIAGNOSTICS",
}
"""Bokeh setting turned off, and the environment variable that keeps it as the user says."""


def install() -> dict[str, bool]:
    """Turn off each check in :data:`CHECKS` whose environment variable is not set.

    Returns
    -------
    dict of str to bool
        Each setting's value now.
    """
    for name, variable in CHECKS.items():
        if variable not in os.environ:
            getattr(settings, name).set_value(False)
    return {name: getattr(settings, name)() for name in CHECKS}
