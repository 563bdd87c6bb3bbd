"""The trace page: a student's profiler traces (or the course's sample) on the bucket timeline."""
