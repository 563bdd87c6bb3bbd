"""Servers a bench starts: the app (``python -m app``) and a ``panel serve`` page, as subprocesses.

Each listens on a free loopback port (``devtools.ports``) and is started by
``devtools.serving.start_server``, which returns once a ready URL answers. Its output goes to a
temporary log file, read back by :meth:`ServerProcess.problems` and deleted on :meth:`ServerProcess.stop`.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from bench.lib import procfs
from devtools.ports import LOOPBACK, free_port
from devtools.serving import REPOSITORY, NotStarted, start_server


class ServerProcess:
    """A server subprocess, started and waited for, with its output kept in a temporary file.

    Parameters
    ----------
    command : sequence of str
        The command line (run in the checkout).
    base_url : str
        Where it serves, e.g. ``http://127.0.0.1:5006``.
    ready_url : str
        An address that answers with a success once the server is ready.
    env : mapping of str, optional
        Variables set for the server on top of this process's own environment.
    start_timeout : float
        Seconds the server has to answer ``ready_url``.
    cwd : pathlib.Path, optional
        Where it runs: this checkout by default, or another (a worktree of an earlier commit).

    Raises
    ------
    devtools.serving.NotStarted
        When it exited or did not answer in time; the message ends with everything it printed.
    """

    def __init__(
        self,
        command: Sequence[str],
        base_url: str,
        ready_url: str,
        env: Mapping[str, str] | None = None,
        start_timeout: float = 60.0,
        cwd: Path | None = None,
    ):
        self.base_url = base_url
        self._log = tempfile.NamedTemporaryFile(prefix="overlap-bench-server-", suffix=".log", delete=False)
        try:
            self.process = start_server(
                command, ready_url, self._log, env=env, cwd=cwd or REPOSITORY, timeout=start_timeout
            )
        except NotStarted as error:
            output = self.log_text()
            self._drop_log()
            raise NotStarted(f"{error}; it printed:\n{output}") from None
        self.pid = self.process.pid

    def cpu_seconds(self) -> float:
        """CPU seconds the server process has used so far (see :func:`bench.lib.procfs.cpu_seconds`)."""
        return procfs.cpu_seconds(self.pid)

    def rss_mb(self) -> float:
        """The server's resident memory in MiB (see :func:`bench.lib.procfs.rss_mb`)."""
        return procfs.rss_mb(self.pid)

    def log_text(self) -> str:
        """Everything the server printed so far (stdout and stderr); empty once it has been stopped."""
        if self._log.closed:
            return ""
        self._log.flush()
        return Path(self._log.name).read_text(encoding="utf-8", errors="replace")

    def problems(self) -> list[str]:
        """Lines of the server's output that report a traceback, an error or a warning.

        Returns
        -------
        list of str
            Each ``Traceback`` with the exception line that ends it, and every line containing
            ``ERROR`` or ``WARNING``; empty when the server printed only its banner.
        """
        lines = self.log_text().splitlines()
        found: list[str] = []
        for index, line in enumerate(lines):
            if line.startswith("Traceback"):
                end = next((j for j in range(index + 1, len(lines)) if not lines[j].startswith((" ", "\t"))), index)
                found.append(f"{line} ... {lines[end]}")
            elif "ERROR" in line or "WARNING" in line:
                found.append(line)
        return found

    def stop(self) -> None:
        """Terminate the server (kill it if it has not exited after 10 s) and delete its log."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self._drop_log()

    def _drop_log(self) -> None:
        if not self._log.closed:
            self._log.close()
            Path(self._log.name).unlink(missing_ok=True)

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()


class AppServer(ServerProcess):
    """The app (``python -m app``) on a loopback port.

    Parameters
    ----------
    port : int, optional
        The port to serve on; a free one by default.
    extra_args : list of str, optional
        More command-line arguments for ``python -m app``.
    start_timeout : float
        Seconds to wait for ``ready_path`` to answer.
    env : dict of str, optional
        Environment variables to set for the server on top of this process's own (for example
        ``{"OVERLAP_TASK_TIMER": "1"}``).
    ready_path : str
        The path that must answer 200 before the server counts as started: ``/`` (the index page),
        or ``/healthz``, which answers 200 only once the process has built its cached pages.
    host : str
        The loopback name it listens on and is addressed by (``--address``).
    cwd : pathlib.Path, optional
        The checkout whose app to run: this one by default (``python -m app`` imports ``app`` from
        its working directory, with this virtual environment's packages).
    """

    def __init__(
        self,
        port: int | None = None,
        extra_args: list[str] | None = None,
        start_timeout: float = 60.0,
        env: dict[str, str] | None = None,
        ready_path: str = "/",
        host: str = LOOPBACK,
        cwd: Path | None = None,
    ):
        self.port = port or free_port()
        base_url = f"http://{host}:{self.port}"
        command = [sys.executable, "-m", "app", "--port", str(self.port), "--address", host, *(extra_args or [])]
        super().__init__(command, base_url, f"{base_url}{ready_path}", env=env, start_timeout=start_timeout, cwd=cwd)

    def __enter__(self) -> AppServer:
        return self


class PanelServer(ServerProcess):
    """``panel serve bench/<script>`` on a loopback port: a bench's baseline page, never the app.

    Parameters
    ----------
    script : str
        A file in ``bench/``, e.g. ``"bare_lesson.py"``; its page is ``/<its stem>``.
    host : str
        The loopback name it listens on, is addressed by, and takes websockets from.
    """

    def __init__(self, script: str, host: str = LOOPBACK):
        self.port = free_port()
        self.page = f"/{Path(script).stem}"
        base_url = f"http://{host}:{self.port}"
        command = [sys.executable, "-m", "panel", "serve", f"bench/{script}", "--port", str(self.port)]
        command += ["--address", host, "--allow-websocket-origin", f"{host}:{self.port}"]
        super().__init__(command, base_url, f"{base_url}{self.page}", env={"PYTHONPATH": str(REPOSITORY)})

    def __enter__(self) -> PanelServer:
        return self
