"""Start ``python -m app`` on a library changed the way an upgrade might change it, for the fail-safe table.

``python -m tests.upstream.changed_library KIND MODULE NAME -- APP-ARGS...`` changes one private name
a fix declares (:class:`app.upstream.needs.Need`) before anything of the app is imported, then runs
the app as ``python -m app`` would:

``rename``
    The libraries rename it everywhere: in every namespace of Panel, Bokeh, param or Tornado that holds
    it (a module, a class, a subclass's own copy), and in the code of every function of theirs (its
    ``co_names`` and equal string constants), so that they keep working under the new name.
``move``
    A class's attribute moves to its class's first base (the library still finds it by inheritance).
``edit``
    A function is replaced by one that calls it (same behaviour, different source): a patch release
    that changed the code a fix copied.

Only the warm-up is cut to two pages, to keep each case cheap; everything else is the app's own start.
"""

from __future__ import annotations

import gc
import sys
import types
from typing import Any

from app.upstream.needs import Need

RENAMED = "_renamed_by_upgrade"
"""The suffix a renamed attribute gets."""


def library_of(obj: Any) -> str:
    """The top-level package ``obj`` was defined in (``""`` when it says none)."""
    module = vars(obj).get("__module__") if isinstance(obj, type) else getattr(obj, "__module__", None)
    return module.split(".")[0] if isinstance(module, str) else ""


def holder_of(owner: Any, attr: str) -> Any:
    """The namespace (module, class or instance) whose own ``__dict__`` holds ``attr``, as seen from ``owner``."""
    if isinstance(owner, types.ModuleType) or attr in getattr(owner, "__dict__", {}):
        return owner
    kind = owner if isinstance(owner, type) else type(owner)
    return next(cls for cls in kind.__mro__ if attr in vars(cls))


def renamed_code(code: types.CodeType, old: str, new: str) -> types.CodeType:
    """``code`` (and the code nested in it) with the name ``old`` read and written as ``new``.

    A string constant equal to ``old`` is renamed too (``getattr(obj, "_x")`` in the library).
    """
    consts = tuple(
        renamed_code(c, old, new) if isinstance(c, types.CodeType) else new if c == old else c for c in code.co_consts
    )
    names = tuple(new if name == old else name for name in code.co_names)
    return code.replace(co_names=names, co_consts=consts)


def rename(need: Need) -> None:
    """Rename ``need`` throughout the libraries (see the module's docstring).

    Panel, Bokeh, param and Tornado are renamed together (Panel reads param's ``_param__private``):
    as a release of one and the matching release of the others would.
    """
    attr, new = need.name.rsplit(".", 1)[-1], need.name.rsplit(".", 1)[-1] + RENAMED
    libraries = {"panel", "bokeh", "param", "tornado", need.module.split(".")[0]}
    holder = holder_of(need.owner(), attr)
    holders = {id(holder): holder}
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").split(".")[0] in libraries and attr in vars(module):
            holders[id(module)] = module
    for obj in gc.get_objects():
        if isinstance(obj, type) and attr in vars(obj):
            if library_of(obj) in libraries or (isinstance(holder, type) and issubclass(obj, holder)):
                holders[id(obj)] = obj
    for one in holders.values():
        value = vars(one)[attr]
        setattr(one, new, value)
        delattr(one, attr)
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType) and library_of(obj) in libraries:
            obj.__code__ = renamed_code(obj.__code__, attr, new)


def uses_super(value: Any) -> bool:
    """Whether a function (or the function of a classmethod) calls ``super()`` without arguments.

    Such a function cannot move to a base class (its ``super()`` would then find itself again): no
    library would move it so.
    """
    code = getattr(getattr(value, "__func__", value), "__code__", None)
    return code is not None and "__class__" in code.co_freevars


def move(need: Need) -> None:
    """Move a class attribute to the first base of the class that defines it."""
    attr = need.name.rsplit(".", 1)[-1]
    holder = holder_of(need.owner(), attr)
    base = holder.__bases__[0]
    setattr(base, attr, vars(holder)[attr])
    delattr(holder, attr)


def edit(need: Need) -> None:
    """Replace a function by one that calls it: the same behaviour, from other source."""
    attr = need.name.rsplit(".", 1)[-1]
    holder = holder_of(need.owner(), attr)
    original = vars(holder)[attr]

    def changed(*args: Any, **kwargs: Any) -> Any:
        return original(*args, **kwargs)

    setattr(holder, attr, changed)


CHANGES = {"rename": rename, "move": move, "edit": edit}


def main(argv: list[str]) -> None:
    """Change the library as ``argv`` says, then serve the app with the arguments after ``--``."""
    kind, module, name, _, *app_args = argv
    import bokeh.server.server  # noqa: F401
    import panel  # noqa: F401 - the library as the app would find it, before any of the app

    CHANGES[kind](Need(module, name))
    from app.site import server

    server.warm_up_paths = lambda routes: ["/lesson?id=overlap", "/queue"]  # two pages, not every one
    sys.argv = ["app", *app_args]
    server.main()


if __name__ == "__main__":
    main(sys.argv[1:])
