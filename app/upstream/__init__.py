"""Every change the app makes to Panel's, Bokeh's or asyncio's internals, installed in one place.

Each fix is a module of this package, listed once in :data:`FIXES` with the library versions it was
checked on. Importing this package, or any module in it, changes nothing: :func:`install` does, and
``python -m app``, the ``panel serve`` plugin and the test suite each call it once.

On a version outside the range a fix was checked on (a ``packaging`` specifier such as
``>=1.9.4,<1.10``, tied to pyproject.toml's pins by a test), or where a private name it needs is
gone, :func:`install` leaves that library exactly as it is and logs one line naming what it skipped,
the versions it found and what the course loses without each fix (:attr:`Fix.consequence`).
``/healthz`` lists what is installed (``upstream``). ``OVERLAP_UPSTREAM_SKIP`` (fix names
separated by commas, or ``all``) skips fixes on purpose, for ``bench/upstream_fixes.py`` and the
tests that build every page without them. Each fix's symptom, upstream issue and test are in
``docs/upstream-fixes.md``.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

ASSETS = Path(__file__).parent / "assets"
"""The browser code of the fixes that run in the page (``.js``)."""

SKIP_ENV = "OVERLAP_UPSTREAM_SKIP"
"""Fix names to skip, separated by commas, or ``all``."""

LOG = logging.getLogger("app.upstream")

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
    """

    name: str
    checked_on: tuple[tuple[str, str], ...]
    serving: str = "any"
    only_if: str = ""
    one_thread: bool = False
    summary: str = ""
    consequence: str = ""


PANEL, BOKEH = ("panel", ">=1.9.4,<1.10"), ("bokeh", ">=3.9.2,<3.10")
"""The ranges the fixes were checked on: pyproject.toml pins a version inside each (tests/upstream/test_upstream.py)."""
PARAM = ("param", ">=2.4.2,<2.5")
"""The param releases :mod:`app.upstream.lean_params` and :mod:`app.upstream.param_reads` were checked on."""
PYTHON = ("python", ">=3.11,<3.14")
"""The interpreters the whole headless suite passes on (pyproject.toml's requires-python)."""

FIXES: tuple[Fix, ...] = (
    Fix(
        "panel_write_queue",
        (PANEL,),
        summary="a queued websocket write that waited for the next one",
        consequence="a change Panel queues may reach the page only with the next one (a readout one click late)",
    ),
    Fix(
        "locked_events",
        (PANEL,),
        summary="a click's held-back widget changes run under the document lock",
        consequence=(
            "a click right after typing in another field can lose that field's change with a traceback "
            "(the trace page's world size)"
        ),
    ),
    Fix(
        "lean_serialization",
        (BOKEH,),
        summary="defaults not computed before they are skipped",
        consequence="each session's first document costs more server time",
    ),
    Fix(
        "lean_references",
        (BOKEH,),
        summary="stable defaults skipped in the reference walk",
        consequence="page builds walk more properties (a few ms each)",
    ),
    Fix(
        "lean_models",
        (BOKEH,),
        summary="empty lists and dicts built when first read",
        consequence="page builds make every default list and dict (more server time and memory per session)",
    ),
    Fix(
        "template_freeze",
        (PANEL,),
        summary="a template's document counts its models once per build",
        consequence="each page build recounts its document's models about seven times (more server time per session)",
    ),
    Fix(
        "lean_datamodel_refs",
        (PANEL, BOKEH),
        summary="a custom component's update walks only the values it set",
        consequence="each exercise card change walks every model of the lab (more server time per click)",
    ),
    Fix(
        "class_constants",
        (PANEL,),
        summary="a custom component's browser code and a design's stylesheets worked out once per class",
        consequence="each model works out its class's browser code and stylesheets again (more server time a session)",
    ),
    Fix(
        "template_layout",
        (PANEL,),
        summary="a template builds no notebook widget a served page never reads",
        consequence="each page builds a text, a button and a column nobody sees (more server time per session)",
    ),
    Fix(
        "lean_config",
        (PANEL,),
        one_thread=True,
        summary="the course template's config.set saves and restores only the design",
        consequence="each page part's config.set reads every config parameter twice (more server time per session)",
    ),
    Fix(
        "lean_params",
        (PARAM, PANEL),
        one_thread=True,
        summary="the app's objects share their class's Parameters",
        consequence="every object of the app copies each Parameter it reads (more server time per session)",
    ),
    Fix(
        "param_reads",
        (PARAM,),
        summary="a bound Parameter's attributes read without param's per-read call",
        consequence="every read of a Parameter's name, default or bounds is a Python call (more server time a session)",
    ),
    Fix(
        "bundle_onload",
        (PANEL, BOKEH),
        summary="Bokeh's embed code waits for the course's script loader",
        consequence="pages load Bokeh's script tags in the stock order (slower first paint on a slow phone)",
    ),
    Fix(
        "bokeh_fixes_js",
        (BOKEH,),
        summary="BokehJS: a control changed before it is drawn",
        consequence="a control changed before BokehJS drew it throws in the browser (a page error, Step stuck off)",
    ),
    Fix(
        "early_connection",
        (BOKEH,),
        summary="a page's websocket opened from its head, handed to BokehJS",
        consequence="a page opens its websocket only once its bundles have run (later first figures on a slow phone)",
    ),
    Fix(
        "closed_connection",
        (BOKEH,),
        summary="a websocket closed after the keep-alive ping let its connection go",
        consequence=(
            "a tab closed as the server pings it logs a traceback (an AssertionError in Bokeh's on_close); "
            "nothing else is lost"
        ),
    ),
    Fix(
        "routes_first",
        (BOKEH,),
        serving="app",
        summary="the app's 404s, redirects and compressed static files tried before Bokeh's routes",
        consequence=(
            "an unknown lesson or lab answers 200 with its notice instead of a 404, a trailing slash is not "
            "redirected, and static files go uncompressed (several times the bytes on a first visit)"
        ),
    ),
    Fix(
        "page_html",
        (PANEL,),
        serving="app",
        summary="a cached session's page HTML rendered once",
        consequence="every page request renders its template and resource bundle again (more server time per student)",
    ),
    Fix(
        "collector",
        (PANEL, PYTHON),
        serving="app",
        one_thread=True,
        summary="full garbage collections rare, discarded sessions swept",
        consequence="Panel's and CPython's own full collections: pauses of hundreds of ms with a class open",
    ),
    Fix(
        "upload_limits",
        (PANEL,),
        summary="a FileDropper's size, file and chunk limits kept on the server, not only in the browser",
        consequence=(
            "an upload's chunks are kept however many the page's script sends (memory until the session ends); "
            "FilePond's limits hold only in the browser"
        ),
    ),
    Fix(
        "task_timer",
        (PYTHON,),
        serving="app",
        only_if="OVERLAP_TASK_TIMER",
        summary="bench only: the longest task the event loop ran",
        consequence="the bench cannot report the longest task",
    ),
)
"""Every fix, in the order :func:`install` installs them."""


