"""Panel's ``config.set`` as a template lays out a page: only what it sets is saved and put back.

``BaseTemplate._init_doc`` renders each part of a page (header, main, each object in them) inside
``with config.set(design=self.design)``. Panel's ``set`` is written for any block of code: on the
way in it reads every one of the ~100 config parameters, and on the way out it reads them all again,
compares, and restores whatever changed (each read goes through the session-aware
``_config.__getattribute__``). In a class of 100 students on one process that was 5.6% of the
server's CPU (py-spy, December 2026), for one value per part.

Rendering a part changes no config parameter but the one given (``tests/test_lean_config.py``
checks that on every page, with Panel's own ``set``). :func:`setting_only` saves and restores only
the parameters it is given, through the same ``setattr`` as Panel's, so that after the block a
session's ``design`` is what it was before, as with Panel's. :func:`lean_set` puts it in place of
``config.set`` for the length of one template's ``_init_doc`` (``app.web.shell.CourseTemplate``) and
takes it away again; nowhere else changes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from panel.config import config


@contextmanager
def setting_only(**values: Any) -> Iterator[None]:
    """Set the given config parameters for the block, then put back what each was before.

    Parameters
    ----------
    **values
        Config parameters and their values for the block (``design=...``).
    """
    before = {name: getattr(config, name) for name in values}
    for name, value in values.items():
        setattr(config, name, value)
    try:
        yield
    finally:
        for name, value in before.items():
            setattr(config, name, value)


@contextmanager
def lean_set() -> Iterator[None]:
    """While inside, ``config.set`` is :func:`setting_only`; Panel's own again after.

    The server runs a session's build on its one event-loop thread, and nothing inside yields to
    another task, so no other code sees the swap.
    """
    object.__setattr__(config, "set", setting_only)  # an instance attribute, ahead of the method
    try:
        yield
    finally:
        object.__delattr__(config, "set")


class LeanConfig:
    """Whether :func:`install` has been called (the course template asks :func:`in_use`)."""

    on = False


def install() -> None:
    """Let the course's template use :func:`lean_set` (idempotent); nothing of Panel's changes until a page is built."""
    LeanConfig.on = True


def in_use():
    """:func:`lean_set` once installed, otherwise a block that changes nothing.

    Returns
    -------
    contextlib.AbstractContextManager
        What ``app.web.shell.CourseTemplate._init_doc`` renders its parts in.
    """
    return lean_set() if LeanConfig.on else nullcontext()
