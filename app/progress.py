"""Course progress kept in the student's browser (localStorage), with no account."""

from __future__ import annotations

import param
from panel.custom import JSComponent

STORAGE_KEY = "overlap-lab-progress-v1"
STUDENT_KEY = "overlap-lab-student-v1"


class ProgressStore(JSComponent):
    """An invisible component that mirrors ``completed`` to and from ``localStorage``.

    On load the browser sends what it has stored (one message); whenever the server records a
    finished exercise the browser stores the new mapping. Keys are ``"<lesson>/<exercise>"``;
    values are ``{"correct": bool}``.
    """

    completed = param.Dict(default={}, doc="Finished exercises by 'lesson/exercise' key.")
    loaded = param.Boolean(default=False, doc="True once the browser has sent what it stored.")
    class_on = param.Boolean(
        default=False, doc="Whether this page shares predictions with a class (then it sends the id)."
    )
    student = param.String(
        default="", doc="This browser's anonymous id for the class (32 hex digits), made once and kept locally."
    )

    _esm = f"""
    const KEY = {STORAGE_KEY!r}
    function stored() {{
      try {{
        const value = JSON.parse(window.localStorage.getItem(KEY) || "{{}}")
        return value && typeof value === "object" && !Array.isArray(value) ? value : {{}}
      }} catch (error) {{
        return {{}}
      }}
    }}
    function student() {{
      // 16 random bytes, made once per browser: the class sees this id, never a name.
      let id = null
      try {{ id = window.localStorage.getItem({STUDENT_KEY!r}) }} catch (error) {{}}
      if (!/^[0-9a-f]{{32}}$/.test(id || "")) {{
        const bytes = new Uint8Array(16)
        window.crypto.getRandomValues(bytes)
        id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")
        try {{ window.localStorage.setItem({STUDENT_KEY!r}, id) }} catch (error) {{}}
      }}
      return id
    }}
    export function render({{ model }}) {{
      const merged = Object.assign(stored(), model.completed)
      model.completed = merged
      if (model.class_on) model.student = student()  // no id is made or sent while no class is on
      model.loaded = true
      model.on("completed", () => {{
        try {{ window.localStorage.setItem(KEY, JSON.stringify(model.completed)) }} catch (e) {{}}
      }})
      const el = document.createElement("span")
      el.hidden = true
      return el
    }}
    """

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
