"""Make a running server slow on purpose: it runs for a share of every period and is stopped for the rest.

A slow 2-core machine is where the course's timing bugs show (a click that lands before the page is
ready, a message that arrives after a later one). A test cannot ask for such a machine, but it can
make one process behave like a much slower one: a thread sends the process ``SIGSTOP`` and
``SIGCONT`` in turn, so it gets, say, a quarter of the wall-clock time, in short slices, while the
browser and the test run at full speed. Messages then arrive at the server in bursts and its
replies leave late, as on a busy machine, without any hook in the app's own code.
"""

from __future__ import annotations

import os
import signal
import threading
from types import TracebackType


class DutyCycle:
    """Run a process for ``share`` of every ``period`` seconds, until :meth:`stop` (or the ``with`` ends).

    Parameters
    ----------
    pid : int
        The process to slow down (POSIX only).
    share : float
        The part of each period it may run, in (0, 1].
    period : float
        Seconds in one stop-and-run cycle; short enough that a message waits at most this long.

    Examples
    --------
    >>> with DutyCycle(server.pid, share=0.2):  # doctest: +SKIP
    ...     page.get_by_role("button", name="Reset").click()
    """

    def __init__(self, pid: int, share: float = 0.25, period: float = 0.05):
        if not 0 < share <= 1:
            raise ValueError(f"share must be in (0, 1], not {share!r}")
        if period <= 0:
            raise ValueError(f"period must be positive, not {period!r}")
        self.pid, self.share, self.period = pid, share, period
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"duty-cycle-{pid}", daemon=True)

    def start(self) -> DutyCycle:
        """Begin slowing the process; returns ``self``."""
        self._thread.start()
        return self

    @property
    def active(self) -> bool:
        """Whether the cycle still runs (it ends on :meth:`stop` or when the process is gone)."""
        return self._thread.is_alive()

    def stop(self) -> None:
        """Let the process run freely again (it is always left running, never stopped)."""
        self._done.set()
        if self._thread.is_alive():
            self._thread.join()
        self._signal(signal.SIGCONT)

    def _signal(self, which: signal.Signals) -> bool:
        try:
            os.kill(self.pid, which)
        except ProcessLookupError:
            return False
        return True

    def _run(self) -> None:
        running, stopped = self.period * self.share, self.period * (1 - self.share)
        while not self._done.is_set():
            if stopped > 0:
                if not self._signal(signal.SIGSTOP):
                    return
                self._done.wait(stopped)  # wakes at once on stop(), which then lets it run
                if not self._signal(signal.SIGCONT):
                    return
            self._done.wait(running)

    def __enter__(self) -> DutyCycle:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()
