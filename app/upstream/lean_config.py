"""Panel's ``config.set`` while the course template lays out a page: only what it sets is saved and put back.

``BaseTemplate._init_doc`` renders each part of a page (the heading, the lesson or lab, the
connection notice) inside ``with config.set(design=self.design)``. Panel's ``set`` is written for any
block of code: on the way in it reads every one of the ~70 config parameters, and on the way out it
reads them all again, compares, and restores whatever changed, each read through the session-aware
``_config.__getattribute__``: 1.1 ms a part on the 2-core machine, three parts a lesson page, 1-4% of
a lesson visit's server CPU (``bench/visit_cost.py --fix lean_config``, 5 December 2026).

Rendering a part changes no config parameter but the one given (``tests/upstream/test_lean_config.py``
checks that on every page, with Panel's own ``set``). :func:`setting_only` saves and restores only
the parameters it is given, through the same ``setattr`` as Panel's, so that after the block a
session's ``design`` is what it was before, as with Panel's. :func:`lean_set` puts it in place of
``config.set`` for the length of one course page's build (``app.web.shell.CourseTemplate.server_doc``)
and takes it away again; nowhere else changes.

It was removed once (3 December 2026), when a session cost 700 ms of server CPU and its share was
inside the noise of the class bench; at 150 ms a session its figure is in docs/upstream-fixes.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
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

    The server builds a session's page on its one event-loop thread, and nothing inside yields to
    another task, so no other code sees the swap (the fix is *one thread*: :mod:`app.upstream`).
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


def in_use() -> AbstractContextManager[None]:
    """:func:`lean_set` once installed, otherwise a block that changes nothing.

    Returns
    -------
    contextlib.AbstractContextManager
        What ``app.web.shell.CourseTemplate.server_doc`` builds its document in.
    """
    return lean_set() if LeanConfig.on else nullcontext()
