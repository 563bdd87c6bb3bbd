"""What ``/proc`` says of a process and of the machine: CPU seconds and resident memory.

Linux only, and only for processes on this machine (a bench target is loopback only). Every
bench that charges CPU time to a server reads it here; a bench's own CPU time is
``time.process_time()``.
"""

from __future__ import annotations

import os
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")
"""Clock ticks per second: the unit of ``/proc``'s CPU times."""


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time a process has used so far.

    Parameters
    ----------
    pid : int
        The process id.

    Returns
    -------
    float
        ``utime + stime`` from ``/proc/<pid>/stat``, in seconds.
    """
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_mb(pid: int) -> float:
    """Resident memory of a process.

    Parameters
    ----------
    pid : int
        The process id.

    Returns
    -------
    float
        ``VmRSS`` from ``/proc/<pid>/status``, in MiB.

    Raises
    ------
    LookupError
        When the status has no ``VmRSS`` line (a zombie process).
    """
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise LookupError(f"no VmRSS for pid {pid}")


def machine_busy_seconds() -> float:
    """CPU seconds all processes on this machine have used since boot (every core together).

    Returns
    -------
    float
        The non-idle, non-iowait jiffies of the ``cpu`` line of ``/proc/stat``, in seconds. The
        difference over a run, minus the server's and the client's own CPU time, is what other
        processes took from the same cores meanwhile.
    """
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / TICK
