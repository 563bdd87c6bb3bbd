"""Helpers for the repository's own programs: the tests, the benches, the tools and ``deploy/``.

Not part of the app (the container image has none of it); standard library only, so that every one
of those programs, in whatever environment it runs (the tools run in a throwaway virtualenv with
torch), can import it.
"""
