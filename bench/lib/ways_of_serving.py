"""Every way this checkout serves the course, started on a free loopback port: :func:`start`.

- ``app``: ``make serve``, i.e. ``python -m app`` (what the Makefile runs);
- ``panel``: the README's ``panel serve`` line, exactly as written there (through a shell, so its
  glob expands);
- ``container``: the Dockerfile's ``CMD`` with its ``ENV`` (``ADDRESS`` set to 127.0.0.1 to stay on
  loopback);
- ``cluster``: ``deploy/cluster.py``'s :class:`Cluster`, two app processes behind Debian's nginx;
- ``bare``: the reference, ``panel serve bench/bare_lesson.py``, the lesson's Markdown in the same
  template.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass

from bench.lib.browser import Ready
from bench.lib.servers import AppServer, PanelServer, ServerProcess
from deploy.cluster import Cluster
from devtools.ports import free_port
from devtools.serving import REPOSITORY

WAYS = ("app", "panel", "container", "cluster", "bare")
"""The short names :func:`start` takes."""

README_PANEL_SERVE = re.compile(r"`(\.venv/bin/panel serve [^`]+)`")

LESSON = "/lesson?id={slug}"


@dataclass
class Server:
    """A way of serving, running: where its pages are and how to stop it.

    Attributes
    ----------
    name : str
        What it is, for the table.
    base_url : str
        ``http://...:<port>``.
    lesson_path : str
        A lesson's path with ``{slug}`` for the lesson.
    ready : str
        What shows its lesson page is usable (see :data:`bench.lib.browser.Ready`).
    stop : callable
        Stops it.
    """

    name: str
    base_url: str
    lesson_path: str
    ready: Ready
    stop: Callable[[], None]


def readme_panel_serve() -> str:
    """The README's ``panel serve`` command, as written.

    Returns
    -------
    str
        For example ``.venv/bin/panel serve app/site/pages/[!_]*.py app/site/pages/instructor.py
        app/trace/page/trace.py ...``.
    """
    match = README_PANEL_SERVE.search((REPOSITORY / "README.md").read_text(encoding="utf-8"))
    if not match:
        raise RuntimeError("the README gives no `.venv/bin/panel serve ...` line")
    return match.group(1)


def dockerfile_command() -> tuple[list[str], dict[str, str]]:
    """The Dockerfile's ``CMD`` (exec form) and the environment its ``ENV`` lines set.

    Returns
    -------
    command : list of str
        The command line.
    env : dict of str
        The variables.
    """
    text = (REPOSITORY / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    env: dict[str, str] = {}
    command: list[str] = []
    for line in text.splitlines():
        if line.startswith("ENV "):
            env.update(dict(re.findall(r"(\w+)=(\S+)", line)))
        elif line.startswith("CMD "):
            command = json.loads(line[4:])
    if not command:
        raise RuntimeError("the Dockerfile has no CMD in exec form")
    return command, env


def _process(name: str, command: list[str], port: int, env: dict[str, str] | None = None) -> Server:
    """Start ``command`` in the checkout and wait (up to 120 s) for its ``/``."""
    base_url = f"http://127.0.0.1:{port}"
    server = ServerProcess(command, base_url, f"{base_url}/", env=env, start_timeout=120.0)
    return Server(name, base_url, LESSON, "readout", server.stop)


def _cluster(port: int) -> Server:
    """``deploy/cluster.py``'s two app processes behind nginx, nginx on ``port``."""
    log = tempfile.NamedTemporaryFile(prefix="overlap-bytes-cluster-", suffix=".log", delete=False)
    cluster = Cluster(port=port, app_ports=[free_port(), free_port()], log=log.name)

    def stop_cluster() -> None:
        cluster.stop()
        log.close()
        os.unlink(log.name)

    try:
        cluster.start()
    except BaseException:
        stop_cluster()
        raise
    return Server("cluster (nginx, 2 processes)", f"http://localhost:{port}", LESSON, "readout", stop_cluster)


def start(name: str) -> Server:
    """Start one way of serving by its short name (one of :data:`WAYS`).

    Parameters
    ----------
    name : str
        ``app``, ``panel``, ``container``, ``cluster`` or ``bare``.

    Returns
    -------
    Server
        Running; the caller stops it.
    """
    port = free_port()
    if name == "app":
        app = AppServer(port=port)
        return Server("make serve (python -m app)", app.base_url, LESSON, "readout", app.stop)
    if name == "panel":
        command = f"exec {readme_panel_serve()} --port {port} --address 127.0.0.1"
        command += f" --allow-websocket-origin 127.0.0.1:{port}"
        return _process("README's panel serve line", ["bash", "-c", command], port)
    if name == "container":
        command, env = dockerfile_command()
        command = [sys.executable if part == "python" else part for part in command]
        env.update(PORT=str(port), ADDRESS="127.0.0.1")
        return _process("container's CMD (Dockerfile)", command, port, env)
    if name == "cluster":
        return _cluster(port)
    if name == "bare":
        bare = PanelServer("bare_lesson.py")
        return Server("bare Panel page (reference)", bare.base_url, bare.page + "?id={slug}", "heading", bare.stop)
    raise ValueError(name)
