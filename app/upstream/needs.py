"""The private names each fix needs, checked before any fix touches a library, and a fix's changes undone.

A fix in :data:`app.upstream.FIXES` declares each private name it reads, wraps or replaces as a
:class:`Need`; for a function it copies or rewrites, the need also carries a fingerprint of the
original's source (:func:`fingerprint`), so that a patch release inside the checked range which
changes that function is noticed rather than silently overwritten. :func:`missing` says, in one line,
what a fix's needs lack here. :class:`Snapshot` keeps the namespaces a fix's needs live in (modules and
classes) so that a fix which raises while it installs can be taken back out whole.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
from dataclasses import dataclass
from typing import Any

_ABSENT = object()


@dataclass(frozen=True)
class Need:
    """One private name a fix reads, wraps or replaces.

    Attributes
    ----------
    module : str
        The module it is reached from, e.g. ``"panel.io.document"``.
    name : str
        The attribute path from that module, e.g. ``"_dispatch_msgs"`` or ``"ReactiveESM._render_esm"``.
    source : str
        For a function the fix copies or rewrites: :func:`fingerprint` of the original's source, as
        checked; ``""`` when the fix only calls or wraps it.
    """

    module: str
    name: str
    source: str = ""

    def __str__(self) -> str:
        return f"{self.module}.{self.name}"

    def owner(self) -> Any:
        """The module or object the name's last part is an attribute of.

        Returns
        -------
        object
            ``panel.custom.ReactiveESM`` for ``Need("panel.custom", "ReactiveESM._render_esm")``.

        Raises
        ------
        ImportError, AttributeError
            If the module or a part of the path before the last is gone.
        """
        owner: Any = importlib.import_module(self.module)
        for part in self.name.split(".")[:-1]:
            owner = getattr(owner, part)
        return owner

    def problem(self) -> str:
        """What is wrong with this name here, or ``""`` when it is found (and its source is as checked)."""
        try:
            value = getattr(self.owner(), self.name.rsplit(".", 1)[-1])
        except (ImportError, AttributeError):
            return f"no {self}"
        if self.source and fingerprint(value) != self.source:
            return f"{self} is not the version checked (its source changed)"
        return ""


def fingerprint(function: Any) -> str:
    """A short hash of a function's source, as :func:`inspect.getsource` gives it.

    Parameters
    ----------
    function : callable
        A function, method, classmethod or staticmethod.

    Returns
    -------
    str
        16 hex digits, or ``""`` where the source cannot be read (a built-in).
    """
    function = getattr(function, "__func__", function)
    try:
        text = inspect.getsource(function)
    except (OSError, TypeError):
        return ""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def missing(needs: tuple[Need, ...]) -> str:
    """Why a fix cannot be installed here from what it needs, or ``""``.

    Parameters
    ----------
    needs : tuple of Need
        A fix's declared names.

    Returns
    -------
    str
        For example ``"no panel.io.document._dispatch_msgs"``; several problems are joined by ``"; "``.
    """
    return "; ".join(problem for problem in (need.problem() for need in needs) if problem)


class Snapshot:
    """The namespaces (modules, classes) a fix's needs live in, as they were before it installed.

    Parameters
    ----------
    needs : tuple of Need
        A fix's declared names; those whose owner cannot be reached are left out (the fix is not
        installed then anyway), and so are owners with no ``__dict__`` (slots: nothing to patch there).
    """

    def __init__(self, needs: tuple[Need, ...]) -> None:
        self.kept: list[tuple[Any, dict[str, Any]]] = []
        for need in needs:
            try:
                owner = need.owner()
            except (ImportError, AttributeError):
                continue
            if hasattr(owner, "__dict__") and not any(owner is kept for kept, _ in self.kept):
                self.kept.append((owner, dict(vars(owner))))

    def restore(self) -> None:
        """Put back every attribute the fix set, replaced or deleted in those namespaces."""
        for owner, before in self.kept:
            now = dict(vars(owner))
            for name in now.keys() - before.keys():
                delattr(owner, name)
            for name, value in before.items():
                if now.get(name, _ABSENT) is not value:
                    setattr(owner, name, value)
