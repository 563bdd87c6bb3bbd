"""The instructor's page script."""
