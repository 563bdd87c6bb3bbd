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
from pathlib import Path

from app.upstream.fixes import APP_ONLY, SKIP_ENV, Fix, found_versions, why_not
from app.upstream.fixes import in_range as in_range  # re-exported: app.upstream.in_range
from app.upstream.needs import Need, Snapshot, missing

ASSETS = Path(__file__).parent / "assets"
"""The browser code of the fixes that run in the page (``.js``)."""

LOG = logging.getLogger("app.upstream")

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
        needs=tuple(
            Need("panel.io.document", n)
            for n in ("_dispatch_msgs", "_WRITE_MSGS", "_WRITE_BLOCK", "_dispatch_write_task")
        ),
    ),
    Fix(
        "locked_events",
        (PANEL,),
        summary="a click's held-back widget changes run under the document lock",
        consequence=(
            "a click right after typing in another field can lose that field's change with a traceback "
            "(the trace page's world size)"
        ),
        needs=(
            Need("panel.reactive", "Syncable._event_coroutine"),
            Need("panel.reactive", "Syncable._change_coroutine"),
        ),
    ),
    Fix(
        "lean_serialization",
        (BOKEH,),
        summary="defaults not computed before they are skipped",
        consequence="each session's first document costs more server time",
        needs=(Need("bokeh.core.has_props", "HasProps.query_properties_with_values", "e864a09d384658f4"),),
    ),
    Fix(
        "lean_references",
        (BOKEH,),
        summary="stable defaults skipped in the reference walk",
        consequence="page builds walk more properties (a few ms each)",
        needs=(
            Need("bokeh.model.util", "visit_immediate_value_references", "94591d886aacef72"),
            Need("bokeh.model.util", "visit_value_and_its_immediate_references", "e018cc9482917eac"),
        ),
    ),
    Fix(
        "lean_models",
        (BOKEH,),
        summary="empty lists and dicts built when first read",
        consequence="page builds make every default list and dict (more server time and memory per session)",
        needs=(Need("bokeh.core.has_props", "HasProps.__init__", "8184f3bb9444ab37"),),
    ),
    Fix(
        "template_freeze",
        (PANEL,),
        summary="a template's document counts its models once per build",
        consequence="each page build recounts its document's models about seven times (more server time per session)",
        needs=(Need("panel.template.base", "BasicTemplate._init_doc"),),
    ),
    Fix(
        "lean_datamodel_refs",
        (PANEL, BOKEH),
        summary="a custom component's update walks only the values it set",
        consequence="each exercise card change walks every model of the lab (more server time per click)",
        needs=(
            Need("panel.reactive", "ReactiveCustomBase._set_on_model"),
            Need("panel.reactive", "ReactiveCustomBase._patch_datamodel_ref"),
        ),
    ),
    Fix(
        "class_constants",
        (PANEL,),
        summary="a custom component's browser code and a design's stylesheets worked out once per class",
        consequence="each model works out its class's browser code and stylesheets again (more server time a session)",
        needs=(
            Need("panel.custom", "ReactiveESM._render_esm"),
            Need("panel.theme.base", "Design._get_modifiers"),
            Need("panel.io.state", "state._is_pyodide"),
        ),
    ),
    Fix(
        "lean_params",
        (PARAM, PANEL),
        one_thread=True,
        summary="the app's objects share their class's Parameters",
        consequence="every object of the app copies each Parameter it reads (more server time per session)",
        needs=(
            Need("param.parameterized", "Parameterized._param__private.disable_instance_params"),
            Need("param.parameterized", "_instantiated_parameter"),
            Need("panel.custom", "JSComponent._get_properties"),
        ),
    ),
    Fix(
        "param_reads",
        (PARAM,),
        summary="a bound Parameter's attributes read without param's per-read call",
        consequence="every read of a Parameter's name, default or bounds is a Python call (more server time a session)",
        needs=(Need("param.parameterized", "Parameter.__getattribute__", "a3a307ec43b550fd"),),
    ),
    Fix(
        "bundle_onload",
        (PANEL, BOKEH),
        summary="Bokeh's embed code waits for the course's script loader",
        consequence="pages load Bokeh's script tags in the stock order (slower first paint on a slow phone)",
        needs=(Need("bokeh.embed.wrappers", "_ONLOAD"),),
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
        needs=(Need("bokeh.server.views.ws", "WSHandler.on_close"),),
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
        needs=(Need("panel.io.state", "state._sessions"), Need("panel.io.server", "server_html_page_for_session")),
    ),
    Fix(
        "collector",
        (PANEL, PYTHON),
        serving="app",
        one_thread=True,
        summary="full garbage collections rare, discarded sessions swept",
        consequence="Panel's and CPython's own full collections: pauses of hundreds of ms with a class open",
        needs=(
            Need("panel.io.document", "_garbage_collect"),
            Need("panel.io.document", "_panel_last_cleanup"),
            Need("panel.io.document", "GC_DEBOUNCE"),
        ),
    ),
    Fix(
        "upload_limits",
        (PANEL,),
        summary="a FileDropper's size, file and chunk limits kept on the server, not only in the browser",
        consequence=(
            "an upload's chunks are kept however many the page's script sends (memory until the session ends); "
            "FilePond's limits hold only in the browser"
        ),
        needs=(Need("panel.widgets", "FileDropper._process_event"), Need("panel.widgets", "FileDropper._cleanup")),
    ),
    Fix(
        "task_timer",
        (PYTHON,),
        serving="app",
        only_if="OVERLAP_TASK_TIMER",
        summary="bench only: the longest task the event loop ran",
        consequence="the bench cannot report the longest task",
        needs=(Need("asyncio.events", "Handle._run"), Need("bokeh.server.views.ws", "WSHandler._async_open")),
    ),
)
"""Every fix, in the order :func:`install` installs them."""


class Installed:
    """What :func:`install` did in this process (``/healthz``'s ``upstream``)."""

    done = False
    installed: tuple[str, ...] = ()
    skipped: dict[str, str] = {}  # fix name: why


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
    chosen = [fix for fix in FIXES if not fix.only_if or os.environ.get(fix.only_if) == "1"]
    for fix in chosen:  # every fix's names checked before any fix changes a library
        reason = why_not(fix, versions, serving, skip, threads) or missing(fix.needs)
        if reason:
            skipped[fix.name] = reason
    for fix in chosen:
        if fix.name not in skipped:
            reason = install_one(fix)
            if reason:
                skipped[fix.name] = reason
            else:
                installed.append(fix.name)
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


def install_one(fix: Fix) -> str:
    """Import, check and install one fix; on any exception, put back what it changed.

    Parameters
    ----------
    fix : Fix
        A fix whose versions and :attr:`Fix.needs` were found here.

    Returns
    -------
    str
        ``""`` when it is installed; otherwise why not (its ``applies()``, or the exception it raised,
        after which the namespaces its needs live in are as they were).
    """
    snapshot = None
    try:
        snapshot = Snapshot(fix.needs)
        module = importlib.import_module(f"{__name__}.{fix.name}")
        reason = module.applies() if hasattr(module, "applies") else ""
        if not reason:
            module.install()
    except Exception as error:  # noqa: BLE001 - whatever a changed library raises, the course starts stock
        if snapshot is not None:
            snapshot.restore()
        return f"raised {type(error).__name__} while installing: {error}; left stock"
    return reason


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
