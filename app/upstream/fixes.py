"""What a fix is and whether it applies to the libraries found here (versions, way of serving, threads).

:mod:`app.upstream` lists the fixes (:data:`app.upstream.FIXES`) and installs them; this module holds
what that needs and nothing that reads a library's internals.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from app.upstream.needs import Need

SKIP_ENV = "OVERLAP_UPSTREAM_SKIP"
"""Fix names to skip, separated by commas, or ``all``."""

APP_ONLY = "only under python -m app"
"""Why a fix that works with ``python -m app``'s session handling is not installed by ``panel serve``'s plugin
(expected there, so not logged)."""


@dataclass(frozen=True)
class Fix:
    """One change to a library's internals.

    Attributes
    ----------
    name : str
        Its module in this package, e.g. ``"lean_models"``.
    checked_on : tuple of (str, str)
        Each library it changes or relies on, with the range of versions it was checked on, as a
        ``packaging`` specifier: ``(("bokeh", ">=3.9.2,<3.10"),)``. ``"python"`` means the
        interpreter (major.minor). A post-release (1.9.4.post1) is in the range of its release.
    serving : str
        ``"any"``: installed under every way of serving; ``"app"``: only under ``python -m app``,
        whose session reuse and session tracking it works with (``app.site.sessions``).
    only_if : str
        An environment variable that must be ``1`` for it to be installed at all (a bench's tool); when
        it is not, the fix is neither installed nor reported as skipped.
    one_thread : bool
        Whether it assumes that sessions are built and changed on the event loop's thread only; it
        is then not installed while Panel runs callbacks on worker threads (``pn.config.nthreads``).
    summary : str
        What it changes, in a few words.
    consequence : str
        What the course loses where it is not installed, for the log line that says so.
    needs : tuple of Need
        Every private name it reads, wraps or replaces (with a fingerprint of each function it copies):
        :func:`install` checks them all before installing any fix.
    """

    name: str
    checked_on: tuple[tuple[str, str], ...]
    serving: str = "any"
    only_if: str = ""
    one_thread: bool = False
    summary: str = ""
    consequence: str = ""
    needs: tuple[Need, ...] = ()


def found_versions() -> dict[str, str]:
    """The versions of the libraries the fixes name, as found in this process.

    Returns
    -------
    dict of str to str
        ``{"panel": "1.9.4", "bokeh": "3.9.2", "param": "2.4.2", "python": "3.11"}``.
    """
    import bokeh
    import panel
    import param

    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return {"panel": panel.__version__, "bokeh": bokeh.__version__, "param": param.__version__, "python": python}


def why_not(fix: Fix, versions: dict[str, str], serving: str, skip: frozenset[str], threads: int) -> str:
    """Why ``fix`` is not installed here, or ``""`` when it is.

    Parameters
    ----------
    fix : Fix
        The fix.
    versions : dict of str to str
        From :func:`found_versions`.
    serving : str
        ``"app"`` or ``"panel serve"``.
    skip : frozenset of str
        Names asked to be skipped (``"all"`` skips every fix).
    threads : int
        Panel's worker threads for callbacks (0: the event loop's thread only).

    Returns
    -------
    str
        For example ``"checked on Panel 1.9.4, found 1.10.0"``.
    """
    if "all" in skip or fix.name in skip:
        return f"skipped by {SKIP_ENV}"
    for library, checked in fix.checked_on:
        if not in_range(versions.get(library), checked):
            return f"checked on {library} {checked}, found {versions.get(library)}"
    if fix.serving == "app" and serving != "app":
        return APP_ONLY
    if fix.one_thread and threads:
        return f"assumes one thread; Panel runs callbacks on {threads} threads"
    return ""


def in_range(version: str | None, specifier: str) -> bool:
    """Whether ``version`` lies in ``specifier`` (``">=1.9.4,<1.10"``); an unreadable one never does.

    Parameters
    ----------
    version : str or None
        A version as the library reports it (``"1.9.4.post1"``).
    specifier : str
        A ``packaging`` specifier set.

    Returns
    -------
    bool
        True for a release, post-release or pre-release inside the range.
    """
    try:
        return version is not None and SpecifierSet(specifier).contains(Version(version), prereleases=True)
    except (InvalidVersion, InvalidSpecifier):
        return False
