"""``/components/<module>/<class>/<attribute>/<file>``: Panel's component files, never an import named by a URL.

Panel mounts :class:`panel.io.server.ComponentResourceHandler` on ``/components/(.*)`` to serve a
file that a component lists in one of its resource attributes (``_stylesheets``, ``__css__``, ...).
Before checking anything it calls ``importlib.import_module`` on the module the URL names, so any
anonymous request can import any installed module and run its top-level code: importing
``venv.__main__`` (or an ``__main__`` without a ``__name__`` guard) raises ``SystemExit`` and ends
the server (security review v6, C1; the upstream report is in docs/upstream-fixes.md).

:class:`CourseComponentHandler` is the same handler with one rule in front: the module must already
be imported (it is looked up in :data:`sys.modules`, never imported), the name must be an attribute
the module itself defines (read from its ``__dict__``, so a module's lazy ``__getattr__`` is never
run), and that attribute must be a Panel component, template or theme class. Anything else is a
plain 404. The course's own pages request no ``/components/`` file at all (checked in
tests/site/test_components.py); the handler keeps the route working for a component that would.

It is mounted through Panel's public ``pn.serve(extra_patterns=...)`` (``python -m app``) and the
``panel serve`` plugin's ``ROUTES``, both tried before Panel's own ``/components/`` route.
"""

from __future__ import annotations

import sys
from types import ModuleType

from panel.io.server import ComponentResourceHandler
from panel.template.base import BaseTemplate
from panel.theme.base import Design, Theme
from panel.viewable import Viewable
from tornado.web import HTTPError

PATTERN = r"/components/(.*)"
"""The route Panel serves component files on (``panel.io.resources.COMPONENT_PATH``)."""

SERVABLE_KINDS: tuple[type, ...] = (Viewable, BaseTemplate, Theme, Design)
"""What may list files for this route: Panel's components, templates and themes."""


def servable_component(module_name: str, name: str) -> type | None:
    """The component class ``module_name.name`` if it may list files here, else None; imports nothing.

    Parameters
    ----------
    module_name : str
        A dotted module name from the URL.
    name : str
        An attribute name from the URL.

    Returns
    -------
    type or None
        The class, when the module is already imported, defines ``name`` itself and that is a
        subclass of one of :data:`SERVABLE_KINDS`.
    """
    module = sys.modules.get(module_name)
    if not isinstance(module, ModuleType) or module_name == "__main__":
        return None
    candidate = vars(module).get(name)
    if isinstance(candidate, type) and issubclass(candidate, SERVABLE_KINDS):
        return candidate
    return None


class CourseComponentHandler(ComponentResourceHandler):
    """Panel's component file handler that answers 404 before any import (see the module's docstring)."""

    def parse_url_path(self, path: str) -> str:
        """Refuse a module that is not imported or a name that is not a component, then defer to Panel."""
        module_name, _, rest = path.partition("/")
        name = rest.partition("/")[0]
        if servable_component(module_name, name) is None:
            raise HTTPError(404, "No such component")
        return super().parse_url_path(path)


ROUTES = [(PATTERN, CourseComponentHandler)]
"""The route, for ``extra_patterns`` or a ``panel serve`` plugin's ``ROUTES``."""
