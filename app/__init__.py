"""Overlap Lab's pages, routing and serving."""
