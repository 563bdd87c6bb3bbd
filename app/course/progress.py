"""Course progress kept in the student's browser (localStorage), with no account."""

from __future__ import annotations

from pathlib import Path

import param
from panel.custom import JSComponent

STORAGE_KEY = "overlap-lab-progress-v1"

PROGRESS_JS = (Path(__file__).parent / "assets" / "progress.js").read_text(encoding="utf-8")


class ProgressStore(JSComponent):
    """An invisible component that mirrors ``completed`` to and from ``localStorage``.

    On load the browser sends what it has stored (one message); whenever the server records a
    finished exercise the browser stores the new mapping. Keys are ``"<lesson>/<exercise>"``;
    values are ``{"correct": bool}``.
    """

    completed = param.Dict(default={}, doc="Finished exercises by 'lesson/exercise' key.")
    loaded = param.Boolean(default=False, doc="True once the browser has sent what it stored.")
    kept = param.Boolean(
        default=True,
        doc=(
            "Whether the browser lets the page keep progress: False where it refuses its storage, as a "
            "private window does to a page framed by another site."
        ),
    )
    class_on = param.Boolean(
        default=False, doc="Whether this page shares predictions with a class (then it sends the id)."
    )
    student = param.String(
        default="",
        doc=(
            "This browser's anonymous id for the class (32 hex digits), made once and kept locally; the class "
            "keeps the first valid one a session sends (app.classroom.student.ClassShare)."
        ),
    )
    storage_key = param.String(
        default=STORAGE_KEY, constant=True, doc="The localStorage key the browser keeps progress under."
    )

    _esm = PROGRESS_JS

    def record(self, key: str, correct: bool) -> None:
        """Mark one exercise finished.

        Parameters
        ----------
        key : str
            ``"<lesson slug>/<exercise id>"``.
        correct : bool
            Whether the locked prediction matched the lab.
        """
        self.completed = {**self.completed, key: {"correct": bool(correct)}}

    def is_done(self, key: str) -> bool:
        """Whether the exercise ``key`` was finished in this browser."""
        return key in self.completed

    def was_correct(self, key: str) -> bool:
        """Whether the last finished attempt at exercise ``key`` in this browser was correct."""
        record = self.completed.get(key)
        return isinstance(record, dict) and record.get("correct") is True

    def card_note_html(self, key: str, finished: bool) -> str:
        """What an exercise's card says of this browser's progress with it, as HTML ("" for nothing).

        Parameters
        ----------
        key : str
            ``"<lesson slug>/<exercise id>"``.
        finished : bool
            Whether the exercise has just been judged on this page.

        Returns
        -------
        str
            Before a verdict, how the last finished attempt went; after one, where the browser keeps
            no progress, that it is not kept.
        """
        if finished:
            if self.kept:
                return ""
            return (
                '<p class="before">This browser keeps no progress for this page (it refuses storage to a page '
                "shown inside another site): open it in Overlap Lab to keep your progress.</p>"
            )
        if not self.is_done(key):
            return ""
        if self.was_correct(key):
            return '<p class="before">✓ You got this right before; you can do it again any time.</p>'
        return '<p class="before">✗ Not quite last time: try again.</p>'
