"""Panel leaves a queued PATCH-DOC unsent when it is queued while the previous write completes.

Stock Panel only. One event loop, one document, one connection whose socket type is registered in
``panel.io.document.extra_socket_handlers`` (the hook Panel's own tests use), so that the script
completes each write by hand:

1. ``schedule_write_events`` queues a "first" message; its ``_dispatch_msgs`` task writes it and
   awaits the write.
2. The write completes: the first task's continuation is now due.
3. Before it runs, a "second" message is queued and a second task scheduled.
4. The first task resumes first, finds nothing left of its own and deletes ``_WRITE_BLOCK[doc]``;
   the second task then sees no block and returns without writing.

Run: python panel_write_queue.py. Prints what was written and what is still queued.
"""

import asyncio

from bokeh.document import Document
from panel.io import document as pdoc


class Socket:
    """A socket whose writes stay pending until the script completes them."""

    def __init__(self) -> None:
        self.written: list[str] = []
        self.pending: list[asyncio.Future] = []


class Protocol:
    """Makes a message that is just the events' names."""

    def create(self, kind: str, events: list[str]) -> str:
        """A stand-in for Bokeh's PATCH-DOC message."""
        return f"{kind} {' '.join(events)}"


class Connection:
    """The two attributes of a ServerConnection that Panel's dispatch reads."""

    def __init__(self) -> None:
        self._socket = Socket()
        self.protocol = Protocol()


def write(conn: Connection, msg: str | None = None) -> list[asyncio.Future]:
    """Start a write: recorded now, completed when the script says so."""
    future = asyncio.get_running_loop().create_future()
    conn._socket.written.append(msg)
    conn._socket.pending.append(future)
    return [future]


async def main() -> None:
    """Queue a second message in the moment between a write's completion and its task's resumption."""
    pdoc.extra_socket_handlers[Socket] = write
    doc, conn = Document(), Connection()
    pdoc.schedule_write_events(doc, [conn], ["first"])
    for _ in range(5):
        await asyncio.sleep(0)  # the first task writes and awaits the write
    conn._socket.pending[0].set_result(None)  # the write completes
    pdoc.schedule_write_events(doc, [conn], ["second"])  # a change queued meanwhile
    for _ in range(50):
        await asyncio.sleep(0)
        for future in conn._socket.pending:
            if not future.done():
                future.set_result(None)
    await asyncio.sleep(0.1)
    queued = pdoc._WRITE_MSGS.get(doc, {}).get(conn, [])
    print("written:         ", conn._socket.written)
    print("still queued:    ", queued)
    print("_WRITE_BLOCK set:", doc in pdoc._WRITE_BLOCK)
    print("result:", "BUG: the second message is never sent" if queued else "ok: both messages were sent")


if __name__ == "__main__":
    asyncio.run(main())
