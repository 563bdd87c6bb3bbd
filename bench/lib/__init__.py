"""What the bench scripts share, one job a module; each script imports the modules it needs.

==================  =============================================================================
module              job
==================  =============================================================================
``procfs``          a process's CPU time and resident memory, the machine's busy time (``/proc``)
``loopback``        the one rule for where a bench may send traffic: this machine's loopback
``servers``         the app (``python -m app``) and a ``panel serve`` page as subprocesses
``app_health``      the app processes behind a target, from their ``/healthz`` and ``/proc``
``ways_of_serving`` the README's ``panel serve`` line, the Dockerfile's command, the nginx cluster
``protocol``        Bokeh's wire protocol: a message's websocket frames out and in (``bokeh.protocol``)
``events``          document events as bokehjs writes them, and predicates on a PATCH-DOC's events
``document``        a pulled Bokeh document's models by id, kept current with the server's patches
``raw_session``     one browser-like session over the raw protocol (:class:`RawSession`)
``student``         the simulated student: opens the lesson, does the growth exercise, times it
``class_watch``     the instructor's side: how far the class database lags behind the locks
``class_records``   what a class load records: samples, outcomes, scenarios and their budgets, runs
``class_figures``   the figures and budget checks drawn from a run
``class_report``    the printed report of a run, and several targets side by side
``class_runs``      a class against a target: warm-up, the load, the processes' figures around it
``session_batches`` lesson sessions opened together and kept open; the server's RSS meanwhile
``stats``           the one percentile (nearest rank) every bench reports
``machine``         this machine's speed against the reference one; best-of-N timing
``browser``         Chromium pages for the benches: a fresh context, waiting until a page is usable
``traffic``         bytes on the wire of a page visit, from Chromium's DevTools protocol
``trace_file``      a large profiler trace made by repeating a real fixture's steps
``lighthouse``      Lighthouse 12.2.3 from ``.cache/``: installed, run on a page, its JSON report read
==================  =============================================================================

Importing ``bench.lib`` imports none of them (a bench that measures its own memory or start-up
pays only for what it uses). A bench runs as a module from the repository's root,
``.venv/bin/python -m bench.<name>``: ``app`` and ``labs`` come from the project as the virtual
environment installed it (``pip install -e .``, this checkout), ``bench``, ``tests`` and
``devtools`` from the checkout, and no script changes ``sys.path``. A ``--before DIR`` bench starts
the other checkout's server with that checkout as its working directory, so it serves its own code.
"""
