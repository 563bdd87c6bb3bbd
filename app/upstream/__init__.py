"""Every change the app makes to Panel's, Bokeh's, Tornado's or asyncio's internals.

Importing this package, or any module in it, changes nothing.
"""

from __future__ import annotations

from pathlib import Path

ASSETS = Path(__file__).parent / "assets"
"""The BokehJS fixes run in the browser (``.js``)."""
