"""The app's own browser code, read once per process, as it goes on the wire.

Each package keeps its ``.js`` files in its own ``assets/`` folder (the labs' in ``labs/ui/assets/``).
:func:`script` is :mod:`app.upstream.browser_code`'s, which the library fixes use too (that package
imports nothing else of ``app``).
"""

from __future__ import annotations

from app.upstream.browser_code import script

__all__ = ["script"]
