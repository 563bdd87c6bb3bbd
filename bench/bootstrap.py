"""Put this checkout first on ``sys.path``: the one place a bench script does so.

A bench runs as ``python bench/<name>.py``, so Python puts ``bench/`` on ``sys.path``, not the
checkout above it. Importing this module (``import bootstrap``, before any import from the
checkout) adds the checkout, so that ``bench.lib``, ``devtools``, ``tests`` and this checkout's own
``app`` and ``labs`` import (not those of another checkout the virtual environment was installed
from).
"""

from __future__ import annotations

import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
"""The repository this bench belongs to."""

if str(CHECKOUT) not in sys.path[:1]:
    sys.path.insert(0, str(CHECKOUT))
