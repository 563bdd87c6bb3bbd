"""The benchmarks: scripts that print measured figures (``python bench/<name>.py``), on ``bench.lib``."""
