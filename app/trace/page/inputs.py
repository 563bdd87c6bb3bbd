"""What the trace page asks of the student, bounded: the file dropper's limits, a file's rank, the reading line.

Nothing here grows with a number a file states: the dropper's limits hold on the server too
(:mod:`app.upstream.upload_limits`), and a rank is picked from a list only for a small run.
"""

from __future__ import annotations

import panel as pn

from app.trace.reader import MAX_WORLD

MAX_FILE = "200MB"
"""The largest file the dropper takes (FilePond's units: 200,000,000 bytes), in the browser and on the server."""
MAX_FILES = 16
"""Files in the dropper's list at once: one per rank of a run this page reads together."""
MAX_HELD = "400MB"
"""The bytes a session's dropper may hold (FilePond counts its list; the server, files arriving or not yet
read): two of the largest files."""
PICKER_RANKS = 64
"""Up to this many ranks a file's rank is chosen from a list; beyond, it is typed (bounded by the world size),
so that no widget grows with the world size a file states."""
ACCEPTED = [".json", ".gz", "application/json", "application/gzip"]


def dropper(stylesheets: list[str]) -> pn.widgets.FileDropper:
    """The page's FileDropper, with its limits.

    Parameters
    ----------
    stylesheets : list of str
        The dropped files' styles.

    Returns
    -------
    pn.widgets.FileDropper
        Several files at once, at most :data:`MAX_FILES`, each at most :data:`MAX_FILE`, :data:`MAX_HELD` in all.
    """
    return pn.widgets.FileDropper(
        multiple=True,
        max_file_size=MAX_FILE,
        max_files=MAX_FILES,
        max_total_file_size=MAX_HELD,
        accepted_filetypes=ACCEPTED,
        sizing_mode="stretch_width",
        stylesheets=stylesheets,
    )


def rank_picker(name: str, world: int, given: int | None) -> pn.widgets.Select | pn.widgets.IntInput:
    """The rank of file ``name``: a list of ranks 0 to ``world`` - 1 for a small run, a bounded number beyond.

    Parameters
    ----------
    name : str
        The file's name (the widget's label is ``Rank of <name>``).
    world : int
        Ranks in the run, at most :data:`~app.trace.reader.MAX_WORLD` (the parser refuses larger;
        larger is cut to it here too): no widget grows with it past :data:`PICKER_RANKS` entries.
    given : int or None
        The rank already chosen.

    Returns
    -------
    pn.widgets.Select or pn.widgets.IntInput
        A Select whose value is -1 until a rank is chosen, or an IntInput whose value is None until then.
    """
    world = max(1, min(world, MAX_WORLD))
    label = f"Rank of {name}"
    if world <= PICKER_RANKS:
        options = {"not said yet": -1, **{f"rank {r}": r for r in range(world)}}
        return pn.widgets.Select(label=label, options=options, value=-1 if given is None else given, width=260)
    return pn.widgets.IntInput(label=label, value=given, start=0, end=world - 1, placeholder="not said yet", width=260)


def reading_text(reading: int, waiting: int, workers: int) -> str:
    """The status line while files are read.

    Parameters
    ----------
    reading : int
        Files sent to be read and not read yet.
    waiting : int
        Of those, the files waiting for one of the server's trace readers.
    workers : int
        Trace files the server reads at a time.

    Returns
    -------
    str
        ``Waiting to read 2 files: …`` while any waits, else ``Reading 3 files…``.
    """
    if waiting:
        return (
            f"Waiting to read {waiting} file{'s' * (waiting != 1)}: this server reads {workers} trace files "
            "at a time and is reading others now; yours are next…"
        )
    return f"Reading {reading} file{'s' * (reading != 1)}…"