class Installed:
    """What :func:`install` did in this process (``/healthz``'s ``upstream``)."""

    done = False
    installed: tuple[str, ...] = ()
    skipped: dict[str, str] = {}  # fix name: why


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


def install(serving: str = "app", versions: dict[str, str] | None = None) -> tuple[str, ...]:
    """Install every fix that was checked on the libraries found here (idempotent).

    Parameters
    ----------
    serving : str
        ``"app"`` under ``python -m app`` and in tests; ``"panel serve"`` from its plugin.
    versions : dict of str to str, optional
        The versions to check against; by default :func:`found_versions` (a test fakes newer ones).

    Returns
    -------
    tuple of str
        The names of the fixes installed.
    """
    if Installed.done:
        return Installed.installed
    import panel as pn

    versions = versions or found_versions()
    skip = frozenset(name.strip() for name in os.environ.get(SKIP_ENV, "").split(",") if name.strip())
    threads = int(pn.config.nthreads or 0)
    installed, skipped = [], {}
    for fix in FIXES:
        if fix.only_if and os.environ.get(fix.only_if) != "1":
            continue
        reason = why_not(fix, versions, serving, skip, threads)
        if not reason:
            module = importlib.import_module(f"{__name__}.{fix.name}")
            reason = module.applies() if hasattr(module, "applies") else ""
            if not reason:
                module.install()
                installed.append(fix.name)
        if reason:
            skipped[fix.name] = reason
    Installed.installed, Installed.skipped, Installed.done = tuple(installed), skipped, True
    unexpected = {name: why for name, why in skipped.items() if why != APP_ONLY}
    if unexpected:
        found = ", ".join(f"{library} {version}" for library, version in versions.items())
        consequences = {fix.name: fix.consequence for fix in FIXES}
        LOG.warning(
            "app.upstream: %d of %d library fixes not installed (found %s): %s",
            len(unexpected),
            len(FIXES),
            found,
            "; ".join(f"{name} ({why}: {consequences[name]})" for name, why in unexpected.items()),
        )
    return Installed.installed


def is_installed(name: str) -> bool:
    """Whether fix ``name`` is installed in this process.

    Parameters
    ----------
    name : str
        A fix's name, e.g. ``"bundle_onload"``.

    Returns
    -------
    bool
        False before :func:`install` and for a skipped fix.
    """
    return name in Installed.installed


def report() -> dict[str, object]:
    """What ``/healthz`` shows: the fixes installed, and each skipped one with the reason.

    Returns
    -------
    dict
        ``{"installed": [...], "skipped": {name: reason}}``.
    """
    return {"installed": list(Installed.installed), "skipped": dict(Installed.skipped)}
