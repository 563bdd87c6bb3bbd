"""Panel 1.9 works out, for every model it builds, two things that are the same for its whole class.

- **A custom component's browser code** (``ReactiveESM._render_esm``): it looks for a compiled
  bundle on disk, reads the ``_esm`` source and dedents it, for each model, although the result
  depends only on the class (and, for a bundle served as a file, the page's relative path).
- **A design's stylesheets** (``Design._get_modifiers``): for each model it resolves the theme's
  stylesheet files again (``pathlib`` paths checked against Panel's theme directory, a component
  resource path worked out), although they depend only on the design, the component's class and
  the theme.

In a class of 1,000 through the cluster (py-spy, December 2026) the two were 0.7% and 3.4% of the
server's CPU, all of it repeating an answer already worked out: a lesson page builds about 70 models
that carry a design and ten custom components.

:func:`install` keeps each answer per class, and hands out the same value Panel's own code would:
``_get_modifiers`` returns a fresh dictionary and stylesheet list each time (Panel's callers replace
the list's entries with the document's own stylesheet models); the browser code is a string. The key
reads the theme's files as given (:func:`theme_path`), never through param, which resolves them on
disk at each read. Under
``--autoreload`` (``pn.config.autoreload``), where a component's file may change while the server
runs, Panel's own methods run unchanged.
"""

from __future__ import annotations

import inspect
from typing import Any

import param
from panel.config import config
from panel.custom import ReactiveESM
from panel.io.state import state
from panel.theme.base import Design, Theme

_ORIGINAL_RENDER_ESM: Any = None
"""Panel's ``ReactiveESM._render_esm`` (a classmethod), kept by :func:`install`: no private is read at import."""
_ORIGINAL_GET_MODIFIERS: Any = None
"""Panel's ``Design._get_modifiers`` (a classmethod), kept by :func:`install`."""

_esm: dict[tuple, str] = {}
_modifiers: dict[tuple, tuple[dict[str, Any], dict[str, Any]]] = {}


def render_esm(cls: type, compiled: bool | str = True, server: bool = False) -> str:
    """Panel's ``ReactiveESM._render_esm``, worked out once per class and arguments.

    Parameters
    ----------
    cls : type
        The component's class.
    compiled, server : bool
        As Panel's: whether a compiled bundle may be used, and whether a server session asks (a
        bundle is then served as a file, at a path relative to the page).

    Returns
    -------
    str
        The browser code, or the path of its bundle, exactly as Panel's method returns it.
    """
    if config.autoreload:
        return _ORIGINAL_RENDER_ESM.__func__(cls, compiled, server)
    key = (cls, compiled, server, state.rel_path if server else None)
    found = _esm.get(key)
    if found is None:
        found = _esm[key] = _ORIGINAL_RENDER_ESM.__func__(cls, compiled, server)
    return found


def get_modifiers(cls: type, viewable: Any, theme: Any = None, isolated: bool = True) -> tuple[dict, dict]:
    """Panel's ``Design._get_modifiers``, its stylesheet list worked out once per design, class and theme.

    Parameters
    ----------
    cls : type
        The design.
    viewable : panel.viewable.Viewable
        The component the model is built for; only its class matters.
    theme : Theme or type, optional
        The design's theme.
    isolated : bool
        Whether the model is a root of its own (it then gets the theme's own stylesheets first).

    Returns
    -------
    tuple of dict
        The modifiers, as a new dictionary with a new stylesheet list, and the modifiers of children.
    """
    if config.autoreload:
        return _ORIGINAL_GET_MODIFIERS.__func__(cls, viewable, theme, isolated)
    theme_type = type(theme) if isinstance(theme, Theme) else theme
    is_server = bool(state.curdoc.session_context) if not state._is_pyodide and state.curdoc else False
    key = (
        cls,
        type(viewable),
        theme_type,
        theme_path(theme, "base_css"),
        theme_path(theme, "css"),
        isolated,
        is_server,
    )
    found = _modifiers.get(key)
    if found is None:
        found = _modifiers[key] = _ORIGINAL_GET_MODIFIERS.__func__(cls, viewable, theme, isolated)
    modifiers, child_modifiers = found
    modifiers = dict(modifiers)
    if "stylesheets" in modifiers:
        modifiers["stylesheets"] = list(modifiers["stylesheets"])
    return modifiers, child_modifiers


def theme_path(theme: Any, name: str) -> Any:
    """A theme's stylesheet file as it was given, for a key: ``theme.<name>`` without resolving it.

    The theme's files are ``param.Path`` parameters, which resolve the path against the disk on every
    read (``os.path`` calls for each search path): reading them for the key of every model built took
    3.6% of a seminar's server CPU (py-spy, December 2026), more than the answer the key saves.

    Parameters
    ----------
    theme : Theme, Theme subclass or None
        The design's theme.
    name : str
        ``"base_css"`` or ``"css"``.

    Returns
    -------
    object
        The value as set on the theme (or its class's default); None for no such parameter.
    """
    owner = type(theme) if isinstance(theme, Theme) else theme
    if not (isinstance(owner, type) and issubclass(owner, Theme)) or name not in owner.param:
        return None
    return param.Parameter.__get__(owner.param[name], theme if isinstance(theme, Theme) else None, owner)


def applies() -> str:
    """Why the fix cannot be installed here (a method it replaces is gone or changed kind), or ``""``."""
    if not isinstance(inspect.getattr_static(ReactiveESM, "_render_esm", None), classmethod):
        return "panel.custom.ReactiveESM._render_esm is not a classmethod"
    if not isinstance(inspect.getattr_static(Design, "_get_modifiers", None), classmethod):
        return "panel.theme.base.Design._get_modifiers is not a classmethod"
    return ""


def install() -> None:
    """Use :func:`render_esm` and :func:`get_modifiers` (idempotent).

    Panel's methods are read here, wherever in the class's bases they are defined, and kept for
    :func:`uninstall`.
    """
    global _ORIGINAL_RENDER_ESM, _ORIGINAL_GET_MODIFIERS
    if _ORIGINAL_RENDER_ESM is None:
        _ORIGINAL_RENDER_ESM = inspect.getattr_static(ReactiveESM, "_render_esm")
        _ORIGINAL_GET_MODIFIERS = inspect.getattr_static(Design, "_get_modifiers")
    ReactiveESM._render_esm = classmethod(render_esm)
    Design._get_modifiers = classmethod(get_modifiers)


def uninstall() -> None:
    """Put Panel's own methods back and forget what was kept (tests, benches)."""
    if _ORIGINAL_RENDER_ESM is None:
        return
    ReactiveESM._render_esm = _ORIGINAL_RENDER_ESM
    Design._get_modifiers = _ORIGINAL_GET_MODIFIERS
    _esm.clear()
    _modifiers.clear()
