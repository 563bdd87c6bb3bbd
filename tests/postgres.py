"""A private PostgreSQL server for the tests, from Debian's ``postgresql`` package: never a mock.

:func:`start_postgres` makes a cluster in a fresh temporary directory with ``initdb``, starts it
with ``pg_ctl`` on a free loopback port (as the ``postgres`` user when the tests run as root, since
PostgreSQL refuses to run as root), and gives back its SQLAlchemy URL; :func:`stop_postgres` stops
it and removes the directory. Nothing is installed or started system-wide.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from devtools.ports import free_port


@dataclass
class Postgres:
    """A running private server: its data directory, port and SQLAlchemy URL."""

    directory: Path
    port: int
    url: str
    binaries: Path
    as_user: list[str]


def postgres_binaries() -> Path | None:
    """Debian's PostgreSQL server binaries (``/usr/lib/postgresql/<major>/bin``), newest first, if any."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]), reverse=True)
    return Path(found[0]).parent if found else None


def start_postgres() -> Postgres:
    """Make and start a private cluster; raise RuntimeError with the server's words if it cannot start."""
    binaries = postgres_binaries()
    if binaries is None:
        raise RuntimeError("PostgreSQL is not installed (Debian: apt-get install postgresql)")
    directory = Path(tempfile.mkdtemp(prefix="overlap-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:  # initdb and postgres refuse root
        user = pwd.getpwnam("postgres")
        os.chown(directory, user.pw_uid, user.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    data = directory / "data"
    port = free_port()

    def run(*command: str) -> None:
        done = subprocess.run([*as_user, *command], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{Path(command[0]).name} failed: {(done.stderr or done.stdout).strip()[-600:]}")

    run(str(binaries / "initdb"), "-D", str(data), "-A", "trust", "-U", "overlap", "--no-sync", "-E", "UTF8")
    options = f"-p {port} -k {directory} -c listen_addresses=127.0.0.1 -c fsync=off"
    run(str(binaries / "pg_ctl"), "-D", str(data), "-l", str(directory / "log"), "-o", options, "-w", "start")
    url = f"postgresql+psycopg://overlap@127.0.0.1:{port}/postgres"
    return Postgres(directory, port, url, binaries, as_user)


def stop_postgres(server: Postgres) -> None:
    """Stop the server (fast shutdown) and remove its directory."""
    subprocess.run(
        [
            *server.as_user,
            str(server.binaries / "pg_ctl"),
            "-D",
            str(server.directory / "data"),
            "-m",
            "fast",
            "-w",
            "stop",
        ],
        capture_output=True,
        timeout=120,
    )
    shutil.rmtree(server.directory, ignore_errors=True)
